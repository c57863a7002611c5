"""The time limit inside the pipeline-partition DPs (map-bb, subset-dp, dp, order-dp,
tree-order-dp): the run stops when the context's clock says so, returns ``time_limit`` with a
valid plan (if it had one) and a bound that is proven (<= OPT), and is ``optimal`` only when the
proof completed.

No wall time is involved: :class:`CountingContext` is a context whose clock "expires" at its k-th
read, and ``POLL_EVERY = 1`` makes every unit of work a read, so stopping at every k walks the
run through each phase at each of its polling points, identically on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import optsched
from optsched.core.backends import SolverSettings
from optsched.core.registry import get_problem
from optsched.core.solving import SolveContext, TimeLimitReached, objective_tolerance
from optsched.pipeline.partition import clock
from optsched.pipeline.partition.clock import Poll, SearchStopped
from optsched.pipeline.partition.dp import bottleneck_dp, label_dp, order_space, solve_order
from optsched.problems.pipeline_partition.generate import generate
from optsched.problems.pipeline_partition.instance import check
from optsched.problems.pipeline_partition.mapping import Orbits, RelaxedRuns

from .test_mapping import brute_force

PROBLEM = get_problem("pipeline-partition")


@dataclass
class CountingContext(SolveContext):
    """A context whose budget is spent at the ``expire_at``-th read of its clock (None: never)."""

    expire_at: int | None = None
    reads: int = 0

    def expired(self) -> bool:
        self.reads += 1
        return self.expire_at is not None and self.reads >= self.expire_at


def _context(method: str, expire_at: int | None) -> CountingContext:
    # a time limit is set (1 h) so the result records one; only the counter decides expiry
    return CountingContext(PROBLEM, PROBLEM.get_method(method), settings=SolverSettings(time_limit=3600.0),
                           expire_at=expire_at)


def _run(inst, method: str, expire_at: int | None):
    """(outcome or None when stopped before any plan, clock reads)."""
    ctx = _context(method, expire_at)
    try:
        out = PROBLEM.get_method(method).run(inst, ctx)
    except TimeLimitReached as exc:
        assert expire_at is not None and ctx.reads >= expire_at, "stopped without an expired clock"
        assert exc.incumbent is None
        out = None
    return out, ctx.reads


@pytest.fixture
def every_unit(monkeypatch):
    """Read the clock at every unit of work (the default reads it every POLL_EVERY units)."""
    monkeypatch.setattr(clock, "POLL_EVERY", 1)


def _stops(total: int, count: int = 24) -> list[int]:
    """Reads to expire at: the first few, the last few, and evenly spaced ones between."""
    picks = set(range(1, min(total, 4) + 1)) | set(range(max(1, total - 3), total + 1))
    picks |= {int(k) for k in np.linspace(1, total, count)}
    return sorted(picks)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= objective_tolerance(b)


def _assert_honest_stop(inst, out, opt: float, tag: str) -> None:
    """A run stopped by its budget: time_limit, a feasible plan no better than OPT, a bound no
    worse than OPT (i.e. <= OPT: proven), below its own objective."""
    assert out.status == "time_limit", f"{tag}: {out.status} although the budget ran out"
    report = check(inst, out.solution)
    assert report.feasible, f"{tag}: infeasible plan {report.violations}"
    assert _close(report.objective, out.objective)
    assert out.objective >= opt - objective_tolerance(opt), f"{tag}: objective {out.objective} below OPT {opt}"
    if out.bound is not None:
        assert out.bound <= opt + objective_tolerance(opt), f"{tag}: bound {out.bound} above OPT {opt} (not proven)"


# -- map-bb ------------------------------------------------------------------------------------------
# a 6-position chain on a 6-device random graph (bottleneck): the incumbent (tree order, 0.01257)
# and the relaxation bound (0.00660) differ, so the orbit DP decides (OPT 0.01036); and a
# sync-estimate instance decided by the orbit label DP (found by a seed scan)
BOTTLENECK = dict(seed=15, layers=6, topology="random:6:0.3", objective="bottleneck", microbatches=4)
SYNC = dict(seed=7, layers=5, topology="random:5:0.4", objective="sync-estimate", microbatches=4)


@pytest.mark.parametrize("spec", [BOTTLENECK, SYNC], ids=["bottleneck", "sync-estimate"])
def test_map_bb_stops_honestly_at_every_poll(every_unit, spec):
    spec = dict(spec)
    inst = generate(spec.pop("seed"), **spec)
    opt = optsched.solve(inst, "subset-dp").objective
    if inst.num_devices <= 5:  # (subset-dp is checked against the brute force in test_mapping too)
        assert _close(opt, brute_force(inst))
    full, total = _run(inst, "map-bb", None)
    assert full.status == "optimal" and _close(full.objective, opt) and full.stats["phase"] == "orbit DP"
    phases, orbit_lowers, orbit_values = set(), [], []
    for k in _stops(total):
        out, reads = _run(inst, "map-bb", k)
        assert reads == k  # the run read the clock no more after it expired
        if out is None:  # stopped before the incumbent had a plan
            continue
        _assert_honest_stop(inst, out, opt, f"map-bb stopped at read {k} of {total}")
        phases.add(out.stats["phase"])
        if out.stats["phase"] == "orbit DP stopped at the time limit":
            # past the incumbent's phase a stop never returns a plan worse than the incumbent (the
            # orbit DP's plan replaces it only when better in the instance's own objective)
            assert out.objective <= full.stats["incumbent_value"] + objective_tolerance(opt), \
                f"read {k}: {out.objective} worse than the incumbent {full.stats['incumbent_value']}"
            orbit_values.append(out.objective)
            if out.stats.get("orbit_lower") is not None:
                orbit_lowers.append(out.bound)
    # the budget ran out in each phase somewhere along the way
    assert {"incumbent; relaxation stopped at the time limit", "orbit DP stopped at the time limit"} <= phases
    if inst.objective == "bottleneck":  # failed thresholds of the orbit DP raise the bound above the relaxation's
        assert max(orbit_lowers) > full.stats["relaxation_bound"] + objective_tolerance(opt)
    else:  # the orbit label DP's best plan so far replaces a worse incumbent
        assert min(orbit_values) < full.stats["incumbent_value"] - objective_tolerance(opt)
    # one read more than the whole run needs: the proof completes, and only then is it optimal
    out, _ = _run(inst, "map-bb", total + 1)
    assert out.status == "optimal" and _close(out.objective, opt)


def test_map_bb_stopped_in_the_incumbent_phase_keeps_its_first_plan(every_unit):
    """Stopped inside the incumbent's threshold search (after its first probe found a plan), map-bb
    returns that plan rather than nothing, with no bound (the tree-order space is not exact here)
    or a search-free one."""
    spec = dict(BOTTLENECK)
    inst = generate(spec.pop("seed"), **spec)
    early, k = [], 1
    while True:  # the reads of the incumbent's phase come first
        out, _ = _run(inst, "map-bb", k)
        if out is not None and not out.stats["phase"].startswith("incumbent's"):
            break
        early.append(out)
        k += 7
    plans = [out for out in early if out is not None]
    assert plans, "no stop landed in the incumbent's DP after its first plan"
    assert all(out.bound is None and out.status == "time_limit" for out in plans)
    assert len({tuple(out.solution["cuts"]) for out in plans}) == 1  # the first probe's plan


def test_map_bb_real_clock_tiny_limit_is_not_optimal():
    # the real clock: a budget spent before the first read
    inst = generate(15, layers=6, topology="random:6:0.3", objective="bottleneck", microbatches=4)
    r = optsched.solve(inst, "map-bb", time_limit=1e-9)
    assert r.status == "time_limit"


# -- the other methods on the same engine -------------------------------------------------------------
@pytest.mark.parametrize("method, spec", [
    ("subset-dp", dict(seed=3, layers=5, topology="random:5:0.4", objective="bottleneck", microbatches=3)),
    ("subset-dp", dict(seed=3, layers=5, topology="random:5:0.4", objective="sync-estimate", microbatches=3)),
    ("dp", dict(seed=2, layers=6, topology="two-level:2x2:10:1", objective="sync-estimate", microbatches=4)),
    ("dp", dict(seed=4, layers=6, topology="nvlink:4", objective="bottleneck", microbatches=4)),
    ("order-dp", dict(seed=5, layers=6, topology="random:6:0.3", objective="bottleneck", microbatches=4)),
    ("tree-order-dp", dict(seed=6, layers=6, topology="torus:2x3:10:4", objective="sync-estimate", microbatches=4)),
], ids=lambda v: v if isinstance(v, str) else f"{v['topology']}-{v['objective']}")
def test_other_methods_stop_honestly_at_every_poll(every_unit, method, spec):
    spec = dict(spec)
    inst = generate(spec.pop("seed"), **spec)
    opt = optsched.solve(inst, "subset-dp").objective
    full, total = _run(inst, method, None)
    assert total > 3
    for k in _stops(total, 16):
        out, reads = _run(inst, method, k)
        assert reads == k
        if out is not None:
            _assert_honest_stop(inst, out, opt, f"{method} stopped at read {k} of {total}")
    out, _ = _run(inst, method, total + 1)
    assert out.status == full.status and out.solution == full.solution


# -- the engine ---------------------------------------------------------------------------------------
def test_threshold_search_lower_bound_is_proven_and_grows(every_unit):
    """bottleneck_dp stopped at read k: its ``lower`` (the largest failed threshold) is below the
    space's optimum, never decreases with k, and its plan (the first probe's) is a plan of the
    space no better than the optimum."""
    spec = dict(BOTTLENECK)
    inst = generate(spec.pop("seed"), **spec)
    opt, _ = bottleneck_dp(inst, Orbits(inst))
    ctx = _context("map-bb", None)
    bottleneck_dp(inst, Orbits(inst), Poll(ctx))
    total, last, lowers = ctx.reads, -1.0, 0
    for k in _stops(total, 40):
        try:
            bottleneck_dp(inst, Orbits(inst), Poll(_context("map-bb", k)))
        except SearchStopped as stop:
            lower = -1.0 if stop.lower is None else stop.lower
            assert lower < opt and lower >= last
            last, lowers = lower, lowers + (stop.lower is not None)
            if stop.plan is not None:
                assert stop.value >= opt
                assert check(inst, stop.plan.solution()).feasible
        else:
            pytest.fail(f"no stop at read {k} of {total}")
    assert lowers > 0


@pytest.mark.parametrize("objective", ["bottleneck", "sync-estimate"])
def test_polling_leaves_results_bit_identical(objective):
    """A poll that never fires changes neither the value nor the plan (the engine's float results
    are the same bits)."""
    for seed, topo in ((15, "random:6:0.3"), (2, "two-level:2x2:10:1"), (4, "nvlink:4")):
        inst = generate(seed, layers=6, topology=topo, objective=objective, microbatches=4)
        for space in (order_space(inst), Orbits(inst), RelaxedRuns(inst)):
            ctx = _context("map-bb", None)
            if objective == "bottleneck":
                a, b = bottleneck_dp(inst, space), bottleneck_dp(inst, space, Poll(ctx, every=1))
                assert a[0] == b[0] and a[1] == b[1]
            else:
                a = label_dp(inst, space, objective)
                b = label_dp(inst, space, objective, poll=Poll(ctx, every=1))
                assert a[0] == b[0] and a[1] == b[1] and a[2] == b[2]
            assert ctx.reads > 0
        a = solve_order(inst, order_space(inst), objective)
        b = solve_order(inst, order_space(inst), objective, Poll(_context("dp", None), every=1))
        assert a == b


def test_poll_reads_the_clock_every_n_units():
    ctx = _context("map-bb", None)
    p = Poll(ctx, every=10)
    for _ in range(95):
        p.tick()
    assert ctx.reads == 9 == p.reads
    p.tick(5)
    assert ctx.reads == 10
    stopping = _context("map-bb", 2)
    p = Poll(stopping, every=1)
    p.tick()
    with pytest.raises(SearchStopped):
        p.tick()
    p.tick()  # disarmed after it fired: the caller's wrap-up cannot be interrupted again
    assert stopping.reads == 2
