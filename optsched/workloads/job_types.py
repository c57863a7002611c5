"""The job-type table: model size and compute time per DNN job type (``optsched/workloads/job_types.json``,
package data: it ships in the wheel).

Traces name job types (Gavel's ``"ResNet-50 (batch size 64)"``, Tiresias' ``"vgg19"``) but not
model sizes or per-iteration times. optsched keeps one table mapping each base model to

* ``model_bytes``: 4 bytes (fp32) x the public parameter count,
* ``forward_s_per_sample`` / ``backward_s_per_sample``: forward FLOPs per sample at an effective
  10 TFLOP/s, and twice that for the backward pass,
* ``mini_batch``: the per-worker mini-batch when the name gives none.

Every value is **[ours]** (derivations are stored beside each entry and in
``docs/ring_allreduce_timing.md#job-types``); none comes from the scheduling papers.

>>> t = job_type("ResNet-50 (batch size 64)")
>>> t.model, t.mini_batch, t.model_bytes
('ResNet-50', 64, 102228128)
>>> round(t.compute_s(), 4)                # 64 samples x (0.822 + 1.644) ms
0.1578
>>> job_type("vgg19").mini_batch
32
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from optsched.core.errors import InvalidInstanceError, UnknownNameError

__all__ = ["JobType", "job_type", "job_types", "trace_job_type", "TABLE_PATH"]

#: the table's location: beside this module (package data, so an installed optsched has it)
TABLE_PATH = Path(__file__).with_name("job_types.json")

_NAME = re.compile(r"^(?P<model>.+?)(?: \(batch size (?P<batch>\d+)\))?$")


@dataclass(frozen=True)
class JobType:
    """One DNN job type: model size (bytes), per-sample compute times (s), mini-batch.

    ``name`` is the name asked for; ``model`` its base model (the table key).
    """

    name: str
    model: str
    model_bytes: int
    forward_s_per_sample: float
    backward_s_per_sample: float
    mini_batch: int

    def forward_s(self) -> float:
        """Forward time of one mini-batch (s): ``df * mb`` in the RAR timing model."""
        return self.forward_s_per_sample * self.mini_batch

    def backward_s(self) -> float:
        """Backward time of one mini-batch (s): ``db`` in the RAR timing model."""
        return self.backward_s_per_sample * self.mini_batch

    def compute_s(self) -> float:
        """Forward plus backward time of one mini-batch on one GPU (s)."""
        return self.forward_s() + self.backward_s()


@lru_cache(maxsize=1)
def _table() -> dict:
    try:
        data = json.loads(TABLE_PATH.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInstanceError("job-types", "(file)", f"cannot read {TABLE_PATH}: {exc}") from None
    return data["types"]


def job_type(name: str) -> JobType:
    """The :class:`JobType` of a trace job-type name.

    A trailing ``" (batch size N)"`` sets the mini-batch; the rest must be a table key (exact,
    case-sensitive: ``"ResNet-50"`` from Gavel, ``"resnet50"`` from Tiresias). Unknown names
    raise :class:`~optsched.core.errors.UnknownNameError` listing the known ones.
    """
    m = _NAME.match(name.strip())
    model = m.group("model") if m else name
    table = _table()
    if model not in table:
        raise UnknownNameError("job type", model, list(table))
    row = table[model]
    batch = int(m.group("batch")) if m and m.group("batch") else int(row["mini_batch"])
    if batch < 1:
        raise InvalidInstanceError("job-types", "batch size", "must be >= 1", batch)
    return JobType(name=name.strip(), model=model, model_bytes=int(row["model_bytes"]),
                   forward_s_per_sample=float(row["forward_s_per_sample"]),
                   backward_s_per_sample=float(row["backward_s_per_sample"]), mini_batch=batch)


def trace_job_type(name: str, problem: str, where: str) -> JobType:
    """:func:`job_type` for an importer: an unknown name is an :class:`InvalidInstanceError` of
    ``problem`` naming the field ``where`` (e.g. ``"60_job.csv line 4 model_name"``) and the
    known names (CLI exit status 2), so a trace with a job type the table lacks fails on the line
    that names it instead of being dropped."""
    try:
        return job_type(name)
    except UnknownNameError as exc:
        raise InvalidInstanceError(problem, where, f"unknown job type {exc.name!r} (the job-type table "
                                   f"{TABLE_PATH.name} knows {', '.join(sorted(exc.known))})") from None


def job_types() -> dict[str, JobType]:
    """Every base model of the table, with its default mini-batch."""
    return {model: job_type(model) for model in _table()}
