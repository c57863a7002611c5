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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from numbers import Integral, Real
from typing import NamedTuple

from optsched.core.errors import InvalidInstanceError, InvalidOptionError, OptschedError

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

_PROBLEM = "simulation"

_PENDING = "pending"
_WAITING = "waiting"
_RUNNING = "running"
_DONE = "done"


class SimulationError(OptschedError, RuntimeError):
    """A policy asked the simulator for something the current state does not allow.

    Examples: starting a job on more GPUs than are free, starting a job that has not arrived or
    is already running, preempting a job that is not running, a rate that is not a finite
    positive number, or calling :meth:`Simulator.run` twice.
    """


def _is_int(value: object) -> bool:
    """True for Python and numpy integers, false for booleans."""
    return type(value) is int or (isinstance(value, Integral) and not isinstance(value, bool))


def _is_real(value: object) -> bool:
    """True for Python and numpy real numbers (NaN and infinities included), false for booleans."""
    return type(value) is float or (isinstance(value, Real) and not isinstance(value, bool))


def _positive_finite(value: object, field: str, error: type = InvalidInstanceError) -> float:
    """Return ``value`` as a float; ``error`` (an instance field's by default) unless it is finite
    and > 0."""
    if not _is_real(value) or not 0.0 < float(value) < math.inf:
        raise error(_PROBLEM, field, "must be a finite number > 0", got=value)
    return float(value)


def _nonnegative_finite(value: object, field: str, error: type = InvalidInstanceError) -> float:
    """Return ``value`` as a float; ``error`` (an instance field's by default) unless it is finite
    and >= 0."""
    if not _is_real(value) or not 0.0 <= float(value) < math.inf:
        raise error(_PROBLEM, field, "must be a finite number >= 0", got=value)
    return float(value)


@dataclass(frozen=True, slots=True)
class Cluster:
    """Servers with their GPU counts and the network bandwidths (bytes/s).

    The engine only uses the GPU counts; the bandwidths are there for the policies' rate
    models.  A list of GPU counts is accepted and stored as a tuple.

    >>> Cluster(gpus_per_server=[8, 8, 4], intra_bandwidth=3e11, inter_bandwidth=1.25e9).total_gpus
    20
    >>> try:
    ...     Cluster(gpus_per_server=(8, 0), intra_bandwidth=3e11, inter_bandwidth=1.25e9)
    ... except InvalidInstanceError as error:
    ...     print(error)
    simulation: field 'gpus_per_server[1]': must be an integer >= 1 (got 0)
    """

    gpus_per_server: tuple[int, ...]
    intra_bandwidth: float
    inter_bandwidth: float

    def __post_init__(self) -> None:
        """Validate the fields and normalise them to a tuple of ints and floats."""
        counts = self.gpus_per_server
        if isinstance(counts, (str, bytes)) or not isinstance(counts, Iterable):
            raise InvalidInstanceError(
                _PROBLEM, "gpus_per_server", "must be a sequence of GPU counts", got=counts
            )
        counts = tuple(counts)
        if not counts:
            raise InvalidInstanceError(
                _PROBLEM, "gpus_per_server", "must name at least one server", got=counts
            )
        for server, count in enumerate(counts):
            if not _is_int(count) or count < 1:
                raise InvalidInstanceError(
                    _PROBLEM, f"gpus_per_server[{server}]", "must be an integer >= 1", got=count
                )
        object.__setattr__(self, "gpus_per_server", tuple(int(count) for count in counts))
        object.__setattr__(
            self, "intra_bandwidth", _positive_finite(self.intra_bandwidth, "intra_bandwidth")
        )
        object.__setattr__(
            self, "inter_bandwidth", _positive_finite(self.inter_bandwidth, "inter_bandwidth")
        )

    @property
    def num_servers(self) -> int:
        """Number of servers."""
        return len(self.gpus_per_server)

    @property
    def total_gpus(self) -> int:
        """Number of GPUs in the whole cluster."""
        return sum(self.gpus_per_server)


