"""The clock inside ps-locality's loops (the baselines' slots and placements, rr's trials and
repair) and the model-size rule: a model past :data:`.model.MAX_NONZEROS` is refused (exit 2)
before it is built; ``lower-bound`` then answers the sum of solo times.

No wall time is involved: each loop gets a clock that counts its polls (and ``rr`` a context whose
budget is spent at its k-th read), so the checks are exact on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import optsched
from optsched.core.backends import SolverSettings
from optsched.core.errors import NotApplicable
from optsched.core.registry import get_problem
from optsched.core.solving import SolveContext, TimeLimitReached
from optsched.problems.ps_locality import algorithms, model
from optsched.problems.ps_locality.instance import check
from optsched.problems.ps_locality.model import build_ip, build_model, model_nonzeros, offline_data, solo_slots
from optsched.problems.ps_locality.slots import drf, fifo_locality

from ..clock_support import CountingContext, Polls
from .helpers import instance, job

PROBLEM = get_problem("ps-locality")


@pytest.fixture(scope="module")
def small():
    return optsched.generate("ps-locality", seed=1, preset="small")


def test_fifo_polls_every_slot_and_every_job_placed(small):
    """One poll per slot walked plus one per (slot, unfinished arrived job): c_max + 1 + the
    total flow time (each job is placed in every slot from its arrival to its completion)."""
    polls = Polls()
    s = fifo_locality(small, polls)
    c_max = int(s.completion.max())
    assert c_max >= int(small.arrival.max())
    assert polls.calls == c_max + 1 + int(s.objective())


@pytest.mark.parametrize("policy", [fifo_locality, drf])
def test_baselines_poll_in_slots_without_work(policy):
    """A job that arrives in slot 3: the first three slots place nothing, and the clock is still
    read in each (a stop in slot 0 stops the walk)."""
    late = instance([job("a", 2.0, arrival=3)], horizon=8)
    polls = Polls()
    policy(late, polls)
    assert polls.calls >= 4
    stop = Polls(stop_at=1)
    with pytest.raises(TimeLimitReached):
        policy(late, stop)
    assert stop.calls == 1


def test_drf_polls_every_worker_offered(small):
    polls = Polls()
    s = drf(small, polls)
    slots = max(int(s.completion.max()), int(small.arrival.max())) + 1
    assert polls.calls > slots + small.num_jobs  # one per slot and at least one per job and slot
    stop = Polls(stop_at=polls.calls // 2)
    with pytest.raises(TimeLimitReached):
        drf(small, stop)
    assert stop.calls == polls.calls // 2


def _run(inst, method: str, expire_at: int | None, **options):
    meth = PROBLEM.get_method(method)
    ctx = CountingContext(PROBLEM, meth, settings=SolverSettings(time_limit=3600.0),
                          options=meth.resolve_options(options), expire_at=expire_at)
    try:
        out = meth.run(inst, ctx)
    except TimeLimitReached as exc:
        out = exc.incumbent
    return out, ctx.reads


def test_rr_stopped_at_every_read_keeps_its_best_trial(small):
    """rr reads the clock once per trial and once per slot of each repair; a stop at any read
    ends the run there with time_limit and the best repaired schedule so far (none before the
    first trial is repaired)."""
    full, total = _run(small, "rr", None, trials=3)
    assert full.status == "feasible" and total > 3 * 2  # more reads than trials: the repair polls
    first = None
    for k in range(1, total + 1):
        out, reads = _run(small, "rr", k, trials=3)
        assert reads == k
        if out is None:
            assert first is None, "a stop after a repaired trial must keep it"
            continue
        first = first or k
        assert out.status == "time_limit" and check(small, out.solution).feasible
        assert out.objective >= full.objective and out.bound == full.bound
    assert first is not None and first < total


@pytest.mark.parametrize("method", ["milp", "lp", "rr"])
def test_models_past_the_cap_are_refused_before_building(small, method, monkeypatch):
    nnz = model_nonzeros(offline_data(small))
    assert nnz == build_ip(small).matrix.nnz
    monkeypatch.setattr(model, "MAX_NONZEROS", nnz - 1)

    def never(*args, **kwargs):
        raise AssertionError("the model was built")

    monkeypatch.setattr(algorithms, "build_model", never)
    with pytest.raises(NotApplicable, match="nonzeros"):
        optsched.solve(small, method)
    monkeypatch.setattr(algorithms, "build_model", build_model)
    monkeypatch.setattr(model, "MAX_NONZEROS", nnz)  # exactly at the cap: built and solved
    assert optsched.solve(small, method).status in ("optimal", "feasible")


def test_lower_bound_past_the_cap_answers_the_solo_sum(small, monkeypatch):
    monkeypatch.setattr(model, "MAX_NONZEROS", 10)
    r = optsched.solve(small, "lower-bound")
    assert r.status == "feasible" and "nonzeros" in r.reason
    assert r.objective == r.bound == float(solo_slots(small).sum())


@pytest.mark.parametrize("preset", ["tiny", "small", "contended"])
def test_model_nonzeros_is_exact(preset):
    inst = optsched.generate("ps-locality", seed=2, preset=preset)
    for cumulative in (True, False):
        for activity in (True, False):
            for overflow in (False, True):
                data = offline_data(inst)
                if overflow:
                    data.overflow_cost = np.ones(inst.num_jobs)
                built = build_model(data, cumulative=cumulative, activity=activity)
                assert model_nonzeros(data, cumulative=cumulative, activity=activity) == built.matrix.nnz


@dataclass
class ShortContext(SolveContext):
    """A context with ``left`` seconds left on its clock."""

    left: float = 0.0

    def remaining(self) -> float:
        return self.left


@pytest.mark.parametrize("method", ["milp", "lp", "rr"])
def test_models_without_the_time_to_build_stop_before_building(small, method, monkeypatch):
    """Building and handing over a model are outside the solver's limit: with less time left than
    the model's nonzeros need (SECONDS_PER_NONZERO each) the method stops before building."""
    need = model_nonzeros(offline_data(small)) * model.SECONDS_PER_NONZERO

    def never(*args, **kwargs):
        raise AssertionError("the model was built")

    meth = PROBLEM.get_method(method)
    monkeypatch.setattr(algorithms, "build_model", never)
    short = ShortContext(PROBLEM, meth, settings=SolverSettings(time_limit=3600.0),
                         options=meth.resolve_options({}), left=need * 0.99)
    with pytest.raises(TimeLimitReached, match="nonzeros"):
        meth.run(small, short)


