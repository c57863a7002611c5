"""Loaders for the public job traces in the data directory (formats in ``shared/data/README.md``).

* Gavel's Philly-derived traces (``traces/gavel_philly/*.trace``): one job per line, tab
  separated: job type with batch size (``"ResNet-50 (batch size 64)"``), command, steps-flag
  argument, needs-data flag, total steps, arrival time in seconds, scale factor (= GPUs); or the
  10 columns Gavel's ``parse_trace`` reads (job type, command, working directory, steps flag,
  needs-data flag, total steps, scale factor, priority weight, SLO, arrival time).
* Tiresias' ``60_job.csv``: ``job_id, num_gpu, submit_time, iterations, model_name, duration,
  interval`` (in any order; further columns are ignored, as Tiresias' ``csv.DictReader``
  does); and its cluster specs (``cluster_spec.csv``, ``n32g4.csv``, ...): ``num_switch,
  num_node_p_switch, num_gpu_p_node, num_cpu_p_node, mem_p_node``.

Every malformed line raises :class:`~optsched.core.errors.InvalidInstanceError` naming the file,
the line and the column; nothing is skipped silently.

>>> import tempfile, os
>>> line = "ResNet-50 (batch size 64)\\tcd x && python3 train.py\\t-n\\t1\\t1000\\t12.5\\t4\\n"
>>> with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as fh:
...     _ = fh.write(line)
>>> jobs = load_gavel_trace(fh.name); os.unlink(fh.name)
>>> jobs[0].model, jobs[0].batch_size, jobs[0].gpus, jobs[0].total_steps, jobs[0].arrival_s
('ResNet-50', 64, 4, 1000, 12.5)
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path

from optsched.core.errors import InvalidInstanceError
from optsched.core.textfile import read_text

__all__ = ["TraceJob", "load_gavel_trace", "TiresiasJob", "load_tiresias_jobs", "ClusterSpec",
           "load_tiresias_cluster", "servers_to_hold"]

_TYPE = re.compile(r"^(?P<model>.+?)(?: \(batch size (?P<batch>\d+)\))?$")


@dataclass(frozen=True)
class TraceJob:
    """One job of a Gavel/Philly-derived trace (units as in the file)."""

    index: int
    job_type: str
    model: str
    batch_size: int | None
    command: str
    steps_flag: str
    needs_data: bool
    total_steps: int
    arrival_s: float
    gpus: int
    line: int = 0  #: the line of the file (1-based), for error messages


def servers_to_hold(gpus, gpus_per_server: int, default: int) -> tuple[int, str]:
    """The servers of an importer's default cluster [ours]: ``default``, or the fewest servers of
    ``gpus_per_server`` GPUs that hold the largest of the jobs' ``gpus`` when that is more; and
    the note for the provenance (empty when the default holds).

    >>> servers_to_hold([2, 32], 4, 4)
    (8, '; 8 servers (default 4, grown to hold the largest job)')
    >>> servers_to_hold([2, 8], 4, 4)
    (4, '')
    """
    servers = max(default, -(-max(int(g) for g in gpus) // gpus_per_server))
    note = f"; {servers} servers (default {default}, grown to hold the largest job)" if servers > default else ""
    return servers, note


def _fail(source: str, line: int, column: str, rule: str, got=...) -> InvalidInstanceError:
    return InvalidInstanceError("trace", f"{source} line {line} {column}", rule, got)


def _read_lines(path: str | Path) -> list[str]:
    return read_text(path, "trace").splitlines()


def _integral(source: str, number: int, column: str, text: str, what: str) -> int:
    """An integer column; ``"1000.0"`` is accepted as 1000, ``"12.5"`` is not."""
    try:
        value = float(text)
    except ValueError:
        raise _fail(source, number, column, f"must be {what}", text) from None
    if not math.isfinite(value) or value != int(value):
        raise _fail(source, number, column, f"must be {what}", text)
    return int(value)


#: the columns of a Gavel trace line, by their count (the names its errors use)
_GAVEL_COLUMNS = {
    7: ("job_type", "command", "num_steps_arg", "needs_data", "total_steps", "arrival", "scale_factor"),
    10: ("job_type", "command", "working_directory", "num_steps_arg", "needs_data", "total_steps", "scale_factor",
         "priority_weight", "SLO", "arrival"),
}


def load_gavel_trace(path: str | Path) -> list[TraceJob]:
    """Every job of a Gavel ``.trace`` file, in file order (arrivals need not be sorted)."""
    source = Path(path).name
    jobs = []
    for number, raw in enumerate(_read_lines(path), start=1):
        if not raw.strip():
            continue
        cols = raw.rstrip().split("\t")  # trailing blanks or tabs after the last column
        names = _GAVEL_COLUMNS.get(len(cols))
        if names is not None:
            for column, text in zip(names, cols):   # an empty column is an error, never a default
                if not text.strip():
                    raise _fail(source, number, column, "must not be empty")
        if len(cols) == 7:  # scheduler/traces/msr/*: no working directory, priority or SLO
            job_type, command, flag, needs, steps, arrival, scale = cols
        elif len(cols) == 10:  # Gavel's parse_trace (scheduler/utils.py) [code]
            job_type, command, _workdir, flag, needs, steps, scale, priority, slo, arrival = cols
            for column, text in (("priority_weight", priority), ("SLO", slo)):
                try:
                    float(text)
                except ValueError:
                    raise _fail(source, number, column, "must be a number", text) from None
        else:
            raise _fail(source, number, "(columns)", "must have 7 (msr traces) or 10 (Gavel's parse_trace) "
                        "tab-separated columns", len(cols))
        needs, steps, arrival, scale = needs.strip(), steps.strip(), arrival.strip(), scale.strip()
        m = _TYPE.match(job_type.strip())
        if not job_type.strip():
            raise _fail(source, number, "job_type", "must not be empty")
        total_steps = _integral(source, number, "total_steps", steps, "an integer")
        try:
            arrival_s = float(arrival)
        except ValueError:
            raise _fail(source, number, "arrival", "must be a number of seconds", arrival) from None
        gpus = _integral(source, number, "scale_factor", scale, "an integer GPU count")
        if needs not in ("0", "1"):
            raise _fail(source, number, "needs_data", "must be 0 or 1", needs)
        if total_steps <= 0:
            raise _fail(source, number, "total_steps", "must be > 0", total_steps)
        if not (arrival_s >= 0 and math.isfinite(arrival_s)):
            raise _fail(source, number, "arrival", "must be >= 0", arrival_s)
        if gpus < 1:
            raise _fail(source, number, "scale_factor", "must be >= 1", gpus)
        jobs.append(TraceJob(index=len(jobs), job_type=job_type.strip(), model=m.group("model"),
                             batch_size=int(m.group("batch")) if m.group("batch") else None,
                             command=command, steps_flag=flag, needs_data=needs == "1",
                             total_steps=total_steps, arrival_s=arrival_s, gpus=gpus, line=number))
    if not jobs:
        raise InvalidInstanceError("trace", f"{source}", "holds no job")
    return jobs


@dataclass(frozen=True)
class TiresiasJob:
    """One job of Tiresias' ``60_job.csv`` (times in seconds)."""

    job_id: int
    gpus: int
    submit_time_s: float
    iterations: int
    model: str
    duration_s: float
    interval_s: float
    line: int = 0  #: the line of the file (1-based), for error messages


