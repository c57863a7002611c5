"""The clock inside pipeline-schedule's loops (the list scheduler, the MILP's construction) and the
MILP's size rule: a stopped method returns ``time_limit`` (``milp`` with the list schedule), and a
model past :data:`MILP_MAX_NONZEROS` is refused before it is built.

No wall time is involved: each loop gets a clock that counts its polls (and the methods a context
whose budget is spent at its k-th read), so the checks are exact on any machine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

import optsched
from optsched.core.backends import SolverSettings
from optsched.core.errors import NotApplicable
from optsched.core.registry import get_problem
from optsched.core.solving import SolveContext, TimeLimitReached
from optsched.problems.pipeline_schedule import algorithms, generate
from optsched.problems.pipeline_schedule.algorithms import (MILP_MAX_NONZEROS, build_model, list_order,
                                                            model_size)
from optsched.problems.pipeline_schedule.instance import check

from ..clock_support import CountingContext, Polls

PROBLEM = get_problem("pipeline-schedule")


@pytest.fixture(scope="module")
def inst():
    # 3 stages, 5 microbatches, 1F1B caps (3, 2, 1) below M: both loops of the model have work
    return generate(2, stages=3, microbatches=5, cap="1f1b")


def test_list_scheduler_polls_every_block_of_placements(inst, monkeypatch):
    K, M = inst.stages, inst.microbatches
    polls = Polls()
    list_order(inst, polls)
    assert polls.calls == math.ceil(2 * K * M / algorithms.POLL_STEPS)
    monkeypatch.setattr(algorithms, "POLL_STEPS", 1)
    polls = Polls()
    list_order(inst, polls)
    assert polls.calls == 2 * K * M
    stop = Polls(stop_at=7)
    with pytest.raises(TimeLimitReached):
        list_order(inst, stop)
    assert stop.calls == 7


def test_model_construction_polls_every_row_of_its_loops(inst):
    K, M = inst.stages, inst.microbatches
    capped = sum(1 for c in inst.cap_array if c < M)
    assert capped == 3
    polls = Polls()
    build_model(inst, poll=polls)
    assert polls.calls == K * 2 * M + capped * M  # the load cuts, then the caps
    for stop_at in (1, K * 2 * M, K * 2 * M + 1):
        stop = Polls(stop_at)
        with pytest.raises(TimeLimitReached):
            build_model(inst, poll=stop)
        assert stop.calls == stop_at


def _run(inst, method: str, expire_at: int | None):
    ctx = CountingContext(PROBLEM, PROBLEM.get_method(method), settings=SolverSettings(time_limit=3600.0),
                          expire_at=expire_at)
    try:
        out = PROBLEM.get_method(method).run(inst, ctx)
    except TimeLimitReached as exc:
        out = exc.incumbent
    return out, ctx.reads


def test_milp_stopped_while_building_returns_the_list_schedule(inst, monkeypatch):
    """The k-th read says "spent", for every k from the list scheduler's first poll to the
    model's last: the run stops there with time_limit and the list schedule (or, stopped
    inside the list scheduler, nothing)."""
    monkeypatch.setattr(algorithms, "POLL_STEPS", 1)
    K, M = inst.stages, inst.microbatches
    listed = optsched.solve(inst, "list")
    polls = 2 * K * M + K * 2 * M + sum(1 for c in inst.cap_array if c < M) * M
    full, total = _run(inst, "milp", None)
    assert full.status == "optimal" and total == polls
    for k in range(1, polls + 1):
        out, reads = _run(inst, "milp", k)
        assert reads == k, f"{reads} reads after the clock expired at read {k}"
        if k <= 2 * K * M:
            assert out is None  # stopped inside the list scheduler: no schedule yet
            continue
        assert out.status == "time_limit" and out.solution is not None
        assert check(inst, out.solution).feasible
        assert out.objective == listed.objective


def test_list_stopped_answers_time_limit(inst):
    r = optsched.solve(inst, "list", time_limit=1e-9)
    assert r.status == "time_limit"


def test_model_size_is_the_built_model(inst):
    for case in (inst, optsched.generate("pipeline-schedule", seed=0, preset="identical"), generate(5, stages=1, microbatches=1),
                 generate(1, stages=2, microbatches=4, cap="2")):
        model = build_model(case)
        assert model_size(case) == (model.num_cols, model.matrix.nnz)


def test_milp_past_the_nonzero_cap_is_refused_before_building(monkeypatch):
    """64 stages x 512 microbatches: 335 million nonzeros, refused (exit 2) without building."""
    big = generate(0, stages=64, microbatches=512)
    assert model_size(big)[1] > MILP_MAX_NONZEROS
    ok, why = PROBLEM.get_method("milp").applicable(big)
    assert not ok and "nonzeros" in why

    def never(*args, **kwargs):
        raise AssertionError("the model was built")

    monkeypatch.setattr(algorithms, "build_model", never)
    with pytest.raises(NotApplicable):
        optsched.solve(big, "milp", time_limit=5)
    # the largest instance of that shape within the cap applies
    assert PROBLEM.get_method("milp").applicable(generate(0, stages=64, microbatches=125))[0]


def test_generator_refuses_more_stage_microbatches_than_measured():
    """K x M <= 131,072 (the schedule's JSON and its check are linear in K M): the largest
    accepted, one row more refused, naming both options."""
    from optsched.core.errors import InvalidOptionError
    from optsched.problems.pipeline_schedule.generate import MAX_STAGE_MICROBATCHES

    assert generate(0, stages=1024, microbatches=MAX_STAGE_MICROBATCHES // 1024).stages == 1024
    with pytest.raises(InvalidOptionError, match="stages x microbatches"):
        generate(0, stages=1024, microbatches=MAX_STAGE_MICROBATCHES // 1024 + 1)


@dataclass
class ShortContext(SolveContext):
    """A context with ``left`` seconds left on its clock (the clock is not read otherwise)."""

    left: float = 0.0

    def remaining(self) -> float:
        return self.left


def test_milp_without_the_time_to_build_answers_the_list_schedule(inst, monkeypatch):
    """Building the model and handing it to the solver are not covered by the solver's limit:
    with less time left than the model's nonzeros need (SECONDS_PER_NONZERO each), milp does not
    build it and answers the list schedule with time_limit."""
    need = model_size(inst)[1] * algorithms.SECONDS_PER_NONZERO
    meth = PROBLEM.get_method("milp")
    listed = optsched.solve(inst, "list")
    built = []
    real = algorithms.build_model
    monkeypatch.setattr(algorithms, "build_model", lambda *a, **k: built.append(1) or real(*a, **k))
    short = ShortContext(PROBLEM, meth, settings=SolverSettings(time_limit=3600.0), left=need * 0.99)
    out = meth.run(inst, short)
    assert out.status == "time_limit" and out.stats["milp_skipped"] and not built
    assert out.objective == listed.objective and check(inst, out.solution).feasible
    enough = ShortContext(PROBLEM, meth, settings=SolverSettings(time_limit=3600.0), left=3600.0)
    assert meth.run(inst, enough).status == "optimal" and built
