"""The portfolio's child members: their CPU priority (below the caller's own member), the warm spare
kept for the next solve in the same process, and that no child outlives its parent.

The waits are for events (a child's priority set, a child gone) with guards scaled by the
machine's load (:mod:`tests.core.patience`): a child at idle priority gets almost no CPU on a busy
machine, which makes it slow, never wrong."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import optsched
from optsched.core.backends import SolverSettings, get_backend
from optsched.core.backends import portfolio as pf
from optsched.core.errors import SolverError
from tests.core.patience import patient, wait_until
from tests.core.picks import MILP_PROBLEM

pytestmark = pytest.mark.load_sensitive

build_model = optsched.get_problem(MILP_PROBLEM).build_model

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (or is a zombie waiting to be reaped by whoever adopted it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux-only")
def test_child_member_runs_below_the_caller_in_its_session():
    """``idle``: SCHED_IDLE (only cycles nobody else wants); ``low``: niceness 19; both in the
    caller's session (one scheduler autogroup) but their own process group (no terminal Ctrl-C)."""
    procs = {p: pf._spawn("scip", p) for p in ("idle", "low", "normal")}
    try:
        # the child sets its priority as its first statement after the parent-death request
        wait_until(lambda: (os.sched_getscheduler(procs["idle"].pid) == os.SCHED_IDLE
                            and os.getpriority(os.PRIO_PROCESS, procs["low"].pid) == 19),
                   "the children's priorities set")
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
    # a limit far beyond the solve (under a second): its outcome, optimal, does not depend on speed
    first = backend.solve(model, SolverSettings(time_limit=3600))
    spare = pf._SPARES[("scip", "idle")]
    assert spare.poll() is None
    second = backend.solve(model, SolverSettings(time_limit=3600))
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
    """The parent starts a spare, waits until the spare has asked for the parent-death signal (its
    priority is lowered right after), prints its id and dies without stopping it: the kernel must
    end the spare. (Killed before that request, a spare sees that its parent is gone and exits on
    its own: the wait makes the test check the parent-death signal itself.)"""
    guard = patient(120.0)
    code = ("import os, sys, time\n"
            "from optsched.core.backends.portfolio import _spawn\n"
            "p = _spawn('scip', 'idle')\n"
            "def lowered():\n"
            "    try:\n"
            "        return os.sched_getscheduler(p.pid) == os.SCHED_IDLE or os.getpriority(os.PRIO_PROCESS, p.pid) == 19\n"
            "    except OSError:\n"
            "        return False\n"
            f"end = time.monotonic() + {guard!r}\n"
            "while not lowered() and time.monotonic() < end:\n"
            "    time.sleep(0.02)\n"
            "print(p.pid, lowered(), flush=True)\n"
            "os._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=2 * guard,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    pid, lowered = out.stdout.split()
    assert lowered == "True", "the spare never lowered its priority (it did not start)"
    try:
        wait_until(lambda: _gone(int(pid)), "an orphaned spare ended", 60.0)
    finally:
        if not _gone(int(pid)):
            os.kill(int(pid), 9)