@dataclass(frozen=True, slots=True)
class SimJob:
    """A job: unique ``id``, ``arrival`` time (>= 0), ``work`` (> 0), GPU demand ``gpus`` (>= 1).

    ``payload`` carries whatever the policy needs (a model profile, a predicted size, ...); the
    engine never reads it.

    >>> SimJob(id=3, arrival=0, work=2, gpus=1)
    SimJob(id=3, arrival=0.0, work=2.0, gpus=1, payload=None)
    >>> try:
    ...     SimJob(id=3, arrival=0.0, work=0.0, gpus=1)
    ... except InvalidInstanceError as error:
    ...     print(error.field)
    jobs[id=3].work
    """

    id: int
    arrival: float
    work: float
    gpus: int
    payload: object = None

    def __post_init__(self) -> None:
        """Validate the fields and store ``arrival`` and ``work`` as floats."""
        if not _is_int(self.id):
            raise InvalidInstanceError(_PROBLEM, "jobs[].id", "must be an integer", got=self.id)
        object.__setattr__(self, "id", int(self.id))
        prefix = f"jobs[id={self.id}]"
        object.__setattr__(
            self, "arrival", _nonnegative_finite(self.arrival, f"{prefix}.arrival")
        )
        object.__setattr__(self, "work", _positive_finite(self.work, f"{prefix}.work"))
        if not _is_int(self.gpus) or self.gpus < 1:
            raise InvalidInstanceError(
                _PROBLEM, f"{prefix}.gpus", "must be an integer >= 1", got=self.gpus
            )
        object.__setattr__(self, "gpus", int(self.gpus))


@dataclass(frozen=True, slots=True)
class Allocation:
    """What a running job holds: ``gpus`` maps a server index to a GPU count; ``rate`` is in
    work units per second.  Returned by :meth:`Simulator.allocation` (a copy: editing it has no
    effect on the simulation)."""

    gpus: dict[int, int]
    rate: float


class Event(NamedTuple):
    """One entry of the simulation log.

    ``kind`` is one of ``"arrival"``, ``"start"``, ``"preempt"``, ``"rate"``, ``"complete"``,
    ``"tick"``; ``job_id`` is ``None`` for a tick.  ``detail`` is ``None`` except for
    ``"start"`` (``{"gpus": {server: count}, "rate": rate}``), ``"preempt"``
    (``{"remaining": work left}``) and ``"rate"`` (``{"rate": new rate}``).  ``seq`` is the
    index of the entry in the log.
    """

    time: float
    kind: str
    job_id: int | None
    detail: dict[str, object] | None
    seq: int


