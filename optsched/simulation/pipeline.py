"""Exact event simulator of one synchronous pipeline iteration (``docs/pipeline_simulation.md``).

Problem
-------
A planned pipeline has K stages (0-based here), each on its own device (group); M microbatches
go through it. Stage k runs the tasks F(k, m) (``forward[k]`` seconds) and B(k, m)
(``backward[k]`` seconds) for every microbatch m, one task at a time, in a given per-stage
*order*. Precedences [ours]: F(k, m) -> F(k+1, m) and B(k+1, m) -> B(k, m), each after the
transfer delay ``transfer[k]`` of the link between stage k and k + 1, and F(K-1, m) -> B(K-1, m)
without delay. A replicated stage all-reduces its gradients once per iteration, for
``allreduce[k]`` seconds, starting when its last backward ends. The iteration ends when every
backward and every all-reduce is done: that instant is the *makespan*.

Semantics [ours]
-------------------------------------------
* The iteration starts at time 0; every task starts as early as its order and its precedences
  allow (the semi-active schedule of the order). Any feasible schedule with the same order has
  every start at least as late, so the simulated makespan is the least makespan of that order.
* Transfers are pure delays: a link carries any number of transfers at once (no contention): a
  transfer is a precedence with a delay, nothing more. An all-reduce occupies nothing but time.
* In-flight microbatches of stage k at an instant: those whose F(k, m) has started and whose
  B(k, m) has not finished. Because a stage runs its tasks one at a time, the count when F(k, m)
  starts is fixed by the order alone: (forwards up to and including it) - (backwards before it).
  The peak over the order is ``peak_inflight[k]``, what the memory cap bounds.
* ``busy[k] = M (forward[k] + backward[k])`` (compute only); ``idle[k] = makespan - busy[k]``.
* An order whose precedences form a cycle (e.g. B(k, m) before F(k, m) on stage k) defines no
  schedule: :class:`PrecedenceCycleError` (an :class:`InvalidInstanceError`, CLI exit 2).

Lower bound (proof in ``docs/pipeline_simulation.md#lower-bound``)::

    LB = max_k [ sum_{j<k} (F_j + x_j) + M (F_k + B_k) + max(sum_{j<k} (B_j + x_j), AR_k) ]

Complexity: building the dependency arrays is O(K M) numpy work. The ``plain`` engine is a Python
event loop over the 2KM tasks (O(KM), each task touched once, a blocked stage is woken by the task
it waits for). The ``vectorized`` engine advances every stage whose next task is ready in one numpy
step; it takes as many steps as the longest chain of the order counted in tasks (about 2M + 2K for
GPipe, 1F1B and kFkB), so O(M + K) numpy steps of O(K) work. A numpy step costs about as much
as 30 tasks of the plain loop, so ``engine="auto"`` takes the vectorized engine when
K M >= 30 (K + M), i.e. 1/K + 1/M <= 1/30 (measured crossover for 1F1B: vectorized/plain time
0.78 at K = 32, M = 1024; 1.00 at K = 24, M = 1024; 0.91 at K = 48, M = 128; 1.12 at K = 32,
M = 128; above 1.5 for every K at M = 16). Measured by the benchmark ``bench_pipeline_schedule.py``
of ``make bench``.

Example: 4 identical stages (F = 1, B = 2), 8 microbatches, no transfers: GPipe and 1F1B both
take (M + K - 1)(F + B) = 33; 1F1B keeps at most K - k microbatches in flight at stage k, GPipe M.

>>> from types import SimpleNamespace
>>> times = SimpleNamespace(forward=(1.0,) * 4, backward=(2.0,) * 4, transfer=(0.0,) * 3,
...                         allreduce=(0.0,) * 4)
>>> one = simulate(times, 8, "1f1b")
>>> one.makespan, one.peak_inflight.tolist(), lower_bound(times, 8)
(33.0, [4, 3, 2, 1], 33.0)
>>> simulate(times, 8, "gpipe").peak_inflight.tolist()
[8, 8, 8, 8]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from optsched.core.errors import InvalidInstanceError, InvalidOptionError, NotApplicable

__all__ = [
    "FORWARD", "BACKWARD", "SCHEDULES", "PrecedenceCycleError", "SimulationOutcome", "Timing",
    "as_timing", "named_order", "peak_inflight", "order_from_json", "order_to_json",
    "simulate_order", "simulate", "require_cap", "lower_bound",
]

#: the first word of this simulator's errors: the schedule format it validates, named (since before
#: the simulator moved into this layer) after the problem whose checker it is; errors are user-visible
PROBLEM = "pipeline-schedule"
FORWARD, BACKWARD = 0, 1
SCHEDULES = ("gpipe", "1f1b", "kfkb")
#: ``engine="auto"`` vectorizes when stages x microbatches >= this x (stages + microbatches)
VECTORIZE_RATIO = 30


class PrecedenceCycleError(InvalidInstanceError):
    """The per-stage order and the pipeline's precedences form a cycle: no schedule exists."""

    def __init__(self, rule: str):
        super().__init__(PROBLEM, "order", rule)


