"""The fast instance hash equals the core's canonical-JSON hash; the solve's one clock."""

from __future__ import annotations

import dataclasses
import hashlib
import time

import pytest

import optsched
from optsched.core.clock import Deadline, process_start, set_anchor, take_anchor
from optsched.core.instance import Instance, canonical_json
from optsched.problems.intra_op import IntraOpInstance, generate
from optsched.problems.intra_op.generate import tiny_instances
from optsched.problems.intra_op.instance import _canonical_text


def _generic(inst) -> str:
    return hashlib.sha256(canonical_json(inst.to_json()).encode()).hexdigest()


def _cases():
    yield from (tiny_instances(seed) for seed in range(3))
    yield generate(0, preset="small")
    yield dataclasses.replace(generate(1, preset="random"), name="ünïcode \"quoted\"", provenance="a\nb",
                              usage_limit=None)
    # floats whose shortest repr switches notation (1e16, 1e-05), the largest an instance accepts
    # (MAX_MAGNITUDE, 1e50) and the smallest one, repeated values (the shortcut formats each
    # distinct value once) and the 1e18 sentinel
    vals = [0.0, 0.1, 1e16, 1e-05, 1.5e-4, 1e50, 9.999999999999999e49, 5e-324, 1e18, 123456789.125, 0.1, 3.0]
    yield IntraOpInstance(num_strategies=[len(vals)], cost=vals, usage=vals[::-1], start=[2], end=[7],
                          edge_u=[], edge_v=[], edge_cost=[], usage_limit=0.30000000000000004,
                          labels=tuple(f"s{i}" for i in range(len(vals))))


@pytest.mark.parametrize("inst", list(_cases()), ids=lambda i: i.name or "inst")
def test_fast_hash_is_the_canonical_json_hash(inst):
    assert _canonical_text(inst) == canonical_json(inst.to_json())
    assert inst.sha256() == _generic(inst)


def test_negative_zero_takes_the_generic_path():
    """np.unique merges -0.0 with 0.0, which JSON writes differently: the shortcut refuses."""
    inst = IntraOpInstance(num_strategies=[2], cost=[0.0, -0.0], usage=[1, 1], start=[0], end=[1],
                           edge_u=[], edge_v=[], edge_cost=[])
    assert _canonical_text(inst) is None
    assert inst.sha256() == Instance.sha256(dataclasses.replace(inst)) == _generic(inst)


@pytest.mark.data
def test_fast_hash_on_a_contest_instance():
    from optsched.problems.intra_op import load_iopddl
    from tests.conftest import require_data

    inst = load_iopddl(require_data("iopddl/asplos-2025-iopddl-B.json.gz"))
    assert inst.sha256() == _generic(inst)


class _FakeClock:
    """A perf_counter that moves only when told: the deadline arithmetic is checked exactly,
    with no dependence on how fast the machine runs the test."""

    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_deadline_sub_is_never_later(monkeypatch):
    from optsched.core import clock as clock_module

    fake = _FakeClock()
    monkeypatch.setattr(clock_module.time, "perf_counter", fake)
    d = Deadline.after(10.0)
    assert d.at == 1010.0
    assert d.sub(100.0).at == d.at                       # never later than the parent
    assert d.sub(3.0).at == 1003.0
    assert d.sub(share=0.5).at == 1005.0                 # half of the 10 s left
    fake.now = 1008.0
    assert d.sub(share=0.5).at == 1009.0 and d.remaining() == 2.0 and not d.expired()
    fake.now = 1010.0
    assert d.expired()
    assert not Deadline().limited and Deadline().sub(share=0.5).remaining() == float("inf")


def test_process_start_is_read_from_the_process_age(monkeypatch):
    """The anchor is now minus the process's age, from /proc/self/stat (Linux)."""
    import os

    from optsched.core import clock as clock_module

    if not os.path.exists("/proc/self/stat"):
        pytest.skip("no /proc/self/stat on this system: process_start() is now")
    monkeypatch.setattr(clock_module.time, "perf_counter", _FakeClock(5000.0))
    t = process_start()
    # this interpreter is older than 0 s and younger than an hour, so the anchor lies in that window
    assert 5000.0 - 3600.0 < t <= 5000.0


@pytest.mark.load_sensitive
def test_an_anchor_counts_the_start_up_and_is_consumed():
    """A budget anchored 3 s back leaves about limit - 3 s; the next solve starts its own budget.
    The method keeps MIN_SHARE of the limit when the anchor ate more."""
    from optsched.core.clock import MIN_SHARE

    inst = tiny_instances(0)
    set_anchor(time.perf_counter() - 3.0)
    r = optsched.solve(inst, "greedy", time_limit=10.0)
    assert take_anchor() is None  # consumed by that solve
    assert r.status in ("feasible", "optimal", "time_limit")
    from optsched.core.backends import SolverSettings
    from optsched.core.registry import get_problem
    from optsched.core.solving import SolveContext

    from optsched.core import clock as clock_module
    from optsched.core import solving as solving_module

    # the budget arithmetic, exactly: one fake perf_counter for the context and its Deadline
    fake = _FakeClock(1000.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(clock_module.time, "perf_counter", fake)
        mp.setattr(solving_module.time, "perf_counter", fake)
        prob = get_problem("intra-op")
        ctx = SolveContext(prob, prob.get_method("greedy"), settings=SolverSettings(time_limit=10.0))
        set_anchor(997.0)
        ctx.start_clock()
        assert ctx.clock.remaining() == 7.0  # 10 s counted from the anchor 3 s back
        set_anchor(970.0)
        ctx.start_clock()
        assert ctx.clock.remaining() == MIN_SHARE * 10.0  # the anchor ate it all: MIN_SHARE is kept
    assert take_anchor() is None


@pytest.mark.load_sensitive
def test_the_command_line_anchors_and_a_library_caller_does_not(tmp_path):
    """``python -m optsched.cli solve`` anchors the budget at the process's start (the method's
    own budget is then less than the limit by the start-up); ``optsched.cli.main`` called inside
    another program (here pytest) anchors nothing."""
    import json
    import os
    import subprocess
    import sys

    from optsched.cli import main

    path = tmp_path / "inst.json"
    generate(0, preset="small").save(path)
    out = tmp_path / "r.json"
    assert main(["solve", "intra-op", str(path), "--time-limit", "30", "--quiet", "-o", str(out)]) == 0
    assert take_anchor() is None
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-m", "optsched.cli", "solve", "intra-op", str(path), "--time-limit", "4",
                    "--quiet", "-o", str(out), "--option", "exact=false"], check=True, env=env, capture_output=True)
    stats = json.loads(out.read_text())["stats"]
    # the method's budget (stats budget_s) is what the limit left after start-up (an interpreter
    # and optsched's imports take well over 10 ms): below 4 s
    assert stats["budget_s"] < 4.0 - 0.01
