"""The model the cluster simulator runs: the cluster (servers and their GPUs, bandwidths), the jobs
(one :class:`SimJob` each, or a :class:`JobTable` of columns for millions of them), a running
job's :class:`Allocation`, a log :class:`Event`, and :class:`SimulationError`. Every value is
validated here, with an :class:`~optsched.core.errors.InvalidInstanceError` naming the field; the
event loop (:mod:`.cluster`) trusts them. See :mod:`optsched.simulation.cluster` for the semantics."""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple

from optsched.core.errors import InvalidInstanceError, OptschedError

__all__ = ["Cluster", "JobTable", "SimJob", "Allocation", "Event", "SimulationError"]

_PROBLEM = "simulation"


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
