"""Progress of long runs: the line policy (live on a terminal, throttled log lines elsewhere), the
solve line with HiGHS' incumbent/bound/gap, repro's reuse line and ETA. Clocks are fake: no
timing assertions."""

from __future__ import annotations

import io

import optsched
from optsched.cli import Progress, main
from optsched.core.backends import highs as highs_backend
from optsched.repro.progress import StatusLine, estimate_eta, repro_line, solve_line
from tests.declared import exact_model_method, pick, solves_tiny_exactly


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_log_lines_are_throttled_and_start_after_one_interval():
    clock, out = Clock(), io.StringIO()
    line = StatusLine(out, interval=5.0, heartbeat=30.0, clock=clock)
    assert not line.live
    assert not line.update("a")            # t = 0: a short run writes nothing
    clock.now += 4.9
    assert not line.update("b")
    clock.now += 0.2                        # 5.1 s: due
    assert line.update("c")
    clock.now += 3.0
    assert not line.update("d")             # within 5 s of the last line
    clock.now += 3.0
    assert not line.update("d", changed=False)  # unchanged: waits for the heartbeat
    clock.now += 25.0
    assert line.update("d", changed=False)  # 31 s after the last line
    assert line.update("forced", force=True)
    assert out.getvalue() == "c\nd\nforced\n"


def test_live_line_is_rewritten_in_place_and_cleared():
    out = Terminal()
    line = StatusLine(out, clock=Clock())
    assert line.live and line.update("long text") and line.update("short")
    line.clear()
    assert out.getvalue() == "\rlong text\rshort    " + "\r" + " " * 5 + "\r"
    assert "\n" not in out.getvalue()


def test_solve_progress_writes_solver_state_when_it_changes():
    clock, out = Clock(), io.StringIO()
    progress = Progress("a-problem/milp", out, clock=clock)
    progress.on_solver({"incumbent": 10.0, "bound": 12.0, "gap": 0.2, "nodes": 7})
    assert not progress.tick()
    clock.now += 6
    assert progress.tick()
    clock.now += 6
    assert not progress.tick()              # nothing new: no line until the heartbeat
    progress.on_solver({"incumbent": 11.0, "bound": 12.0, "gap": 1 / 11, "nodes": 9})
    assert progress.tick()
    lines = out.getvalue().splitlines()
    assert lines == ["a-problem/milp: 6 s  incumbent 10  bound 12  gap 20%  nodes 7",
                     "a-problem/milp: 12 s  incumbent 11  bound 12  gap 9.09%  nodes 9"]


def test_quiet_progress_listens_to_nothing_and_writes_nothing():
    out = Terminal()
    with Progress("x/y", out, enabled=False) as progress:
        assert highs_backend._PROGRESS_LISTENERS == []
        progress("working", 0.5)
    assert out.getvalue() == ""
    with Progress("x/y", out, clock=Clock()) as progress:
        assert highs_backend._PROGRESS_LISTENERS == [progress.on_solver]
    assert highs_backend._PROGRESS_LISTENERS == []


def test_method_messages_are_shown():
    assert solve_line("a-problem/online", 61.0, None, "simulating", 0.5) == \
        "a-problem/online: 1 min 01 s  50.0%  simulating"


def test_cli_quiet_flag_and_short_solves_keep_stderr_clean(capsys, tmp_path):
    """A short exact solve (on a back-end, which has progress listeners) of a tiny instance, with
    and without --quiet, leaves stderr empty (the problem: the registry's first with a tiny preset
    solved exactly)."""
    problem = pick(solves_tiny_exactly, "with a tiny preset solved exactly on a back-end")
    path = tmp_path / "i.json"
    optsched.generate(problem.name, seed=2, preset="tiny").save(path)
    for extra in ([], ["--quiet"]):
        assert main(["solve", problem.name, str(path), "--method", exact_model_method(problem), *extra]) == 0
        assert capsys.readouterr()[1] == ""


# -- repro ----------------------------------------------------------------------------------------
def test_eta_from_throughput():
    assert estimate_eta(computed=2, remaining=8, elapsed=10.0) == 40.0
    assert estimate_eta(computed=0, remaining=8, elapsed=10.0) is None
    assert repro_line("T8", 12, 20, 10, 10.0) == "T8: 12/20 cells (10 reused, 2 computed), 10 s, ETA 40 s"


def test_repro_progress_says_what_is_reused_and_logs_eta():
    from optsched.repro.runner import _Progress

    clock, out = Clock(), io.StringIO()
    progress = _Progress("T9", total=10, done=4, stream=out, clock=clock)
    progress.begin()
    clock.now += 2
    progress.step()                        # 2 s: too early for a log line
    clock.now += 4
    progress.step()                        # 6 s, 2 computed, 4 left: ETA 12 s
    progress.finish("10 cells done")
    assert out.getvalue().splitlines() == [
        "T9: 10 cells, 4 reused from the results database, 6 to compute",
        "T9: 6/10 cells (4 reused, 2 computed), 6 s, ETA 12 s",
        "T9: 10 cells done"]
