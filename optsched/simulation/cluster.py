"""Discrete-event simulator of a GPU cluster, shared by the online scheduling problems.

Problem
-------
A cluster of servers, server ``s`` holding ``gpus_per_server[s]`` GPUs, receives jobs over
time.  Job ``j`` arrives at time ``arrival_j``, needs ``work_j`` units of work (iterations,
samples, ... -- the unit is the policy's choice) and asks for ``gpus_j`` GPUs.  A *policy*
decides, whenever something happens, which waiting jobs start, on how many GPUs of which
servers and at which rate (work units per second), which running jobs are preempted and which
change rate.  The :class:`Simulator` executes these decisions in continuous time and reports the
outcome (:class:`SimulationResult`): completion times, flow times, makespan, GPU-seconds and
preemptions.

The three online problems of optsched -- PS-worker placement with rolling-horizon rounding,
ring-all-reduce online scheduling (GADGET) and A-SRPT with preemption -- are policies on this one
engine.  The engine knows nothing of parameter servers, rings or predictions: the rate that a
placement achieves is computed by the policy (from the job's ``payload`` and the cluster's
bandwidths, for instance).

This module is the event loop (:class:`Simulator`); the validated model (cluster, jobs,
:class:`JobTable`, allocations, log events) is :mod:`.jobs`, the policy hooks and
:class:`FifoPolicy` :mod:`.policies`, the result and its metrics :mod:`.results`. Every name is
importable from here as before.

Semantics
---------
* A job is *pending* before its arrival, then *waiting*, *running*, possibly *waiting* again
  after a preemption, and finally *done*.
* A running job holds an :class:`Allocation`: a number of GPUs on each of one or more servers
  and a rate ``> 0``.  Its remaining work decreases linearly at that rate; when it reaches zero
  the job completes, its GPUs are freed and the policy's ``on_completion`` is called.  The
  allocation need not match the demand ``SimJob.gpus``: the demand is information for the
  policy, the engine only checks that the GPUs are free.
* ``Simulator.start(job_id, gpus, rate)`` starts a waiting job; every server named in ``gpus``
  must have that many free GPUs, otherwise :class:`SimulationError` is raised and nothing
  changes.  ``Simulator.preempt(job_id)`` stops a running job: its GPUs are freed, its progress
  is kept and it waits again, in its arrival position.  ``Simulator.set_rate(job_id, rate)``
  changes the rate of a running job; the progress made up to now is accounted at the old rate.
* Restart overhead: a start that follows a preemption makes no progress during its first
  ``restart_overhead`` seconds although it holds its GPUs (they count in the GPU-seconds).
  The first start of a job has no overhead.  A rate change during the overhead takes effect
  when the overhead ends.
* Ticks: with ``tick = d`` the policy's ``on_tick`` is called at every instant ``k * d``
  (``k = 1, 2, ...``, computed by multiplication, so without drift) while some job is not done.
  Slotted policies make their decisions there.
* Order of events: events are processed one at a time in increasing order of the key
  ``(time, kind, job id)``, where the kinds at one instant come as *completion*, then *arrival*,
  then *tick*; so at an instant all completions come first (by job id), then all arrivals (by
  job id), then the tick; an event created while an instant is processed (a completion due at
  once) takes its place in the same order.  Each event calls the policy once; the actions it
  takes (start, preempt, rate) are logged right after the event that triggered them.  Every
  log entry carries a sequence number, its index in the log.
* End of the run: when every job is done; when the next event would come after ``max_time``
  (the clock is then set to ``max_time``); or when nothing can happen any more -- no job runs,
  no arrival is pending and, with ticks, the policy took no action at the tick that followed.
  Jobs not done then are reported in ``SimulationResult.unfinished`` instead of looping
  forever.  Only ``max_time`` stops a policy that keeps starting and preempting jobs without
  letting them progress.
* Determinism: the engine has no randomness and every tie is broken by job id, so a
  deterministic policy gives the same log on every run.

Complexity
----------
With ``n`` jobs, ``S`` servers, ``A`` policy actions (starts, preemptions, rate changes) and
``T`` ticks, the engine sorts the arrivals once (``O(n log n)``) and spends ``O(log(n + A))``
per event and per action (one push or pop on a binary heap of completion instants; a changed
or preempted job leaves its old entry in the heap, marked stale by a per-job version counter
and discarded when it reaches the top).  No event scans all jobs.  The queries cost
``O(1)`` (``now``, ``total_free_gpus``, ``remaining_work``, ``first_waiting``), ``O(S)``
(``free_gpus``) and ``O(w)`` or ``O(r)`` for ``w`` waiting and ``r`` running jobs
(``waiting``, ``running``).  A preempted job that waits again behind later arrivals is put back
in place by the next waiting-queue query, which re-sorts the queue (``O(w)`` when few jobs
are out of place: Timsort on a nearly sorted queue).  Memory is ``O(n + A)``, plus the log
when it is recorded (``record_log=False`` builds no :class:`Event` at all): per job about 130
bytes of typed columns (no Python object per job; a :class:`SimJob` exists only while the job is
arrived and not done, unless the caller passed its own list of them), so 10^6 jobs given as a
:class:`JobTable` cost about 130 MB in the engine (measured with ``tracemalloc``).
:class:`FifoPolicy` adds, per start, ``O(S * g)`` for a job that fits on one server (``g`` the
largest number of free GPUs of a server; the scans are C-level) and ``O(S log S)`` otherwise.
Measured: 10^5 jobs on 64 servers x 8 GPUs with FIFO and no log take about a second in
CPython (``benchmarks/test_bench_simulation.py``).

Example
-------
Two servers with two GPUs each.  Job 1 (2 GPUs, 4 units of work) starts at once; job 2 asks
for 3 GPUs, so it waits for job 1 to finish, then gets both GPUs of server 0 and one of
server 1.

>>> cluster = Cluster(gpus_per_server=(2, 2), intra_bandwidth=1e11, inter_bandwidth=1e10)
>>> jobs = [SimJob(id=1, arrival=0.0, work=4.0, gpus=2),
...         SimJob(id=2, arrival=1.0, work=2.0, gpus=3)]
>>> result = Simulator(cluster, jobs, FifoPolicy()).run()
>>> result.completion
{1: 4.0, 2: 6.0}
>>> result.total_flow_time, result.makespan
(9.0, 6.0)
>>> for event in result.log:
...     print(event.seq, event.time, event.kind, event.job_id, event.detail)
0 0.0 arrival 1 None
1 0.0 start 1 {'gpus': {0: 2}, 'rate': 1.0}
2 1.0 arrival 2 None
3 4.0 complete 1 None
4 4.0 start 2 {'gpus': {0: 2, 1: 1}, 'rate': 1.0}
5 6.0 complete 2 None
"""