class Policy:
    """Base class of scheduling policies: every hook is an optional no-op.

    Subclasses override the hooks they need and act through the simulator they receive
    (:meth:`Simulator.start`, :meth:`Simulator.preempt`, :meth:`Simulator.set_rate`).
    """

    def on_arrival(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Called when ``job`` arrives (it is then waiting)."""

    def on_completion(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Called when ``job`` completes (its GPUs are already free)."""

    def on_tick(self, sim: Simulator, now: float) -> None:
        """Called at every multiple of the simulator's ``tick``, if it has one."""


RateModel = Callable[[SimJob, Mapping[int, int]], float]


class FifoPolicy(Policy):
    """Strict first-come first-served: start waiting jobs in arrival order while the head fits.

    After every arrival and completion, the oldest waiting job is started on exactly its demand
    of ``job.gpus`` GPUs if that many are free in the cluster, then the next one, and so on; the
    first job that does not fit blocks the jobs behind it.  GPUs are placed by :meth:`place`,
    on the fewest servers.  The rate is ``rate`` work units per second, or ``rate(job, gpus)``
    when ``rate`` is a callable receiving the job and its ``{server: GPU count}`` placement.
    """

    def __init__(self, rate: float | RateModel = 1.0):
        """Use a constant ``rate`` or a rate model ``rate(job, gpus_by_server)``."""
        self._rate = rate

    @staticmethod
    def place(free_gpus: Sequence[int], demand: int) -> dict[int, int] | None:
        """Place ``demand`` GPUs on the fewest servers, or return ``None`` if too few are free.

        Rule: servers are taken by decreasing number of free GPUs (ties: lower index) and
        filled completely as long as the rest of the demand exceeds the next server's free
        GPUs; the rest then goes to the server, among those not yet used, with the fewest free
        GPUs that still holds it (best fit; ties: lower index).  This uses the minimum number of
        servers and keeps large free blocks intact.  The result is ordered by server index.

        >>> FifoPolicy.place([2, 1, 3], 1)
        {1: 1}
        >>> FifoPolicy.place([8, 5, 3], 11)
        {0: 8, 2: 3}
        >>> FifoPolicy.place([1, 1], 3) is None
        True
        """
        if demand > sum(free_gpus):
            return None
        most_free = max(free_gpus)
        if most_free >= demand:  # one server suffices: best fit, scanning the counts upwards
            for count in range(demand, most_free + 1):
                if count in free_gpus:
                    return {free_gpus.index(count): demand}
        placement: dict[int, int] = {}
        rest = demand
        for server in sorted(range(len(free_gpus)), key=lambda s: (-free_gpus[s], s)):
            if free_gpus[server] >= rest:
                break
            placement[server] = free_gpus[server]
            rest -= free_gpus[server]
        _, best = min(
            (free, server)
            for server, free in enumerate(free_gpus)
            if free >= rest and server not in placement
        )
        placement[best] = rest
        return dict(sorted(placement.items()))

    def on_arrival(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Start what fits (the new job, if nothing waits before it)."""
        self._dispatch(sim)

    def on_completion(self, sim: Simulator, job: SimJob, now: float) -> None:
        """Start what fits in the GPUs just freed."""
        self._dispatch(sim)

    def _dispatch(self, sim: Simulator) -> None:
        """Start waiting jobs in arrival order until the head does not fit."""
        while True:
            head = sim.first_waiting()
            if head is None or head.gpus > sim.total_free_gpus():
                return
            placement = self.place(sim.free_gpus(), head.gpus)
            rate = self._rate(head, placement) if callable(self._rate) else self._rate
            sim.start(head.id, gpus=placement, rate=rate)


class JobTable:
    """The jobs of a run as columns (compact: about 40 bytes per job, no object per job).

    ``ids`` (integers, unique), ``arrival`` (>= 0), ``work`` (> 0) and ``gpus`` (integers >= 1)
    are equal-length sequences or numpy arrays; ``payloads`` (optional) is any sequence indexed
    like them (for instance a problem instance's tuple of jobs: nothing is copied).  The
    simulator builds a :class:`SimJob` only for a job that has arrived and is not done (and for
    :meth:`Simulator.job` queries), so a stream of 10^6 jobs costs tens of megabytes in the
    engine instead of an object per job.  Validation is vectorized and raises the same
    :class:`InvalidInstanceError` (same field, same rule) as :class:`SimJob` on the first
    offending job.

    >>> table = JobTable(ids=[4, 2], arrival=[0.0, 1.0], work=[2.0, 3.0], gpus=[1, 2])
    >>> len(table), table.job(1)
    (2, SimJob(id=2, arrival=1.0, work=3.0, gpus=2, payload=None))
    >>> try:
    ...     JobTable(ids=[0, 1], arrival=[0.0, -1.0], work=[1.0, 1.0], gpus=[1, 1])
    ... except InvalidInstanceError as error:
    ...     print(error.field)
    jobs[id=1].arrival
    """

    __slots__ = ("ids", "arrival", "work", "gpus", "payloads")

    def __init__(self, ids, arrival, work, gpus, payloads: Sequence | None = None):
        import numpy as np

        columns = {}
        for name, values in (("ids", ids), ("arrival", arrival), ("work", work), ("gpus", gpus)):
            array = np.asarray(values)
            if array.ndim != 1:
                raise InvalidInstanceError(_PROBLEM, f"jobs.{name}", "must be a one-dimensional sequence",
                                           got=array.shape)
            columns[name] = array
        n = len(columns["ids"])
        for name, array in columns.items():
            if len(array) != n:
                raise InvalidInstanceError(_PROBLEM, f"jobs.{name}", f"must have {n} entries (as ids)",
                                           got=len(array))
        if payloads is not None and len(payloads) != n:
            raise InvalidInstanceError(_PROBLEM, "jobs.payloads", f"must have {n} entries (as ids)",
                                       got=len(payloads))
        ids = columns["ids"]
        if n and ids.dtype.kind not in "iu":
            bad = next(i for i, v in enumerate(ids.tolist()) if not _is_int(v))
            raise InvalidInstanceError(_PROBLEM, "jobs[].id", "must be an integer", got=ids.tolist()[bad])
        ids = ids.astype(np.int64, copy=False)

        def first_bad(mask):
            return int(np.flatnonzero(mask)[0])

        for name, rule, low_ok in (("arrival", "must be a finite number >= 0", True),
                                   ("work", "must be a finite number > 0", False)):
            array = columns[name]
            if n and array.dtype.kind not in "iuf":
                values = array.tolist()
                k = next(i for i, v in enumerate(values) if not _is_real(v))
                raise InvalidInstanceError(_PROBLEM, f"jobs[id={int(ids[k])}].{name}", rule, got=values[k])
            array = array.astype(float, copy=False)
            bad = ~np.isfinite(array) | ((array < 0) if low_ok else (array <= 0))
            if bad.any():
                k = first_bad(bad)
                raise InvalidInstanceError(_PROBLEM, f"jobs[id={int(ids[k])}].{name}", rule, got=array[k].item())
            columns[name] = array
        gpus = columns["gpus"]
        if n and gpus.dtype.kind not in "iu":
            values = gpus.tolist()
            k = next(i for i, v in enumerate(values) if not _is_int(v) or v < 1)
            raise InvalidInstanceError(_PROBLEM, f"jobs[id={int(ids[k])}].gpus", "must be an integer >= 1",
                                       got=values[k])
        if n and (gpus < 1).any():
            k = first_bad(gpus < 1)
            raise InvalidInstanceError(_PROBLEM, f"jobs[id={int(ids[k])}].gpus", "must be an integer >= 1",
                                       got=gpus[k].item())
        self.ids = ids
        self.arrival = columns["arrival"]
        self.work = columns["work"]
        self.gpus = gpus.astype(np.int64, copy=False)
        self.payloads = payloads

    @classmethod
    def from_jobs(cls, jobs: Iterable[SimJob]) -> JobTable:
        """The table of validated :class:`SimJob` objects (their payloads kept)."""
        job_list = list(jobs)
        for index, job in enumerate(job_list):
            if not isinstance(job, SimJob):
                raise InvalidInstanceError(_PROBLEM, f"jobs[{index}]", "must be a SimJob", got=job)
        return cls([job.id for job in job_list], [job.arrival for job in job_list],
                   [job.work for job in job_list], [job.gpus for job in job_list],
                   [job.payload for job in job_list])

    def __len__(self) -> int:
        return len(self.ids)

    def job(self, index: int) -> SimJob:
        """The :class:`SimJob` of row ``index`` (built on demand, not validated again)."""
        payload = self.payloads[index] if self.payloads is not None else None
        return _trusted_job(int(self.ids[index]), float(self.arrival[index]), float(self.work[index]),
                            int(self.gpus[index]), payload)


def _trusted_job(job_id: int, arrival: float, work: float, gpus: int, payload: object) -> SimJob:
    """A SimJob from values already validated (skips ``__post_init__``)."""
    job = object.__new__(SimJob)
    object.__setattr__(job, "id", job_id)
    object.__setattr__(job, "arrival", arrival)
    object.__setattr__(job, "work", work)
    object.__setattr__(job, "gpus", gpus)
    object.__setattr__(job, "payload", payload)
    return job


class _ArrayMap(Mapping):
    """A read-only ``{job id: value}`` view over a per-rank column (what results return).

    Compares equal to the dict of the same items and prints as one; entries whose value is NaN
    are absent when ``skip_nan`` (a job never completed has no completion instant).
    """

    __slots__ = ("_ids", "_values", "_rank", "_skip_nan", "_cast", "_len")

    def __init__(self, ids, values, rank, skip_nan: bool, cast):
        self._ids, self._values, self._rank, self._skip_nan, self._cast = ids, values, rank, skip_nan, cast
        self._len = sum(1 for v in values if v == v) if skip_nan else len(values)

    def __getitem__(self, job_id):
        rank = self._rank(job_id)
        if rank is None:
            raise KeyError(job_id)
        value = self._values[rank]
        if self._skip_nan and value != value:
            raise KeyError(job_id)
        return self._cast(value)

    def __iter__(self):
        if not self._skip_nan:
            return iter(self._ids)
        return (job_id for job_id, value in zip(self._ids, self._values) if value == value)

    def __len__(self) -> int:
        return self._len

    def items(self):
        cast = self._cast
        pairs = zip(self._ids, self._values)
        if self._skip_nan:
            return [(job_id, cast(v)) for job_id, v in pairs if v == v]
        return [(job_id, cast(v)) for job_id, v in pairs]

    def values(self):
        return [v for _, v in self.items()]

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    __hash__ = None  # mutable-looking mapping: unhashable, like a dict


@dataclass(frozen=True)
class SimulationResult:
    """Outcome of :meth:`Simulator.run`.

    ``completion``, ``start_first`` and ``arrival`` map job ids to instants (jobs never
    completed or never started are absent from the first two); ``preemptions`` and
    ``gpu_seconds`` have an entry for every job; ``unfinished`` lists, by id, the jobs not done
    at the end; ``end_time`` is the clock at the end; ``log`` is empty unless the log was
    recorded.  The mappings are read-only views over the engine's columns (they compare equal
    to, and print as, the dicts of their items; ``dict(result.completion)`` copies one), in
    arrival order.
    """

    completion: Mapping[int, float]
    start_first: Mapping[int, float]
    arrival: Mapping[int, float]
    preemptions: Mapping[int, int]
    gpu_seconds: Mapping[int, float]
    unfinished: tuple[int, ...]
    end_time: float
    log: list[Event]

    def flow_time(self, job_id: int) -> float:
        """Completion minus arrival of ``job_id``; ``inf`` if the job did not complete."""
        if job_id not in self.completion:
            if job_id not in self.arrival:
                raise KeyError(job_id)
            return math.inf
        return self.completion[job_id] - self.arrival[job_id]

    @property
    def total_flow_time(self) -> float:
        """Sum of the flow times; ``inf`` if some job is unfinished."""
        if self.unfinished:
            return math.inf
        arrival = self.arrival
        return math.fsum(done - arrival[job_id] for job_id, done in self.completion.items())

    @property
    def makespan(self) -> float:
        """Last completion instant (0 without jobs); ``inf`` if some job is unfinished."""
        if self.unfinished:
            return math.inf
        return max(self.completion.values(), default=0.0)


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
