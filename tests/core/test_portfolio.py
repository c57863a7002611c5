"""The portfolio's child members: their CPU priority (below the caller's own member), the warm spare
kept for the next solve in the same process, and that no child outlives its parent."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import optsched
from optsched.core.backends import SolverSettings, get_backend
from optsched.core.backends import portfolio as pf
from optsched.core.errors import SolverError
from tests.core.picks import MILP_PROBLEM

build_model = optsched.get_problem(MILP_PROBLEM).build_model

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int, within_s: float = 20.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in ("Z", "X"):  # exited, waiting to be reaped by whoever adopted it
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux-only")
def test_child_member_runs_below_the_caller_in_its_session():
    """``idle``: SCHED_IDLE (only cycles nobody else wants); ``low``: niceness 19; both in the
    caller's session (one scheduler autogroup) but their own process group (no terminal Ctrl-C)."""
    procs = {p: pf._spawn("scip", p) for p in ("idle", "low", "normal")}
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the child sets its priority as its first statement
            if (os.sched_getscheduler(procs["idle"].pid) == os.SCHED_IDLE
                    and os.getpriority(os.PRIO_PROCESS, procs["low"].pid) == 19):
                break
            time.sleep(0.05)
        assert os.sched_getscheduler(procs["idle"].pid) == os.SCHED_IDLE
        assert os.getpriority(os.PRIO_PROCESS, procs["low"].pid) == 19
        assert os.sched_getscheduler(procs["normal"].pid) == os.sched_getscheduler(0)
        assert os.getpriority(os.PRIO_PROCESS, procs["normal"].pid) == os.getpriority(os.PRIO_PROCESS, 0)
        for p in procs.values():
            assert os.getpgid(p.pid) == p.pid and os.getsid(p.pid) == os.getsid(0)
    finally:
        for p in procs.values():
            p.kill()
            p.communicate()


def test_warm_spare_is_used_by_the_next_solve_and_discarded():
    model = build_model(optsched.generate(MILP_PROBLEM, seed=2, items=20, rows=2))
    backend = get_backend("portfolio:highs+scip")
    pf.discard_spares()
    first = backend.solve(model, SolverSettings(time_limit=30))
    spare = pf._SPARES[("scip", "idle")]
    assert spare.poll() is None
    second = backend.solve(model, SolverSettings(time_limit=30))
    assert first.stats["portfolio_warm_children"] == [] and second.stats["portfolio_warm_children"] == ["scip"]
    assert first.stats["portfolio_local"] == second.stats["portfolio_local"] == "highs"
    assert first.status == second.status == "optimal" and first.objective == second.objective
    assert spare.poll() is not None  # the second solve took it (and stopped or finished it)
    replacement = pf._SPARES[("scip", "idle")]
    pf.discard_spares()
    assert replacement.poll() is not None and not pf._SPARES
    cold = pf.PortfolioBackend(("highs", "scip"), keep_warm=False).solve(model)
    assert cold.objective == first.objective and not pf._SPARES


def test_child_priority_is_checked():
    with pytest.raises(SolverError, match="child_priority"):
        pf.PortfolioBackend(("highs", "scip"), child_priority="high")


def test_a_spare_exits_when_its_parent_dies():
    code = ("from optsched.core.backends.portfolio import _spawn\n"
            "p = _spawn('scip', 'idle')\n"
            "print(p.pid, flush=True)\n"
            "import os; os._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert _gone(int(out.stdout.split()[0])), "an orphaned spare kept running"
