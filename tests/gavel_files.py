"""A tiny hand-written pair of Gavel files shared by the importers' hand-computed tests.

Gavel's ``simulation_throughputs.json`` maps, per accelerator, ``"('<type>', scale)"`` to the
isolated steps/s under ``"null"`` and, per other scale-1 type, ``[this job's, the other's]``
co-located steps/s; its trace is tab separated (job type, command, ..., total steps, arrival
seconds, scale factor = GPUs). Every number below is chosen so that the imported values can be
computed by hand in each test.
"""

from __future__ import annotations

import json

A, B = "A (batch size 8)", "B (batch size 8)"


def gavel_key(name: str, scale: int = 1) -> str:
    """The key Gavel's throughput file uses for a (job type, scale factor)."""
    return str((name, scale))


THROUGHPUTS = {"v100": {
    gavel_key(A): {"null": 10.0, gavel_key(A): [8.0, 8.0], gavel_key(B): [5.0, 4.0]},
    gavel_key(B): {"null": 4.0, gavel_key(A): [2.0, 6.0], gavel_key(B): [0.0, 0.0]},
    gavel_key(A, 2): {"null": 16.0}}}


def write_gavel_files(tmp_path, trace_text: str):
    """Write the throughput file and ``trace_text`` as a trace into ``tmp_path``; return
    ``(trace path, throughputs path)``."""
    tp = tmp_path / "throughputs.json"
    tp.write_text(json.dumps(THROUGHPUTS))
    trace = tmp_path / "t.trace"
    trace.write_text(trace_text)
    return trace, tp