from __future__ import annotations

import math
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from heapq import heappop, heappush

from optsched.core.errors import InvalidInstanceError, InvalidOptionError

from .jobs import (_PROBLEM, Allocation, Cluster, Event, JobTable, SimJob, SimulationError, _is_int, _is_real,
                   _nonnegative_finite, _positive_finite, _trusted_job)
from .policies import FifoPolicy, Policy, RateModel  # noqa: F401  (RateModel: importable from here as before)
from .results import SimulationResult, _ArrayMap

__all__ = [
    "Cluster",
    "JobTable",
    "SimJob",
    "Allocation",
    "Event",
    "Policy",
    "FifoPolicy",
    "Simulator",
    "SimulationResult",
    "SimulationError",
]

_PENDING = "pending"
_WAITING = "waiting"
_RUNNING = "running"
_DONE = "done"

_STATUS = (_PENDING, _WAITING, _RUNNING, _DONE)
_S_PENDING, _S_WAITING, _S_RUNNING, _S_DONE = 0, 1, 2, 3


class Simulator:
    """Discrete-event engine: runs ``policy`` on ``jobs`` over ``cluster`` (see the module doc).

    ``jobs`` is an iterable of :class:`SimJob` or a :class:`JobTable` (columns; no object per
    job).  ``tick`` (seconds, > 0) enables the periodic ``on_tick`` hook; ``restart_overhead``
    (seconds, >= 0) is the progress-free time after each restart; the run stops at
    ``max_time`` at the latest; ``record_log=False`` skips the log to save time and memory.
    A simulator runs once.  The policy may be any object with the :class:`Policy` hooks; a
    missing hook counts as a no-op.

    Per-job state lives in typed columns indexed by arrival rank (``array.array``: 8 bytes per
    value), not in one object per job; a :class:`SimJob` exists only for the jobs that have
    arrived and are not done (the ones the policy sees), or the caller's own objects when it
    passed a list of them.
    """

    def __init__(
        self,
        cluster: Cluster,
        jobs: Iterable[SimJob] | JobTable,
        policy: Policy,
        tick: float | None = None,
        restart_overhead: float = 0.0,
        max_time: float = math.inf,
        record_log: bool = True,
    ):
        """Validate the run parameters (an InvalidOptionError naming a bad one) and set every job pending."""
        import numpy as np

        if not isinstance(cluster, Cluster):
            raise InvalidOptionError(_PROBLEM, "cluster", "must be a Cluster", got=cluster)
        if tick is not None:
            tick = _positive_finite(tick, "tick", InvalidOptionError)
        restart_overhead = _nonnegative_finite(restart_overhead, "restart_overhead", InvalidOptionError)
        if not _is_real(max_time) or not float(max_time) >= 0.0:
            raise InvalidOptionError(
                _PROBLEM, "max_time", "must be a number >= 0 (inf allowed)", got=max_time
            )
        objects: list[SimJob] | None = None
        if isinstance(jobs, JobTable):
            table = jobs
        else:
            objects = list(jobs)
            table = JobTable.from_jobs(objects)
        n = len(table)
        ids = table.ids
        order = np.lexsort((ids, table.arrival)) if n else np.zeros(0, np.int64)
        sorted_ids = ids[order]
        if n > 1:
            unique, first = np.unique(ids, return_index=True)
            if len(unique) < n:
                seen = np.zeros(n, bool)
                seen[first] = True
                index = int(np.flatnonzero(~seen)[0])
                raise InvalidInstanceError(
                    _PROBLEM, f"jobs[{index}].id", "job ids must be unique", got=int(ids[index])
                )
        self.cluster = cluster
        self._policy = policy
        self._tick = tick
        self._restart_overhead = restart_overhead
        self._max_time = float(max_time)
        self._log: list[Event] | None = [] if record_log else None
        self._n = n
        # columns by arrival rank
        self._table = table
        self._objects = objects
        self._input_index = array("q", order.tolist())
        self._ids = array("q", sorted_ids.tolist())
        self._arrival = array("d", table.arrival[order].tolist())
        self._work = array("d", table.work[order].tolist())
        self._gpus_demand = array("q", table.gpus[order].tolist())
        self._status = bytearray(n)
        self._remaining = array("d", self._work)
        self._progress_from = array("d", bytes(8 * n))
        self._rate = array("d", bytes(8 * n))
        self._held_since = array("d", bytes(8 * n))
        self._gpu_seconds = array("d", bytes(8 * n))
        self._version = array("q", bytes(8 * n))
        self._preemptions = array("q", bytes(8 * n))
        nan = array("d", [math.nan])
        self._first_start = nan * n
        self._completion = nan * n
        if n and int(ids.min()) >= 0 and int(ids.max()) < 2 * n + 16:
            rank_of = np.full(int(ids.max()) + 1, -1, np.int64)
            rank_of[sorted_ids] = np.arange(n)
            self._rank_of = array("q", rank_of.tolist())
            self._rank_dict = None
        else:
            self._rank_of = None
            self._rank_dict = {job_id: rank for rank, job_id in enumerate(self._ids)}
        self._live: dict[int, SimJob] = {}
        self._free = list(cluster.gpus_per_server)
        self._total_free = cluster.total_gpus
        self._waiting: OrderedDict[int, SimJob] = OrderedDict()
        self._waiting_in_order = True
        # running job id -> [rank, {server: count}, number of GPUs]
        self._running: dict[int, list] = {}
        self._completions: list[tuple[float, int, int, int]] = []
        self._num_done = 0
        self._num_actions = 0
        self._now = 0.0
        self._phase = "ready"

    # ----------------------------------------------------------------- queries

    @property
    def now(self) -> float:
        """Current simulated time (seconds)."""
        return self._now

    def job(self, job_id: int) -> SimJob:
        """The job with id ``job_id``."""
        rank = self._rank(job_id)
        live = self._live.get(job_id)
        return live if live is not None else self._make_job(rank)

    def status(self, job_id: int) -> str:
        """``"pending"`` (not arrived), ``"waiting"``, ``"running"`` or ``"done"``."""
        return _STATUS[self._status[self._rank(job_id)]]

    def free_gpus(self) -> tuple[int, ...]:
        """Free GPUs on each server, in server order."""
        return tuple(self._free)

    def total_free_gpus(self) -> int:
        """Free GPUs in the whole cluster."""
        return self._total_free

    def waiting(self) -> tuple[SimJob, ...]:
        """Jobs arrived, not running and not done, in arrival order (a snapshot)."""
        if not self._waiting_in_order:
            self._restore_waiting_order()
        return tuple(self._waiting.values())

    def first_waiting(self) -> SimJob | None:
        """The oldest waiting job (by arrival, then id), or ``None``; O(1) amortised."""
        if not self._waiting:
            return None
        if not self._waiting_in_order:
            self._restore_waiting_order()
        return next(iter(self._waiting.values()))

    def running(self) -> tuple[SimJob, ...]:
        """Running jobs, in the order they were (last) started (a snapshot)."""
        live = self._live
        return tuple(live[job_id] for job_id in self._running)

    def allocation(self, job_id: int) -> Allocation:
        """Allocation of a running job (a copy)."""
        rank = self._rank(job_id)
        if self._status[rank] != _S_RUNNING:
            raise SimulationError(f"job {job_id} has no allocation: it is {_STATUS[self._status[rank]]}")
        return Allocation(gpus=dict(self._running[job_id][1]), rate=self._rate[rank])

    def remaining_work(self, job_id: int) -> float:
        """Work left to do on ``job_id``, exact at :attr:`now`."""
        return self._remaining_at(self._rank(job_id), self._now)

    def attained_service(self, job_id: int) -> float:
        """Work done on ``job_id`` so far."""
        rank = self._rank(job_id)
        return self._work[rank] - self._remaining_at(rank, self._now)

    def gpu_seconds(self, job_id: int) -> float:
        """GPU-seconds held by ``job_id`` so far (restart overheads included)."""
        return self._held(self._rank(job_id))

    # ----------------------------------------------------------------- actions

    def start(self, job_id: int, gpus: Mapping[int, int], rate: float = 1.0) -> None:
        """Start waiting job ``job_id`` on ``gpus`` (server -> GPU count) at ``rate`` work/s.

        Raises :class:`SimulationError`, changing nothing, if the job is not waiting, a server
        index or count is invalid, a server has too few free GPUs or the rate is not > 0.
        """
        rank = self._active_rank(job_id, "start")
        if self._status[rank] != _S_WAITING:
            raise SimulationError(f"cannot start job {job_id}: it is {_STATUS[self._status[rank]]}")
        rate = self._checked_rate(job_id, rate)
        free = self._free
        placement: dict[int, int] = {}
        for server, count in gpus.items():
            if not _is_int(server) or not 0 <= server < len(free):
                raise SimulationError(
                    f"cannot start job {job_id}: no server {server!r} "
                    f"(servers are 0..{len(free) - 1})"
                )
            if not _is_int(count) or count < 1:
                raise SimulationError(
                    f"cannot start job {job_id}: GPU count {count!r} on server {server} "
                    "must be an integer >= 1"
                )
            if count > free[server]:
                raise SimulationError(
                    f"cannot start job {job_id}: server {server} has {free[server]} free "
                    f"GPUs, the allocation asks for {count}"
                )
            placement[int(server)] = int(count)
        if not placement:
            raise SimulationError(f"cannot start job {job_id}: the allocation has no GPU")

        now = self._now
        num_gpus = 0
        for server, count in placement.items():
            free[server] -= count
            num_gpus += count
        self._total_free -= num_gpus
        del self._waiting[job_id]
        self._status[rank] = _S_RUNNING
        self._rate[rank] = rate
        self._held_since[rank] = now
        self._progress_from[rank] = now + self._restart_overhead if self._preemptions[rank] else now
        if self._first_start[rank] != self._first_start[rank]:
            self._first_start[rank] = now
        self._running[job_id] = [rank, placement, num_gpus]
        self._num_actions += 1
        self._schedule_completion(job_id, rank)
        if self._log is not None:
            self._record(now, "start", job_id, {"gpus": dict(placement), "rate": rate})

    def preempt(self, job_id: int) -> None:
        """Stop running job ``job_id``: free its GPUs, keep its progress, make it wait again."""
        rank = self._active_rank(job_id, "preempt")
        if self._status[rank] != _S_RUNNING:
            raise SimulationError(f"cannot preempt job {job_id}: it is {_STATUS[self._status[rank]]}")
        now = self._now
        self._remaining[rank] = self._remaining_at(rank, now)
        self._release(job_id, rank, now)
        self._status[rank] = _S_WAITING
        self._preemptions[rank] += 1
        self._num_actions += 1
        waiting = self._waiting
        if waiting and self._rank(next(reversed(waiting))) > rank:
            self._waiting_in_order = False
        waiting[job_id] = self._live[job_id]
        if self._log is not None:
            self._record(now, "preempt", job_id, {"remaining": self._remaining[rank]})

    def set_rate(self, job_id: int, rate: float) -> None:
        """Change the rate of running job ``job_id`` from now on (progress so far is kept)."""
        rank = self._active_rank(job_id, "set_rate")
        if self._status[rank] != _S_RUNNING:
            raise SimulationError(f"cannot set the rate of job {job_id}: it is {_STATUS[self._status[rank]]}")
        rate = self._checked_rate(job_id, rate)
        now = self._now
        self._remaining[rank] = self._remaining_at(rank, now)
        self._progress_from[rank] = max(self._progress_from[rank], now)
        self._rate[rank] = rate
        self._num_actions += 1
        self._schedule_completion(job_id, rank)
        if self._log is not None:
            self._record(now, "rate", job_id, {"rate": rate})

    # ----------------------------------------------------------------- engine

    def run(self) -> SimulationResult:
        """Process all events (see the module docstring for the order) and return the result."""
        if self._phase != "ready":
            raise SimulationError("a Simulator runs only once; build a new one")
        self._phase = "running"
        policy = self._policy
        on_arrival = getattr(policy, "on_arrival", None)
        on_completion = getattr(policy, "on_completion", None)
        on_tick = getattr(policy, "on_tick", None)
        heap = self._completions
        version = self._version
        arrivals = self._arrival
        ids = self._ids
        status = self._status
        live = self._live
        num_jobs = self._n
        next_arrival = 0
        tick = self._tick
        tick_index = 1
        max_time = self._max_time
        inf = math.inf

        while self._num_done < num_jobs:
            while heap and heap[0][2] != version[heap[0][3]]:
                heappop(heap)
            time_completion = heap[0][0] if heap else inf
            time_arrival = arrivals[next_arrival] if next_arrival < num_jobs else inf
            time_tick = tick_index * tick if tick is not None else inf
            now = min(time_completion, time_arrival, time_tick)
            if now == inf:
                break
            if now > max_time:
                self._now = max_time
                break
            self._now = now

            if time_completion == now:
                _, job_id, _, rank = heappop(heap)
                job = self._complete(job_id, rank, now)
                if on_completion is not None:
                    on_completion(self, job, now)
            elif time_arrival == now:
                rank = next_arrival
                next_arrival += 1
                job = self._make_job(rank)
                job_id = ids[rank]
                status[rank] = _S_WAITING
                live[job_id] = job
                self._waiting[job_id] = job
                if self._log is not None:
                    self._record(now, "arrival", job_id, None)
                if on_arrival is not None:
                    on_arrival(self, job, now)
            else:
                tick_index += 1
                actions_before = self._num_actions
                if self._log is not None:
                    self._record(now, "tick", None, None)
                if on_tick is not None:
                    on_tick(self, now)
                idle = not self._running and next_arrival == num_jobs
                if idle and self._num_actions == actions_before:
                    break

        self._phase = "done"
        return self._result()

    # ----------------------------------------------------------------- internals

    def _rank(self, job_id: int) -> int:
        """Arrival rank of ``job_id``; SimulationError for an unknown id."""
        rank_of = self._rank_of
        if rank_of is not None:
            if type(job_id) is int or _is_int(job_id):
                if 0 <= job_id < len(rank_of):
                    rank = rank_of[job_id]
                    if rank >= 0:
                        return rank
        else:
            try:
                return self._rank_dict[job_id]
            except (KeyError, TypeError):
                pass
        raise SimulationError(f"unknown job id {job_id!r}")

    def _rank_or_none(self, job_id) -> int | None:
        try:
            return self._rank(job_id)
        except SimulationError:
            return None

    def _make_job(self, rank: int) -> SimJob:
        """The SimJob of the job of arrival rank ``rank`` (the caller's object if one was given)."""
        index = self._input_index[rank]
        if self._objects is not None:
            return self._objects[index]
        table = self._table
        payload = table.payloads[index] if table.payloads is not None else None
        return _trusted_job(self._ids[rank], self._arrival[rank], self._work[rank], self._gpus_demand[rank],
                            payload)

    def _active_rank(self, job_id: int, action: str) -> int:
        """Rank of ``job_id`` for an action, which is allowed only during :meth:`run`."""
        if self._phase != "running":
            raise SimulationError(f"{action}() is allowed only while the simulator runs")
        return self._rank(job_id)

    def _remaining_at(self, rank: int, now: float) -> float:
        """Remaining work at ``now`` (exact for running jobs, the stored value otherwise).

        For a running job it is ``remaining - rate * max(0, now - progress_from)``:
        ``progress_from`` is the instant from which the current rate applies (in the future
        during a restart overhead)."""
        progress_from = self._progress_from[rank]
        if self._status[rank] != _S_RUNNING or now <= progress_from:
            return self._remaining[rank]
        return max(0.0, self._remaining[rank] - self._rate[rank] * (now - progress_from))

    def _held(self, rank: int) -> float:
        held = self._gpu_seconds[rank]
        if self._status[rank] == _S_RUNNING:
            held += self._running[self._ids[rank]][2] * (self._now - self._held_since[rank])
        return held

    @staticmethod
    def _checked_rate(job_id: int, rate: float) -> float:
        """``rate`` as a float, or SimulationError unless finite and > 0."""
        if not _is_real(rate) or not 0.0 < float(rate) < math.inf:
            raise SimulationError(f"job {job_id}: rate must be a finite number > 0, got {rate!r}")
        return float(rate)

    def _schedule_completion(self, job_id: int, rank: int) -> None:
        """Invalidate the job's pending completion and push its new completion instant."""
        version = self._version[rank] + 1
        self._version[rank] = version
        finish = self._progress_from[rank] + self._remaining[rank] / self._rate[rank]
        heappush(self._completions, (finish, job_id, version, rank))

    def _release(self, job_id: int, rank: int, now: float) -> None:
        """Free the GPUs of a running job and account its GPU-seconds."""
        _, placement, num_gpus = self._running.pop(job_id)
        free = self._free
        for server, count in placement.items():
            free[server] += count
        self._total_free += num_gpus
        self._gpu_seconds[rank] += num_gpus * (now - self._held_since[rank])
        self._version[rank] += 1

    def _complete(self, job_id: int, rank: int, now: float) -> SimJob:
        """Mark a running job done at ``now``."""
        self._release(job_id, rank, now)
        self._remaining[rank] = 0.0
        self._status[rank] = _S_DONE
        self._completion[rank] = now
        self._num_done += 1
        if self._log is not None:
            self._record(now, "complete", job_id, None)
        return self._live.pop(job_id)

    def _restore_waiting_order(self) -> None:
        """Re-sort the waiting queue by arrival rank after a preempted job re-joined it."""
        rank = self._rank
        ordered = sorted(self._waiting, key=rank)
        live = self._live
        self._waiting = OrderedDict((job_id, live[job_id]) for job_id in ordered)
        self._waiting_in_order = True

    def _record(self, time: float, kind: str, job_id: int | None, detail: dict | None) -> None:
        """Append a log entry (only called when the log is recorded)."""
        log = self._log
        log.append(Event(time, kind, job_id, detail, len(log)))

    def _result(self) -> SimulationResult:
        """Collect the result at the end of the run (views over the columns, no dict per job)."""
        end = self._now
        held = array("d", self._gpu_seconds)
        for job_id, (rank, _, num_gpus) in self._running.items():
            held[rank] += num_gpus * (end - self._held_since[rank])
        ids = self._ids
        status = self._status
        unfinished = tuple(sorted(ids[r] for r in range(self._n) if status[r] != _S_DONE)) \
            if self._num_done < self._n else ()
        lookup = self._rank_or_none
        completion = _ArrayMap(ids, self._completion, lookup, True, float)
        arrival = self._arrival
        return SimulationResult(
            completion=completion,
            start_first=_ArrayMap(ids, self._first_start, lookup, True, float),
            arrival=_ArrayMap(ids, arrival, lookup, False, float),
            preemptions=_ArrayMap(ids, self._preemptions, lookup, False, int),
            gpu_seconds=_ArrayMap(ids, held, lookup, False, float),
            unfinished=unfinished,
            end_time=end,
            log=self._log if self._log is not None else [],
        )
