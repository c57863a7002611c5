"""A contest (IOPDDL) file where an instance is expected: ``optsched solve intra-op FILE.json.gz``
reads it directly (the problem's ``direct_formats``), its reading counted in the time budget; the
result is the one of the imported instance; a file of neither format is one line naming it."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

import optsched
from optsched.cli import main
from optsched.problems.intra_op import generate
from optsched.problems.intra_op.generate import detect_iopddl


def _contest_doc(inst) -> dict:
    """The instance in the contest's format (each node's costs and usages, its [start, end)
    interval, each edge's k_u x k_v matrix row by row)."""
    k = np.asarray(inst.num_strategies)
    cut = np.concatenate([[0], np.cumsum(k)])
    rows = lambda flat: [flat[cut[v]:cut[v + 1]].tolist() for v in range(len(k))]  # noqa: E731
    eu, ev = np.asarray(inst.edge_u), np.asarray(inst.edge_v)
    sizes = k[eu] * k[ev]
    ecut = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    ecost = np.asarray(inst.edge_cost)
    return {"problem": {
        "name": inst.name,
        "nodes": {"intervals": [[int(s), int(e)] for s, e in zip(inst.start, inst.end)],
                  "costs": rows(np.asarray(inst.cost)), "usages": rows(np.asarray(inst.usage))},
        "edges": {"nodes": [[int(u), int(v)] for u, v in zip(eu, ev)],
                  "costs": [ecost[ecut[e]:ecut[e + 1]].tolist() for e in range(len(eu))]},
        "usage_limit": inst.usage_limit}}


@pytest.fixture
def contest(tmp_path):
    """A small generated instance written as a gzipped contest file, and the same as plain JSON."""
    inst = generate(3, graph="random", nodes=10, strategies=3)
    text = json.dumps(_contest_doc(inst), indent=1).encode()
    gz, plain = tmp_path / "c.json.gz", tmp_path / "c.json"
    gz.write_bytes(gzip.compress(text))
    plain.write_bytes(text)
    return gz, plain


@pytest.mark.parametrize("which", [0, 1], ids=["gzip", "plain"])
def test_solve_reads_the_contest_file_directly(tmp_path, contest, which):
    path = contest[which]
    imported, direct, via = tmp_path / "i.json", tmp_path / "r1.json", tmp_path / "r2.json"
    assert main(["import", "iopddl", str(path), "-o", str(imported)]) == 0
    # greedy: deterministic and bounded by the instance's size, no time limit needed
    assert main(["solve", "intra-op", str(path), "--method", "greedy", "-o", str(direct), "--quiet"]) == 0
    assert main(["solve", "intra-op", str(imported), "--method", "greedy", "-o", str(via), "--quiet"]) == 0
    a, b = json.loads(direct.read_text()), json.loads(via.read_text())
    inst = optsched.load_instance(imported)
    assert a["instance_sha256"] == b["instance_sha256"] == inst.sha256()
    assert a["solution"] == b["solution"] and a["objective"] == b["objective"]
    # the library reads it too, as the same instance
    assert optsched.load_instance(path) == inst
    assert optsched.load_instance(path, problem="intra-op") == inst
    # the contest's solution format from the result, the instance again read directly
    sol = tmp_path / "s.txt"
    assert main(["export", "intra-op", str(path), "--solution", str(direct), "--format", "iopddl",
                 "-o", str(sol)]) == 0
    assert json.loads(sol.read_text()) == a["solution"]["strategy"]


def test_reading_the_contest_file_counts_in_the_budget(monkeypatch, tmp_path, contest):
    """A fake clock: the process starts at 1000, reading the file takes 4 s; a 10 s limit leaves
    the method a deadline at 1010, not 1014 (the budget counts from the process start)."""
    from optsched.core import clock as clock_module
    from optsched.core import solving as solving_module
    from optsched.problems.intra_op.problem import PROBLEM

    class Fake:
        now = 1000.0

        def __call__(self):
            return self.now

    fake = Fake()
    for mod in (clock_module, solving_module):
        monkeypatch.setattr(mod.time, "perf_counter", fake)
    monkeypatch.setattr(clock_module, "is_command_line", lambda: True)
    monkeypatch.setattr(clock_module, "process_start", lambda: 1000.0)
    real = PROBLEM.importers["iopddl"]

    def slow(path, *args, **kwargs):
        fake.now += 4.0
        return real(path, *args, **kwargs)

    monkeypatch.setitem(PROBLEM.importers, "iopddl", slow)
    deadlines = []
    start = solving_module.SolveContext.start_clock

    def record(self):
        start(self)
        deadlines.append(self.deadline)

    monkeypatch.setattr(solving_module.SolveContext, "start_clock", record)
    out = tmp_path / "r.json"
    assert main(["solve", "intra-op", str(contest[0]), "--method", "greedy", "--time-limit", "10", "-o", str(out),
                 "--quiet"]) == 0
    assert deadlines == [1010.0]


def test_neither_format_is_one_line_naming_the_file(tmp_path, capsys):
    path = tmp_path / "other.json"
    path.write_text('{"nodes": [1, 2]}\n')
    assert main(["solve", "intra-op", str(path), "--method", "greedy"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "other.json" in err and "Traceback" not in err
    with pytest.raises(optsched.InvalidInstanceError, match="other.json"):
        optsched.load_instance(path)
    gz = tmp_path / "other.json.gz"
    gz.write_bytes(gzip.compress(b'{"nodes": [1, 2]}'))
    assert main(["solve", "intra-op", str(gz), "--method", "greedy"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "other.json.gz" in err


def test_a_contest_file_is_not_another_problems_instance(contest, capsys):
    other = next(name for name in optsched.core.registry.problems() if name != "intra-op")
    assert main(["solve", other, str(contest[0])]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "c.json.gz" in err and "intra-op" in err
    with pytest.raises(optsched.InvalidInstanceError, match="intra-op"):
        optsched.load_instance(contest[0], problem=other)


def test_detector_takes_the_contest_head_only(tmp_path):
    inst = generate(0, preset="tiny")
    assert detect_iopddl(json.dumps(_contest_doc(inst)).encode()[:4096])
    assert not detect_iopddl(inst.dumps().encode()[:4096])               # optsched's own instance file
    saved = tmp_path / "i.json"
    inst.save(saved)
    assert not detect_iopddl(saved.read_bytes()[:4096])
    result = optsched.solve(inst, "greedy")
    assert not detect_iopddl(result.dumps().encode()[:4096])
    assert not detect_iopddl(b'{"nodes": {"problem": {}}}')