@dataclass(frozen=True)
class Timing:
    """Per-stage times as float arrays (K, K, K-1, K entries), validated."""

    forward: np.ndarray
    backward: np.ndarray
    transfer: np.ndarray
    allreduce: np.ndarray

    @property
    def stages(self) -> int:
        return int(self.forward.shape[0])


def as_timing(times) -> Timing:
    """Read ``forward``, ``backward``, ``transfer``, ``allreduce`` from any object that has them
    (a :class:`~optsched.pipeline.costs.StageTimes`, a schedule instance, a namespace),
    checking lengths and that every time is finite and >= 0 (the error names the field)."""
    out = {}
    for name in ("forward", "backward", "transfer", "allreduce"):
        try:
            values = getattr(times, name)
        except AttributeError:
            raise InvalidInstanceError(PROBLEM, name, "missing: stage times need forward, backward, "
                                       "transfer and allreduce") from None
        arr = np.asarray(values, dtype=float).reshape(-1)
        bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
        if bad.size:
            raise InvalidInstanceError(PROBLEM, f"{name}[{bad[0]}]", "must be >= 0 and finite", float(arr[bad[0]]))
        out[name] = arr
    stages = out["forward"].shape[0]
    if stages < 1:
        raise InvalidInstanceError(PROBLEM, "forward", "must list at least one stage", 0)
    for name, want in (("backward", stages), ("transfer", stages - 1), ("allreduce", stages)):
        if out[name].shape[0] != want:
            raise InvalidInstanceError(PROBLEM, name, f"must have {want} entries (K = {stages} stages)",
                                       out[name].shape[0])
    return Timing(**out)


def _check_microbatches(microbatches: int) -> None:
    if not isinstance(microbatches, (int, np.integer)) or isinstance(microbatches, bool) or microbatches < 1:
        raise InvalidInstanceError(PROBLEM, "microbatches", "must be an integer >= 1", microbatches)


