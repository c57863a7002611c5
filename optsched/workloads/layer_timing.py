"""Per-iteration time of parameter-server data-parallel training from a DNN's layer structure.

optsched's timing model [ours, after the SMD paper's layer-wise analysis]. One
iteration on ``w`` workers with the parameters sharded evenly over ``s`` parameter servers:

* forward pass: ``sum_l f[l]`` seconds;
* backward pass from the last layer ``n`` down to layer 1; layer ``l``'s gradient is ready at
  ``G_l = sum_{k >= l} b[k]``;
* pushing and pulling layer ``l`` takes ``c[l] = m[l] * k(w, s)`` with
  ``k(w, s) = 2 * max(1 / B_wk, w / (s * B_ps))`` seconds per parameter byte (push and pull; a
  worker's NIC or the PSs' aggregate NIC is the bottleneck);
* wait-free backpropagation: a layer's transfer starts when its gradient is ready and the
  previous transfer has finished: ``Q_{n+1} = 0``, ``Q_l = max(G_l, Q_{l+1}) + c[l]``;
* iteration time ``tau(w, s) = sum_l f[l] + Q_1``.

Unrolling the recursion gives a closed form: the transfer chain that starts at layer ``l`` carries
layers ``l, l-1, ..., 1``, so ``Q_1 = max_l (G_l + k * M_l)`` with ``M_l = m[1] + ... + m[l]``.
``tau`` is therefore a convex, nondecreasing, piecewise-linear function of ``k`` alone: the upper
envelope of ``n`` lines. :class:`LayerTiming` builds that envelope once (``O(n)``) and evaluates it
for many configurations at ``O(log n)`` each; :func:`iteration_time_recursive` is the recursion
as written, the reference the envelope is tested against.

>>> f, b, m = [0.01, 0.02], [0.02, 0.04], [1e6, 3e6]
>>> float(iteration_time(f, b, m, workers=2, parameter_servers=1, worker_bandwidth=1e9, ps_bandwidth=1e9))
0.094
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["sync_seconds_per_byte", "iteration_time", "iteration_time_recursive", "LayerTiming"]


def _layers(forward_s, backward_s, parameter_bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f, b, m = (np.asarray(v, float).ravel() for v in (forward_s, backward_s, parameter_bytes))
    if not (f.size == b.size == m.size) or f.size == 0:
        raise ValueError(f"forward_s, backward_s and parameter_bytes must have the same positive length "
                         f"(got {f.size}, {b.size}, {m.size})")
    for name, v in (("forward_s", f), ("backward_s", b), ("parameter_bytes", m)):
        if not np.all(np.isfinite(v) & (v >= 0)):
            raise ValueError(f"{name} must be finite and >= 0")
    return f, b, m


def sync_seconds_per_byte(workers, parameter_servers, worker_bandwidth: float, ps_bandwidth: float) -> np.ndarray:
    """Seconds to push and pull one parameter byte: ``k(w, s) = 2 max(1/B_wk, w / (s B_ps))``.

    Broadcasts over arrays of ``workers`` and ``parameter_servers`` (both >= 1).

    >>> sync_seconds_per_byte([1, 4], [2, 2], 1.0, 1.0).tolist()
    [2.0, 4.0]
    """
    if not (worker_bandwidth > 0 and ps_bandwidth > 0 and np.isfinite(worker_bandwidth) and np.isfinite(ps_bandwidth)):
        raise ValueError(f"bandwidths must be finite and > 0 (got {worker_bandwidth}, {ps_bandwidth})")
    w = np.asarray(workers, float)
    s = np.asarray(parameter_servers, float)
    if np.any(w < 1) or np.any(s < 1):
        raise ValueError("workers and parameter_servers must be >= 1")
    return 2.0 * np.maximum(1.0 / worker_bandwidth, w / (s * ps_bandwidth))


def iteration_time_recursive(forward_s: Sequence[float], backward_s: Sequence[float],
                             parameter_bytes: Sequence[float], seconds_per_byte) -> np.ndarray:
    """``tau`` by the wait-free-backprop recursion as written (vectorized over ``seconds_per_byte``).

    ``O(n)`` per value; the reference :class:`LayerTiming` is tested against.

    >>> float(iteration_time_recursive([0.0, 0.0], [1.0, 1.0], [1.0, 1.0], 0.5))
    2.5
    """
    f, b, m = _layers(forward_s, backward_s, parameter_bytes)
    k = np.asarray(seconds_per_byte, float)
    ready = np.cumsum(b[::-1])[::-1]  # G_l = sum_{j >= l} b[j]
    q = np.zeros_like(k)
    for layer in range(f.size - 1, -1, -1):
        q = np.maximum(ready[layer], q) + m[layer] * k
    return f.sum() + q


class LayerTiming:
    """A DNN's iteration time as a function of the per-byte sync time ``k``, via its envelope.

    ``tau(k) = sum_l f[l] + max_l (G_l + k M_l)`` (module docstring). Building costs ``O(n)``
    after the prefix sums; evaluating ``O(log h)`` per value (``h`` = lines on the envelope).

    >>> t = LayerTiming([0.0, 0.0], [1.0, 1.0], [1.0, 1.0])
    >>> t(np.array([0.0, 0.5, 4.0])).tolist()
    [2.0, 2.5, 9.0]
    """

    def __init__(self, forward_s: Sequence[float], backward_s: Sequence[float], parameter_bytes: Sequence[float]):
        f, b, m = _layers(forward_s, backward_s, parameter_bytes)
        self.forward_total = float(f.sum())
        self.backward_total = float(b.sum())
        intercepts = np.cumsum(b[::-1])[::-1]  # G_l, nonincreasing in l
        slopes = np.cumsum(m)                   # M_l, nondecreasing in l
        # upper envelope of the lines (slope ascending): the convex hull trick for a maximum
        hull_a: list[float] = []
        hull_b: list[float] = []
        for a, c in zip(slopes.tolist(), intercepts.tolist()):
            if hull_a and a == hull_a[-1]:
                if c <= hull_b[-1]:
                    continue
                hull_a.pop(), hull_b.pop()
            while len(hull_a) >= 2 and _redundant(hull_a[-2], hull_b[-2], hull_a[-1], hull_b[-1], a, c):
                hull_a.pop(), hull_b.pop()
            hull_a.append(a)
            hull_b.append(c)
        self.slopes = np.array(hull_a)
        self.intercepts = np.array(hull_b)
        # line j is the maximum on [breaks[j-1], breaks[j]]
        self.breaks = (self.intercepts[:-1] - self.intercepts[1:]) / (self.slopes[1:] - self.slopes[:-1])

    def __call__(self, seconds_per_byte) -> np.ndarray:
        """``tau`` at each per-byte sync time (array in, array out)."""
        k = np.asarray(seconds_per_byte, float)
        j = np.searchsorted(self.breaks, k, side="right")
        return self.forward_total + self.intercepts[j] + self.slopes[j] * k

    def iteration_time(self, workers, parameter_servers, worker_bandwidth: float, ps_bandwidth: float) -> np.ndarray:
        """``tau(w, s)`` for arrays of workers and parameter servers."""
        return self(sync_seconds_per_byte(workers, parameter_servers, worker_bandwidth, ps_bandwidth))


def _redundant(a1: float, b1: float, a2: float, b2: float, a3: float, b3: float) -> bool:
    """Whether line 2 is nowhere strictly above both lines 1 and 3 (slopes a1 < a2 < a3)."""
    # line 3 overtakes line 1 no later than line 2 overtakes line 1
    return (b1 - b3) * (a2 - a1) <= (b1 - b2) * (a3 - a1)


def iteration_time(forward_s: Sequence[float], backward_s: Sequence[float], parameter_bytes: Sequence[float],
                   workers, parameter_servers, *, worker_bandwidth: float, ps_bandwidth: float) -> np.ndarray:
    """``tau(w, s)`` in seconds for one DNN, vectorized over ``workers`` and ``parameter_servers``.

    ``forward_s``, ``backward_s``: per-layer times (s per mini-batch on one worker);
    ``parameter_bytes``: per-layer parameter size; bandwidths in bytes/s. ``O(n + q log n)`` for
    ``q`` configurations.
    """
    return LayerTiming(forward_s, backward_s, parameter_bytes).iteration_time(
        workers, parameter_servers, worker_bandwidth, ps_bandwidth)
