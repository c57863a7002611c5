"""The event engine as it was before the compact (column) rewrite, kept verbatim as a reference oracle
for tests/simulation/test_compact_engine.py (git: optsched/simulation/cluster.py before the
online-scale branch). Not imported by optsched."""


from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from numbers import Integral, Real
from typing import NamedTuple

from optsched.core.errors import InvalidInstanceError, OptschedError

__all__ = [
    "Cluster",
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


def _positive_finite(value: object, field: str) -> float:
    """Return ``value`` as a float; InvalidInstanceError unless it is finite and > 0."""
    if not _is_real(value) or not 0.0 < float(value) < math.inf:
        raise InvalidInstanceError(_PROBLEM, field, "must be a finite number > 0", got=value)
    return float(value)


def _nonnegative_finite(value: object, field: str) -> float:
    """Return ``value`` as a float; InvalidInstanceError unless it is finite and >= 0."""
    if not _is_real(value) or not 0.0 <= float(value) < math.inf:
        raise InvalidInstanceError(_PROBLEM, field, "must be a finite number >= 0", got=value)
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


class _JobState:
    """Mutable bookkeeping of one job inside the simulator.

    For a running job, the remaining work at time ``t`` is
    ``remaining - rate * max(0, t - progress_from)``: ``progress_from`` is the instant from
    which the current rate applies (in the future during a restart overhead).
    """

    __slots__ = (
        "job",
        "rank",
        "status",
        "remaining",
        "progress_from",
        "rate",
        "gpus",
        "num_gpus",
        "held_since",
        "gpu_seconds",
        "version",
        "preemptions",
        "first_start",
        "completion",
    )

    def __init__(self, job: SimJob, rank: int):
        """Fresh state of a pending job; ``rank`` is its position in arrival order."""
        self.job = job
        self.rank = rank
        self.status = _PENDING
        self.remaining = job.work
        self.progress_from = 0.0
        self.rate = 0.0
        self.gpus: dict[int, int] = {}
        self.num_gpus = 0
        self.held_since = 0.0
        self.gpu_seconds = 0.0
        self.version = 0
        self.preemptions = 0
        self.first_start: float | None = None
        self.completion: float | None = None

    def remaining_at(self, now: float) -> float:
        """Remaining work at ``now`` (exact for running jobs, the stored value otherwise)."""
        if self.status is not _RUNNING or now <= self.progress_from:
            return self.remaining
        return max(0.0, self.remaining - self.rate * (now - self.progress_from))


@dataclass(frozen=True)
class SimulationResult:
    """Outcome of :meth:`Simulator.run`.

    ``completion``, ``start_first`` and ``arrival`` map job ids to instants (jobs never
    completed or never started are absent from the first two); ``preemptions`` and
    ``gpu_seconds`` have an entry for every job; ``unfinished`` lists, by id, the jobs not done
    at the end; ``end_time`` is the clock at the end; ``log`` is empty unless the log was
    recorded.
    """

    completion: dict[int, float]
    start_first: dict[int, float]
    arrival: dict[int, float]
    preemptions: dict[int, int]
    gpu_seconds: dict[int, float]
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


class Simulator:
    """Discrete-event engine: runs ``policy`` on ``jobs`` over ``cluster`` (see the module doc).

    ``tick`` (seconds, > 0) enables the periodic ``on_tick`` hook; ``restart_overhead``
    (seconds, >= 0) is the progress-free time after each restart; the run stops at
    ``max_time`` at the latest; ``record_log=False`` skips the log to save time and memory.
    A simulator runs once.  The policy may be any object with the :class:`Policy` hooks; a
    missing hook counts as a no-op.
    """

    def __init__(
        self,
        cluster: Cluster,
        jobs: Iterable[SimJob],
        policy: Policy,
        tick: float | None = None,
        restart_overhead: float = 0.0,
        max_time: float = math.inf,
        record_log: bool = True,
    ):
        """Validate the run parameters and set every job pending; raises InvalidInstanceError."""
        if not isinstance(cluster, Cluster):
            raise InvalidInstanceError(_PROBLEM, "cluster", "must be a Cluster", got=cluster)
        if tick is not None:
            tick = _positive_finite(tick, "tick")
        restart_overhead = _nonnegative_finite(restart_overhead, "restart_overhead")
        if not _is_real(max_time) or not float(max_time) >= 0.0:
            raise InvalidInstanceError(
                _PROBLEM, "max_time", "must be a number >= 0 (inf allowed)", got=max_time
            )
        job_list = list(jobs)
        seen: set[int] = set()
        for index, job in enumerate(job_list):
            if not isinstance(job, SimJob):
                raise InvalidInstanceError(_PROBLEM, f"jobs[{index}]", "must be a SimJob", got=job)
            if job.id in seen:
                raise InvalidInstanceError(
                    _PROBLEM, f"jobs[{index}].id", "job ids must be unique", got=job.id
                )
            seen.add(job.id)

        self.cluster = cluster
        self._policy = policy
        self._tick = tick
        self._restart_overhead = restart_overhead
        self._max_time = float(max_time)
        self._log: list[Event] | None = [] if record_log else None
        self._arrivals = sorted(job_list, key=lambda job: (job.arrival, job.id))
        self._states = {job.id: _JobState(job, rank) for rank, job in enumerate(self._arrivals)}
        self._free = list(cluster.gpus_per_server)
        self._total_free = cluster.total_gpus
        self._waiting: OrderedDict[int, SimJob] = OrderedDict()
        self._waiting_in_order = True
        self._running: dict[int, _JobState] = {}
        self._completions: list[tuple[float, int, int]] = []
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
        return self._state(job_id).job

    def status(self, job_id: int) -> str:
        """``"pending"`` (not arrived), ``"waiting"``, ``"running"`` or ``"done"``."""
        return self._state(job_id).status

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
        return tuple(state.job for state in self._running.values())

    def allocation(self, job_id: int) -> Allocation:
        """Allocation of a running job (a copy)."""
        state = self._state(job_id)
        if state.status is not _RUNNING:
            raise SimulationError(f"job {job_id} has no allocation: it is {state.status}")
        return Allocation(gpus=dict(state.gpus), rate=state.rate)

    def remaining_work(self, job_id: int) -> float:
        """Work left to do on ``job_id``, exact at :attr:`now`."""
        return self._state(job_id).remaining_at(self._now)

    def attained_service(self, job_id: int) -> float:
        """Work done on ``job_id`` so far."""
        state = self._state(job_id)
        return state.job.work - state.remaining_at(self._now)

    def gpu_seconds(self, job_id: int) -> float:
        """GPU-seconds held by ``job_id`` so far (restart overheads included)."""
        state = self._state(job_id)
        held = state.gpu_seconds
        if state.status is _RUNNING:
            held += state.num_gpus * (self._now - state.held_since)
        return held

    # ----------------------------------------------------------------- actions

    def start(self, job_id: int, gpus: Mapping[int, int], rate: float = 1.0) -> None:
        """Start waiting job ``job_id`` on ``gpus`` (server -> GPU count) at ``rate`` work/s.

        Raises :class:`SimulationError`, changing nothing, if the job is not waiting, a server
        index or count is invalid, a server has too few free GPUs or the rate is not > 0.
        """
        state = self._active_state(job_id, "start")
        if state.status is not _WAITING:
            raise SimulationError(f"cannot start job {job_id}: it is {state.status}")
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
        state.status = _RUNNING
        state.gpus = placement
        state.num_gpus = num_gpus
        state.rate = rate
        state.held_since = now
        state.progress_from = now + self._restart_overhead if state.preemptions else now
        if state.first_start is None:
            state.first_start = now
        self._running[job_id] = state
        self._num_actions += 1
        self._schedule_completion(state)
        if self._log is not None:
            self._record(now, "start", job_id, {"gpus": dict(placement), "rate": rate})

    def preempt(self, job_id: int) -> None:
        """Stop running job ``job_id``: free its GPUs, keep its progress, make it wait again."""
        state = self._active_state(job_id, "preempt")
        if state.status is not _RUNNING:
            raise SimulationError(f"cannot preempt job {job_id}: it is {state.status}")
        now = self._now
        state.remaining = state.remaining_at(now)
        self._release(state, now)
        state.status = _WAITING
        state.preemptions += 1
        self._num_actions += 1
        waiting = self._waiting
        if waiting and self._states[next(reversed(waiting))].rank > state.rank:
            self._waiting_in_order = False
        waiting[job_id] = state.job
        if self._log is not None:
            self._record(now, "preempt", job_id, {"remaining": state.remaining})

    def set_rate(self, job_id: int, rate: float) -> None:
        """Change the rate of running job ``job_id`` from now on (progress so far is kept)."""
        state = self._active_state(job_id, "set_rate")
        if state.status is not _RUNNING:
            raise SimulationError(f"cannot set the rate of job {job_id}: it is {state.status}")
        rate = self._checked_rate(job_id, rate)
        now = self._now
        state.remaining = state.remaining_at(now)
        state.progress_from = max(state.progress_from, now)
        state.rate = rate
        self._num_actions += 1
        self._schedule_completion(state)
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
        states = self._states
        heap = self._completions
        arrivals = self._arrivals
        num_jobs = len(arrivals)
        next_arrival = 0
        tick = self._tick
        tick_index = 1
        max_time = self._max_time
        inf = math.inf

        while self._num_done < num_jobs:
            while heap and heap[0][2] != states[heap[0][1]].version:
                heappop(heap)
            time_completion = heap[0][0] if heap else inf
            time_arrival = arrivals[next_arrival].arrival if next_arrival < num_jobs else inf
            time_tick = tick_index * tick if tick is not None else inf
            now = min(time_completion, time_arrival, time_tick)
            if now == inf:
                break
            if now > max_time:
                self._now = max_time
                break
            self._now = now

            if time_completion == now:
                job_id = heappop(heap)[1]
                job = self._complete(states[job_id], now)
                if on_completion is not None:
                    on_completion(self, job, now)
            elif time_arrival == now:
                job = arrivals[next_arrival]
                next_arrival += 1
                states[job.id].status = _WAITING
                self._waiting[job.id] = job
                if self._log is not None:
                    self._record(now, "arrival", job.id, None)
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

    def _state(self, job_id: int) -> _JobState:
        """Bookkeeping of ``job_id``; SimulationError for an unknown id."""
        try:
            return self._states[job_id]
        except (KeyError, TypeError):
            raise SimulationError(f"unknown job id {job_id!r}") from None

    def _active_state(self, job_id: int, action: str) -> _JobState:
        """Bookkeeping of ``job_id`` for an action, which is allowed only during :meth:`run`."""
        if self._phase != "running":
            raise SimulationError(f"{action}() is allowed only while the simulator runs")
        return self._state(job_id)

    @staticmethod
    def _checked_rate(job_id: int, rate: float) -> float:
        """``rate`` as a float, or SimulationError unless finite and > 0."""
        if not _is_real(rate) or not 0.0 < float(rate) < math.inf:
            raise SimulationError(f"job {job_id}: rate must be a finite number > 0, got {rate!r}")
        return float(rate)

    def _schedule_completion(self, state: _JobState) -> None:
        """Invalidate the job's pending completion and push its new completion instant."""
        state.version += 1
        finish = state.progress_from + state.remaining / state.rate
        heappush(self._completions, (finish, state.job.id, state.version))

    def _release(self, state: _JobState, now: float) -> None:
        """Free the GPUs of a running job and account its GPU-seconds."""
        free = self._free
        for server, count in state.gpus.items():
            free[server] += count
        self._total_free += state.num_gpus
        state.gpu_seconds += state.num_gpus * (now - state.held_since)
        state.gpus = {}
        state.num_gpus = 0
        state.version += 1
        del self._running[state.job.id]

    def _complete(self, state: _JobState, now: float) -> SimJob:
        """Mark a running job done at ``now``."""
        self._release(state, now)
        state.remaining = 0.0
        state.status = _DONE
        state.completion = now
        self._num_done += 1
        if self._log is not None:
            self._record(now, "complete", state.job.id, None)
        return state.job

    def _restore_waiting_order(self) -> None:
        """Re-sort the waiting queue by arrival rank after a preempted job re-joined it."""
        states = self._states
        ordered = sorted(self._waiting, key=lambda job_id: states[job_id].rank)
        self._waiting = OrderedDict((job_id, states[job_id].job) for job_id in ordered)
        self._waiting_in_order = True

    def _record(self, time: float, kind: str, job_id: int | None, detail: dict | None) -> None:
        """Append a log entry (only called when the log is recorded)."""
        log = self._log
        log.append(Event(time, kind, job_id, detail, len(log)))

    def _result(self) -> SimulationResult:
        """Collect the result at the end of the run."""
        end = self._now
        completion: dict[int, float] = {}
        start_first: dict[int, float] = {}
        arrival: dict[int, float] = {}
        preemptions: dict[int, int] = {}
        gpu_seconds: dict[int, float] = {}
        unfinished: list[int] = []
        for job_id, state in self._states.items():
            arrival[job_id] = state.job.arrival
            preemptions[job_id] = state.preemptions
            gpu_seconds[job_id] = self.gpu_seconds(job_id)
            if state.first_start is not None:
                start_first[job_id] = state.first_start
            if state.completion is not None:
                completion[job_id] = state.completion
            else:
                unfinished.append(job_id)
        return SimulationResult(
            completion=completion,
            start_first=start_first,
            arrival=arrival,
            preemptions=preemptions,
            gpu_seconds=gpu_seconds,
            unfinished=tuple(sorted(unfinished)),
            end_time=end,
            log=self._log if self._log is not None else [],
        )