# -- orders --------------------------------------------------------------------------------------
def named_order(schedule: str, stages: int, microbatches: int, group_size: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The per-stage order of a public schedule as arrays ``(kind, microbatch)``, each (K, 2M).

    * ``gpipe`` [paper: GPipe; code: torchgpipe]: all forwards in microbatch order, then all
      backwards in reverse order (the last forward's backward first).
    * ``kfkb`` with group size g [paper: Ada-Grouper abstract; details ours]: microbatches form
      groups of g consecutive ones (the last may be smaller), G groups; stage k runs
      w = min(K - 1 - k, G) groups of forwards, then alternates the forwards of the next group
      with the backwards of the oldest unfinished group, then drains the remaining backwards.
      Peak in flight at stage k: min(M, g (K - k)) (with a smaller last group, possibly less).
    * ``1f1b`` [code: PipeDream-Flush / Megatron-LM] = ``kfkb`` with g = 1: warm-up of
      K - 1 - k forwards (K - k with 1-based stages), then one forward and
      one backward alternately, then the drain. Peak in flight: min(M, K - k).

    >>> kind, mb = named_order("1f1b", 2, 3)
    >>> [("FB"[t] + str(m)) for t, m in zip(kind[0], mb[0])]
    ['F0', 'F1', 'B0', 'F2', 'B1', 'B2']
    >>> kind, mb = named_order("kfkb", 2, 4, group_size=2)
    >>> [("FB"[t] + str(m)) for t, m in zip(kind[0], mb[0])]
    ['F0', 'F1', 'F2', 'F3', 'B0', 'B1', 'B2', 'B3']
    """
    _check_microbatches(microbatches)
    M = int(microbatches)
    if schedule == "gpipe":
        kind = np.repeat(np.array([FORWARD, BACKWARD], dtype=np.int8), M)
        mb = np.concatenate([np.arange(M), np.arange(M)[::-1]])
        return np.tile(kind, (stages, 1)), np.tile(mb, (stages, 1))
    if schedule == "1f1b":
        group_size = 1
    elif schedule != "kfkb":
        raise InvalidOptionError(PROBLEM, "schedule", "must be one of " + ", ".join(SCHEDULES), schedule)
    if isinstance(group_size, bool) or not isinstance(group_size, (int, np.integer)) or group_size < 1:
        raise InvalidOptionError(PROBLEM, "group_size", "must be an integer >= 1", group_size)
    g = int(group_size)
    groups = -(-M // g)
    first = np.arange(groups) * g
    size = np.minimum(first + g, M) - first
    kinds = np.empty((stages, 2 * M), dtype=np.int8)
    mbs = np.empty((stages, 2 * M), dtype=np.int64)
    for k in range(stages):
        w = min(stages - 1 - k, groups)
        op_kind = np.empty(2 * groups, dtype=np.int8)
        op_group = np.empty(2 * groups, dtype=np.int64)
        op_kind[:w], op_group[:w] = FORWARD, np.arange(w)
        steady = groups - w
        op_kind[w:w + 2 * steady:2], op_group[w:w + 2 * steady:2] = FORWARD, np.arange(w, groups)
        op_kind[w + 1:w + 2 * steady:2], op_group[w + 1:w + 2 * steady:2] = BACKWARD, np.arange(steady)
        op_kind[w + 2 * steady:], op_group[w + 2 * steady:] = BACKWARD, np.arange(steady, groups)
        reps = size[op_group]
        offsets = np.arange(2 * M) - np.repeat(np.cumsum(reps) - reps, reps)
        kinds[k] = np.repeat(op_kind, reps)
        mbs[k] = np.repeat(first[op_group], reps) + offsets
    return kinds, mbs


def peak_inflight(kind: np.ndarray) -> np.ndarray:
    """Peak number of in-flight microbatches per stage of an order (see the module semantics)."""
    steps = np.where(np.asarray(kind) == FORWARD, 1, -1)
    return np.cumsum(steps, axis=1).max(axis=1, initial=0)


def order_to_json(kind: np.ndarray, microbatch: np.ndarray) -> list:
    """``[[["F", m], ["B", m], ...] per stage]``: the solution schema of a schedule."""
    return [[["FB"[int(t)], int(m)] for t, m in zip(row_k, row_m)] for row_k, row_m in zip(kind, microbatch)]


def order_from_json(order, stages: int, microbatches: int, field: str = "order") -> tuple[np.ndarray, np.ndarray]:
    """Parse and validate ``[[["F"|"B", m], ...] per stage]``: every stage lists each of its 2M
    tasks exactly once (errors name ``order[k][i]``)."""
    M = microbatches
    if not isinstance(order, (list, tuple)) or len(order) != stages:
        raise InvalidInstanceError(PROBLEM, field, f"must list one order per stage ({stages})",
                                   len(order) if isinstance(order, (list, tuple)) else order)
    kind = np.empty((stages, 2 * M), dtype=np.int8)
    mb = np.empty((stages, 2 * M), dtype=np.int64)
    for k, row in enumerate(order):
        if not isinstance(row, (list, tuple)) or len(row) != 2 * M:
            raise InvalidInstanceError(PROBLEM, f"{field}[{k}]", f"must list the 2M = {2 * M} tasks of stage {k}",
                                       len(row) if isinstance(row, (list, tuple)) else row)
        seen = set()
        for i, task in enumerate(row):
            ok = (isinstance(task, (list, tuple)) and len(task) == 2 and task[0] in ("F", "B")
                  and isinstance(task[1], int) and not isinstance(task[1], bool) and 0 <= task[1] < M)
            if not ok:
                raise InvalidInstanceError(PROBLEM, f"{field}[{k}][{i}]",
                                           f'must be ["F" or "B", microbatch in 0..{M - 1}]', task)
            key = (task[0], task[1])
            if key in seen:
                raise InvalidInstanceError(PROBLEM, f"{field}[{k}][{i}]", "task listed twice on this stage", task)
            seen.add(key)
            kind[k, i] = FORWARD if task[0] == "F" else BACKWARD
            mb[k, i] = task[1]
    return kind, mb


# -- simulation ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SimulationOutcome:
    """What one simulated iteration gives.

    ``task_start[k, t, m]`` is the start of task t (0 = F, 1 = B) of microbatch m on stage k;
    ``stage_end[k]`` the end of stage k's last backward, ``allreduce_end[k]`` that plus its
    all-reduce. ``busy``, ``idle``, ``peak_inflight`` per stage; ``lower_bound`` is LB.
    """

    makespan: float
    busy: np.ndarray
    idle: np.ndarray
    peak_inflight: np.ndarray
    stage_end: np.ndarray
    allreduce_end: np.ndarray
    task_start: np.ndarray
    lower_bound: float

    def to_dict(self) -> dict:
        """JSON-able summary (without the per-task start times)."""
        return {"makespan": self.makespan, "lower_bound": self.lower_bound, "busy": self.busy.tolist(),
                "idle": self.idle.tolist(), "peak_inflight": self.peak_inflight.tolist(),
                "stage_end": self.stage_end.tolist(), "allreduce_end": self.allreduce_end.tolist()}


def _dependencies(timing: Timing, kind: np.ndarray, mb: np.ndarray):
    """Duration, and the (stage, position, delay) of the one task each task waits for besides
    its stage predecessor; position ``n = 2M`` means none (F on stage 0)."""
    K, n = kind.shape
    M = n // 2
    rows = np.repeat(np.arange(K), n)
    pos = np.empty((K, 2, M), dtype=np.int64)
    pos[rows, kind.ravel(), mb.ravel()] = np.tile(np.arange(n), K)
    is_f = kind == FORWARD
    stage = np.arange(K)[:, None]
    dur = np.where(is_f, timing.forward[:, None], timing.backward[:, None])
    dep_stage = np.where(is_f, np.maximum(stage - 1, 0), np.minimum(stage + 1, K - 1))
    dep_kind = np.where(is_f | (stage == K - 1), FORWARD, BACKWARD)
    dep_pos = pos[dep_stage, dep_kind, mb]
    dep_pos[0, is_f[0]] = n
    delay = np.where(is_f, np.concatenate([[0.0], timing.transfer])[:, None],
                     np.append(timing.transfer, 0.0)[:, None])
    return dur, dep_stage, dep_pos, delay


def _cycle_message(kind, mb, ptr, dep_stage, dep_pos) -> str:
    """Describe the wait-for cycle among blocked stages."""
    K, n = kind.shape
    name = lambda k, i: f"{'FB'[int(kind[k, i])]}({k},{int(mb[k, i])})"  # noqa: E731
    k, seen, steps = int(np.flatnonzero(ptr < n)[0]), [], []
    while k not in seen:
        seen.append(k)
        i = int(ptr[k])
        ds, dp = int(dep_stage[k, i]), int(dep_pos[k, i])
        steps.append(f"stage {k} cannot start {name(k, i)} before {name(ds, dp)}, which stage {ds} "
                     f"runs after {name(ds, int(ptr[ds]))}")
        k = ds
    cycle = steps[seen.index(k):]
    return "precedence cycle: " + "; ".join(cycle)


def _run_plain(dur, dep_stage, dep_pos, delay):
    """Python event loop: run each stage until its next task waits for an unfinished one; the
    task it waits for wakes it. Returns (end times (K, n+1), pointer per stage)."""
    K, n = dur.shape
    dur_l, ds_l, dp_l, dl_l = dur.tolist(), dep_stage.tolist(), dep_pos.tolist(), delay.tolist()
    end = [[0.0] * (n + 1) for _ in range(K)]
    ptr = [0] * K
    free = [0.0] * K
    waiting: dict[tuple[int, int], int] = {}
    ready = list(range(K - 1, -1, -1))
    while ready:
        k = ready.pop()
        i, t = ptr[k], free[k]
        end_k, dur_k, ds_k, dp_k, dl_k = end[k], dur_l[k], ds_l[k], dp_l[k], dl_l[k]
        while i < n:
            ds, dp = ds_k[i], dp_k[i]
            if dp != n and dp >= ptr[ds]:
                waiting[ds, dp] = k
                break
            s = end[ds][dp] + dl_k[i]
            t = (s if s > t else t) + dur_k[i]
            end_k[i] = t
            i += 1
            ptr[k] = i
            woken = waiting.pop((k, i - 1), None)
            if woken is not None:
                ready.append(woken)
        free[k] = t
    return np.array(end), np.array(ptr)


def _run_vectorized(dur, dep_stage, dep_pos, delay):
    """Advance every stage whose next task is ready by one task per numpy step."""
    K, n = dur.shape
    end = np.zeros((K, n + 1))
    ptr = np.zeros(K, dtype=np.int64)
    free = np.zeros(K)
    rows = np.arange(K)
    remaining = K * n
    flat_ds, flat_dp, flat_dl, flat_dur = dep_stage.ravel(), dep_pos.ravel(), delay.ravel(), dur.ravel()
    while remaining:
        active = rows[ptr < n]
        idx = active * n + ptr[active]
        ds, dp = flat_ds[idx], flat_dp[idx]
        ok = (dp < ptr[ds]) | (dp == n)
        if not ok.any():
            break
        k, idx, ds, dp = active[ok], idx[ok], ds[ok], dp[ok]
        t = np.maximum(free[k], end[ds, dp] + flat_dl[idx]) + flat_dur[idx]
        end[k, ptr[k]] = t
        free[k] = t
        ptr[k] += 1
        remaining -= k.size
    return end, ptr


def simulate_order(times, microbatches: int, kind: np.ndarray, microbatch: np.ndarray, *,
                   engine: Literal["auto", "plain", "vectorized"] = "auto") -> SimulationOutcome:
    """Simulate an explicit per-stage order (arrays from :func:`named_order` or
    :func:`order_from_json`; each stage must list each of its 2M tasks once).

    Raises :class:`PrecedenceCycleError` when the order deadlocks. Does not enforce a memory cap:
    compare ``peak_inflight`` with it (as the checker does).

    >>> from types import SimpleNamespace
    >>> times = SimpleNamespace(forward=(1.0, 1.0), backward=(1.0, 1.0), transfer=(0.5,), allreduce=(0.0, 3.0))
    >>> kind, mb = order_from_json([[["F", 0], ["B", 0]], [["F", 0], ["B", 0]]], 2, 1)
    >>> simulate_order(times, 1, kind, mb).makespan   # 1 + 0.5 + 1 + 1 + max(0.5 + 1, 3)
    6.5
    >>> kind, mb = order_from_json([[["F", 0], ["B", 0]], [["B", 0], ["F", 0]]], 2, 1)
    >>> simulate_order(times, 1, kind, mb)
    Traceback (most recent call last):
    ...
    optsched.simulation.pipeline.PrecedenceCycleError: pipeline-schedule: field 'order': precedence cycle: stage 1 cannot start B(1,0) before F(1,0), which stage 1 runs after B(1,0)
    """
    timing = as_timing(times)
    _check_microbatches(microbatches)
    kind, microbatch = np.asarray(kind), np.asarray(microbatch)
    K, M = timing.stages, int(microbatches)
    if kind.shape != (K, 2 * M) or microbatch.shape != (K, 2 * M):
        raise InvalidInstanceError(PROBLEM, "order", f"must have shape (K, 2M) = ({K}, {2 * M})", kind.shape)
    dur, dep_stage, dep_pos, delay = _dependencies(timing, kind, microbatch)
    if engine == "auto":
        engine = "vectorized" if K * M >= VECTORIZE_RATIO * (K + M) else "plain"
    if engine == "plain":
        end, ptr = _run_plain(dur, dep_stage, dep_pos, delay)
    elif engine == "vectorized":
        end, ptr = _run_vectorized(dur, dep_stage, dep_pos, delay)
    else:
        raise InvalidOptionError(PROBLEM, "engine", "must be auto, plain or vectorized", engine)
    if np.any(ptr < 2 * M):
        raise PrecedenceCycleError(_cycle_message(kind, microbatch, ptr, dep_stage, dep_pos))
    end = end[:, :2 * M]
    start = end - dur
    task_start = np.empty((K, 2, M))
    task_start[np.repeat(np.arange(K), 2 * M), kind.ravel(), microbatch.ravel()] = start.ravel()
    stage_end = end[:, -1]
    allreduce_end = stage_end + timing.allreduce
    makespan = float(allreduce_end.max())
    busy = M * (timing.forward + timing.backward)
    return SimulationOutcome(makespan=makespan, busy=busy, idle=makespan - busy,
                             peak_inflight=peak_inflight(kind), stage_end=stage_end,
                             allreduce_end=allreduce_end, task_start=task_start,
                             lower_bound=lower_bound(timing, M))


def simulate(stage_times, microbatches: int, schedule: str = "1f1b", group_size: int = 1,
             inflight_cap: tuple[int, ...] | None = None, *,
             engine: Literal["auto", "plain", "vectorized"] = "auto") -> SimulationOutcome:
    """Simulate a public schedule (``gpipe``, ``1f1b``, ``kfkb`` with ``group_size``).

    With ``inflight_cap`` (one integer >= 1 per stage), a schedule that would keep more
    microbatches in flight at some stage raises :class:`~optsched.core.errors.NotApplicable` with
    the stage, its need and its cap (the schedule does not fit in memory).
    """
    timing = as_timing(stage_times)
    kind, mb = named_order(schedule, timing.stages, microbatches, group_size)
    if inflight_cap is not None:
        require_cap(kind, inflight_cap, schedule if schedule != "kfkb" else f"kfkb (group size {group_size})")
    return simulate_order(timing, microbatches, kind, mb, engine=engine)


def require_cap(kind: np.ndarray, inflight_cap, label: str) -> None:
    """Raise :class:`~optsched.core.errors.NotApplicable` if the order ``kind`` keeps more
    microbatches in flight at some stage than ``inflight_cap`` allows (naming the stage): the
    published schedule does not fit, which says nothing about the instance (exit 2, not 3)."""
    K = kind.shape[0]
    cap = np.asarray(inflight_cap)
    if cap.shape != (K,) or np.any(cap < 1):
        raise InvalidInstanceError(PROBLEM, "inflight_cap", f"must be {K} integers >= 1", list(inflight_cap))
    need = peak_inflight(kind)
    over = np.flatnonzero(need > cap)
    if over.size:
        k = int(over[0])
        raise NotApplicable(PROBLEM, label, f"it keeps {int(need[k])} microbatches in flight at stage {k}, "
                            f"above its cap of {int(cap[k])} (the schedule as published does not fit; list "
                            f"and milp respect the cap)")


def lower_bound(stage_times, microbatches: int) -> float:
    """LB = max_k [sum_{j<k}(F_j + x_j) + M(F_k + B_k) + max(sum_{j<k}(B_j + x_j), AR_k)].

    Valid for every order and every cap (proof: ``docs/pipeline_simulation.md#lower-bound``).
    """
    t = stage_times if isinstance(stage_times, Timing) else as_timing(stage_times)
    x = np.concatenate([[0.0], t.transfer])
    head = np.cumsum(np.concatenate([[0.0], t.forward[:-1]]) + x)
    tail = np.cumsum(np.concatenate([[0.0], t.backward[:-1]]) + x)
    return float(np.max(head + microbatches * (t.forward + t.backward) + np.maximum(tail, t.allreduce)))
