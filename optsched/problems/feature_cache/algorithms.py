"""Cache policies over a fixed read sequence, each returning its eviction list.

* :func:`belady_min` -- Belady's MIN [classical, Belady 1966; with bypass, Mattson et al. 1970]:
  on a miss with a full cache, evict the node (cached or the fetched one) whose next read is
  farthest away. Guarantee: ``misses(MIN) = OPT`` for the fixed sequence (exchange argument).
  O(T log C) with a lazy max-heap of next-read times.
* :func:`fifo`, :func:`lru` -- evict the oldest admitted / least recently read node [classical];
  BGL's cache is FIFO [3rd].
* :func:`static_degree` -- admit only the ``capacity`` highest-priority (degree) nodes, never
  evict (the PaGraph-style static cache) [ours as a baseline].
* :func:`exact_dp` -- dynamic programming over (read, cache contents) for tiny sequences: an
  independent exact route for tests.

>>> belady_min([0, 1, 2, 0, 1, 3, 0], 2)
[-1, -1, 2, -1, -1, 3, -1]
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from functools import lru_cache
from typing import Sequence

import numpy as np

__all__ = ["next_use", "belady_min", "fifo", "lru", "static_degree", "misses_of", "exact_dp"]


#: reads between two clock reads of a method's replay loop (``poll``) [ours: about a millisecond]
POLL_EVERY = 1 << 14


def _no_poll() -> None:
    return None


def next_use(accesses: Sequence[int], poll=_no_poll) -> np.ndarray:
    """``nxt[t]`` = the next read of ``accesses[t]`` after ``t`` (``T`` when none)."""
    T = len(accesses)
    nxt = [T] * T
    last: dict[int, int] = {}
    for t in range(T - 1, -1, -1):
        if not t % POLL_EVERY:
            poll()
        x = accesses[t]
        nxt[t] = last.get(x, T)
        last[x] = t
    return np.asarray(nxt, dtype=np.int64)


def belady_min(accesses: Sequence[int], capacity: int, poll=_no_poll) -> list[int]:
    """Belady's MIN with bypass: the evictions of an optimal policy. ``poll`` (a method's clock
    check) is called every :data:`POLL_EVERY` reads."""
    nxt = next_use(accesses, poll).tolist()
    cache: dict[int, int] = {}  # node -> its next read
    heap: list[tuple[int, int]] = []  # (-next read, node), lazy
    out = []
    for t, x in enumerate(accesses):
        if not t % POLL_EVERY:
            poll()
        if x in cache:
            cache[x] = nxt[t]
            heapq.heappush(heap, (-cache[x], x))
            out.append(-1)
            continue
        if len(cache) < capacity:
            cache[x] = nxt[t]
            heapq.heappush(heap, (-cache[x], x))
            out.append(-1)
            continue
        while True:  # the cached node read farthest in the future
            neg, y = heap[0]
            if y in cache and cache[y] == -neg:
                break
            heapq.heappop(heap)
        if -neg > nxt[t]:
            heapq.heappop(heap)
            del cache[y]
            cache[x] = nxt[t]
            heapq.heappush(heap, (-cache[x], x))
            out.append(y)
        else:
            out.append(x)  # bypass: the new node is the one needed last
    return out


def fifo(accesses: Sequence[int], capacity: int, poll=_no_poll) -> list[int]:
    queue: OrderedDict[int, None] = OrderedDict()
    out = []
    for t, x in enumerate(accesses):
        if not t % POLL_EVERY:
            poll()
        if x in queue:
            out.append(-1)
            continue
        queue[x] = None
        if len(queue) > capacity:
            victim, _ = queue.popitem(last=False)
            out.append(victim)
        else:
            out.append(-1)
    return out


def lru(accesses: Sequence[int], capacity: int, poll=_no_poll) -> list[int]:
    cache: OrderedDict[int, None] = OrderedDict()
    out = []
    for t, x in enumerate(accesses):
        if not t % POLL_EVERY:
            poll()
        if x in cache:
            cache.move_to_end(x)
            out.append(-1)
            continue
        cache[x] = None
        if len(cache) > capacity:
            victim, _ = cache.popitem(last=False)
            out.append(victim)
        else:
            out.append(-1)
    return out


def static_degree(accesses: Sequence[int], capacity: int, priority: Sequence[float], poll=_no_poll) -> list[int]:
    """Admit only the ``capacity`` nodes of highest priority (ties: lower id); bypass the rest."""
    pr = np.asarray(priority, float)
    chosen = set(np.lexsort((np.arange(len(pr)), -pr))[:capacity].tolist())
    cache: set[int] = set()
    out = []
    for t, x in enumerate(accesses):
        if not t % POLL_EVERY:
            poll()
        if x in cache:
            out.append(-1)
        elif x in chosen:
            cache.add(x)
            out.append(-1)
        else:
            out.append(x)  # not admitted: bypass
    return out


def misses_of(accesses: Sequence[int], evict: Sequence[int], capacity: int, poll=_no_poll) -> int:
    """Misses of an eviction list (a plain replay, no validation: the checker validates)."""
    cache: set[int] = set()
    misses = 0
    for t, (x, e) in enumerate(zip(accesses, evict)):
        if not t % POLL_EVERY:
            poll()
        if x in cache:
            continue
        misses += 1
        cache.add(x)
        if e != -1:
            cache.discard(e)
    return misses


def exact_dp(accesses: Sequence[int], capacity: int) -> int:
    """Minimum misses by DP over (read index, cache contents as a frozenset): exponential, tiny inputs only."""
    a = tuple(int(v) for v in accesses)

    @lru_cache(maxsize=None)
    def best(t: int, cache: frozenset) -> int:
        if t == len(a):
            return 0
        x = a[t]
        if x in cache:
            return best(t + 1, cache)
        options = [best(t + 1, cache)]  # bypass
        if len(cache) < capacity:
            options.append(best(t + 1, cache | {x}))
        else:
            options += [best(t + 1, (cache - {y}) | {x}) for y in cache]
        return 1 + min(options)

    return best(0, frozenset())