def test_lower_bound_without_the_time_to_build_answers_the_solo_sum(small, monkeypatch):
    from optsched.problems.ps_locality.model import lower_bound_buckets, pooled_data

    meth = PROBLEM.get_method("lower-bound")
    opts = meth.resolve_options({})
    starts = lower_bound_buckets(small, opts["fine_slots"])
    need = model_nonzeros(pooled_data(small), bucket_starts=starts) * model.SECONDS_PER_NONZERO
    monkeypatch.setattr(algorithms, "build_model", lambda *a, **k: (_ for _ in ()).throw(AssertionError("built")))
    out = meth.run(small, ShortContext(PROBLEM, meth, settings=SolverSettings(time_limit=3600.0), options=opts,
                                       left=need * 0.99))
    assert out.status == "time_limit" and out.bound == float(solo_slots(small).sum())


def test_online_rr_stops_once_the_greedy_fill_overruns():
    """Past the budget the window LPs give way to the greedy fill; once that runs past
    OVERRUN_SHARE of the limit plus OVERRUN_S more, the run stops with time_limit and no schedule."""
    from optsched.problems.ps_locality import online

    inst = optsched.generate("ps-locality", seed=0, preset="tiny")
    meth = PROBLEM.get_method("online-rr")
    opts = meth.resolve_options({})
    late = -(online.OVERRUN_SHARE * 10.0 + online.OVERRUN_S) - 1e-3
    with pytest.raises(TimeLimitReached, match="greedy fill"):
        meth.run(inst, ShortContext(PROBLEM, meth, settings=SolverSettings(time_limit=10.0), options=opts, left=late))
    # just within the overrun: the greedy fill finishes the schedule
    out = meth.run(inst, ShortContext(PROBLEM, meth, settings=SolverSettings(time_limit=10.0), options=opts,
                                      left=late + 2e-3))
    assert check(inst, out.solution).feasible and out.stats["greedy_fallback_solves"] > 0