def _csv_rows(path: str | Path, header: list[str]) -> list[tuple[int, dict]]:
    source = Path(path).name
    lines = _read_lines(path)
    reader = csv.reader(lines)
    names = [h.strip() for h in next(reader, [])]
    missing = [h for h in header if h not in names]
    if missing:
        raise _fail(source, 1, "(header)", f"lacks the column {missing[0]!r} (needs {','.join(header)}, "
                    "in any order; other columns are ignored)", names)
    twice = sorted({h for h in names if names.count(h) > 1 and h in header})
    if twice:
        raise _fail(source, 1, "(header)", f"names the column {twice[0]!r} twice")
    at = {h: names.index(h) for h in header}
    rows = []
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue  # a blank line
        if len(cells) != len(names):
            raise _fail(source, number, "(columns)", f"must have {len(names)} columns like the header", len(cells))
        rows.append((number, {h: cells[at[h]].strip() for h in header}))
    return rows


def _number(source, number, row, key, kind=float, minimum=0):
    try:
        value = kind(row[key])
    except ValueError:
        raise _fail(source, number, key, f"must be {'an integer' if kind is int else 'a number'}", row[key]) from None
    if value < minimum:
        raise _fail(source, number, key, f"must be >= {minimum}", value)
    return value


def load_tiresias_jobs(path: str | Path) -> list[TiresiasJob]:
    """The jobs of Tiresias' job CSV (``60_job.csv``), in file order."""
    source = Path(path).name
    header = ["job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration", "interval"]
    jobs = []
    for number, row in _csv_rows(path, header):
        jobs.append(TiresiasJob(
            job_id=_number(source, number, row, "job_id", int),
            gpus=_number(source, number, row, "num_gpu", int, 1),
            submit_time_s=_number(source, number, row, "submit_time"),
            iterations=_number(source, number, row, "iterations", int, 1),
            model=row["model_name"],
            duration_s=_number(source, number, row, "duration"),
            interval_s=_number(source, number, row, "interval"), line=number))
    if not jobs:
        raise InvalidInstanceError("trace", source, "holds no job")
    return jobs


@dataclass(frozen=True)
class ClusterSpec:
    """A Tiresias cluster: switches x nodes per switch, each node with GPUs, CPUs and memory (GB)."""

    switches: int
    nodes_per_switch: int
    gpus_per_node: int
    cpus_per_node: int
    memory_gb_per_node: float

    @property
    def nodes(self) -> int:
        return self.switches * self.nodes_per_switch


def load_tiresias_cluster(path: str | Path) -> ClusterSpec:
    """The first (only) row of a Tiresias cluster-spec CSV."""
    source = Path(path).name
    header = ["num_switch", "num_node_p_switch", "num_gpu_p_node", "num_cpu_p_node", "mem_p_node"]
    rows = _csv_rows(path, header)
    if len(rows) != 1:
        raise InvalidInstanceError("trace", source, "must hold exactly one cluster row", len(rows))
    number, row = rows[0]
    return ClusterSpec(_number(source, number, row, "num_switch", int, 1),
                       _number(source, number, row, "num_node_p_switch", int, 1),
                       _number(source, number, row, "num_gpu_p_node", int, 1),
                       _number(source, number, row, "num_cpu_p_node", int, 0),
                       _number(source, number, row, "mem_p_node", float, 0))
