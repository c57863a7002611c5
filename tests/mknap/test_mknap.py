"""mknap: exact methods cross-checked through independent routes, lp-round's guarantee, greedy,
the OR-Library loader, and invalid input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import optsched
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.problems.mknap import MknapInstance, generate, load_orlib
from optsched.problems.mknap.orlib import parse_orlib
from tests.conftest import require_data

# Objective values here are sums of integer profits: two correct computations agree exactly up to
# float rounding of sums of a few hundred integers < 2^53, so 1e-9 relative is ample.
EXACT = 1e-9


def small_instances():
    return st.builds(
        lambda seed, items, rows, tightness, correlated: generate(
            seed, items=items, rows=rows, tightness=tightness, correlated=correlated),
        seed=st.integers(0, 10_000), items=st.integers(1, 12), rows=st.integers(1, 4),
        tightness=st.sampled_from([0.1, 0.3, 0.5, 0.8]), correlated=st.booleans())


@given(small_instances())
def test_milp_equals_brute_force(inst):
    milp = optsched.solve(inst, "milp")
    brute = optsched.solve(inst, "brute")
    assert milp.status == "optimal" and brute.status == "optimal"
    assert milp.objective == pytest.approx(brute.objective, rel=EXACT)
    assert milp.gap == 0.0


@settings(max_examples=6)
@given(small_instances())
def test_four_backends_agree(inst):
    """highspy, Pyomo, CVXPY and SciPy's independent HiGHS build reach the same optimum."""
    values = {}
    for backend in ("highs", "pyomo", "cvxpy", "scipy"):
        r = optsched.solve(inst, "milp", backend=backend)
        assert r.status == "optimal", (backend, r.reason)
        values[backend] = r.objective
    assert max(values.values()) - min(values.values()) <= EXACT * max(1.0, max(values.values())), values


def test_presolve_off_agrees_on_a_chu_beasley_sized_instance():
    """A second route through HiGHS itself: presolve disabled (HiGHS has had presolve bugs)."""
    inst = generate(5, items=40, rows=5, tightness=0.25)
    on = optsched.solve(inst, "milp")
    from optsched.core.backends import get_backend
    from optsched.core.backends.base import SolverSettings
    from optsched.problems.mknap import build_model

    off = get_backend("highs").solve(build_model(inst), SolverSettings(presolve=False))
    assert on.status == off.status == "optimal"
    assert on.objective == pytest.approx(off.objective, rel=EXACT)


@given(small_instances())
def test_lp_round_guarantee_and_basic_solution(inst):
    r = optsched.solve(inst, "lp-round")
    opt = optsched.solve(inst, "brute").objective
    m = inst.num_rows
    assert r.stats["fractional_items"] <= m  # a basic LP solution has at most m fractional items
    assert r.objective <= opt + EXACT * max(1, opt)
    # the LP over the items that fit alone (what lp-round rounds) is still an upper bound on OPT,
    # and ALG >= LP / (m + 1); 1e-6 relative covers HiGHS' LP feasibility tolerance (1e-7)
    lp = r.stats.get("lp_value", 0.0)
    assert lp >= opt - 1e-6 * max(1, opt)
    assert r.objective * (m + 1) >= lp - 1e-6 * max(1, lp)


def test_lp_round_guarantee_is_tight_in_shape():
    """An instance where rounding down loses much: the best single item rescues the ratio."""
    # two rows; every item alone uses > half of each row, so any feasible set has one item
    inst = MknapInstance(profits=[10, 10, 10], weights=[[6, 6, 6], [6, 6, 6]], capacities=[10, 10])
    r = optsched.solve(inst, "lp-round")
    assert r.objective == 10.0
    assert optsched.solve(inst, "lp").objective == pytest.approx(50 / 3)


def test_greedy_is_feasible_and_can_be_bad():
    # greedy takes the efficient small item first and then cannot fit the big one
    inst = MknapInstance(profits=[2, 100], weights=[[1, 100]], capacities=[100])
    r = optsched.solve(inst, "greedy")
    assert r.status == "feasible" and r.objective == 2.0
    assert optsched.solve(inst, "milp").objective == 100.0


def test_items_that_fit_no_row_are_dropped_by_lp_round():
    inst = MknapInstance(profits=[1000, 1, 1], weights=[[11, 1, 1]], capacities=[10])
    r = optsched.solve(inst, "lp-round")
    assert r.stats["dropped_items"] == 1 and r.solution == {"selected": [1, 2]}


@pytest.mark.load_sensitive
def test_time_limit_on_every_backend_reports_bound_and_gap():
    """A time limit on a hard instance: time_limit status (never optimal: the hard preset is closed
    by no back-end within minutes) with a point, a bound and a gap, on every back-end.

    How long past the limit a back-end runs is load-dependent, so it is measured by the time-limit
    benchmark (``make bench``), not asserted here.

    The watchdog back-ends (pyomo, cvxpy, scipy) start a child interpreter and build their model
    there; that start-up counts against the limit, and on a machine loaded far beyond its cores it
    alone would outlast a short limit (the child then stops before it has a point, the honest
    answer there). So these get a longer base limit, and every limit is stretched by the
    machine's oversubscription (``tests/core/patience.py``: runnable work per core, at least 1),
    so that the test checks the bound and gap, not the machine's speed; a back-end stopped before
    its first point (a starved child) is asked again with twice the limit (a few times at most)."""
    from tests.core.patience import growing_limit

    inst = optsched.generate("mknap", seed=1, preset="hard")
    for backend, base_s in (("highs", 1.0), ("pyomo", 3.0), ("cvxpy", 3.0), ("scipy", 3.0)):
        def solve(limit, backend=backend):
            r = optsched.solve(inst, "milp", backend=backend, time_limit=limit)
            assert r.status == "time_limit", (backend, limit, r.status, r.reason)  # never optimal
            return r

        r = growing_limit(solve, lambda r: r.objective is not None, base_s)
        assert r.bound is not None and r.gap is not None and r.gap > 0, (backend, r.reason)
        assert r.objective is not None and r.objective <= r.bound, backend


# -- OR-Library loader -----------------------------------------------------------------------
ORLIB_TWO = """2
3 2 7
 4 5 3
 2 3 1
 1 2 3
 4 4
2 1 0
 1 1
 1 1
 1
"""


def test_orlib_parses_and_brute_matches_hand_optimum(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text(ORLIB_TWO)
    inst = load_orlib(path, 0)
    assert inst.profits == (4.0, 5.0, 3.0) and inst.capacities == (4.0, 4.0)
    assert inst.reference_value == 7.0 and "best known" in inst.provenance
    # by hand: {0, 1} weighs (5, 3) -> over row 0; {1, 2} weighs (4, 5) -> over row 1;
    # {0, 2} weighs (3, 4) fits with profit 7; singles are worth at most 5
    assert optsched.solve(inst, "brute").objective == 7.0
    assert optsched.solve(inst, "milp").objective == 7.0
    second = load_orlib(path, 1)
    assert second.reference_value is None and "no reference value" in second.provenance


@pytest.mark.parametrize("text,field", [
    (ORLIB_TWO.rsplit("\n", 3)[0], "(file) problem 1 weights row 0"),  # truncated file
    ("1\n2 1 0\n 1 x\n 1 1\n 1\n", "(file) problem 0 profits"),      # not a number
    (ORLIB_TWO + " 9\n", "(file)"),                                     # trailing data
])
def test_orlib_malformed_files(tmp_path, text, field):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(InvalidInstanceError) as exc:
        load_orlib(path, 0)
    assert exc.value.field == field and exc.value.problem == "mknap"


def test_orlib_index_out_of_range(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text(ORLIB_TWO)
    with pytest.raises(InvalidOptionError, match="index"):
        load_orlib(path, 2)


def test_negative_weight_is_rejected_naming_the_entry():
    with pytest.raises(InvalidInstanceError) as exc:
        MknapInstance(profits=[1, 2], weights=[[1, -3]], capacities=[5])
    assert exc.value.field == "weights[0][1]"


def test_ragged_weights_are_rejected():
    with pytest.raises(InvalidInstanceError) as exc:
        MknapInstance(profits=[1, 2], weights=[[1]], capacities=[5])
    assert exc.value.field == "weights[0]"


def test_json_errors_name_the_field():
    data = generate(0, items=3, rows=1).to_json()
    with pytest.raises(InvalidInstanceError, match="'profits\\[1\\]': must be a number"):
        MknapInstance.from_json({**data, "profits": [1, "two", 3]})
    with pytest.raises(InvalidInstanceError, match="'capacities': missing"):
        MknapInstance.from_json({k: v for k, v in data.items() if k != "capacities"})


def test_generator_is_deterministic():
    assert generate(11, items=30, rows=4).sha256() == generate(11, items=30, rows=4).sha256()
    assert generate(11, items=30, rows=4).sha256() != generate(12, items=30, rows=4).sha256()


def test_checker_lists_every_violation():
    inst = MknapInstance(profits=[1, 1], weights=[[3, 3], [3, 3]], capacities=[4, 4])
    report = optsched.check(inst, {"selected": [0, 1]})
    assert not report.feasible and len(report.violations) == 2
    assert not optsched.check(inst, {"selected": [0, 0]}).feasible
    assert not optsched.check(inst, {"selected": [5]}).feasible
    assert not optsched.check(inst, {"chosen": [0]}).feasible


# -- real data -----------------------------------------------------------------------------
def test_first_orlib_instance_solves_to_its_best_known_value():
    path = require_data("mknap/mknapcb1.txt")
    inst = load_orlib(path, 0)
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.objective == 24381.0 == inst.reference_value
    assert json.loads(r.dumps())["objective"] == 24381.0


def test_orlib_file_holds_thirty_valid_instances():
    path = require_data("mknap/mknapcb1.txt")
    problems = parse_orlib(path.read_text(), path.name)
    assert len(problems) == 30
    assert all(len(p["profits"]) == 100 and len(p["capacities"]) == 5 for p in problems)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(30))
def test_every_mknapcb1_instance_reaches_its_reference_value(index):
    path = require_data("mknap/mknapcb1.txt")
    inst = load_orlib(path, index)
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal"
    # the header is the best *known* value: the proven optimum may only be >= it
    assert r.objective >= inst.reference_value
    assert r.objective == inst.reference_value, "a proven optimum above the best known value: report it"
    lp = optsched.solve(inst, "lp").objective
    assert lp >= r.objective
    assert not np.isnan(optsched.solve(inst, "lp-round").objective)


def test_milp_takes_a_selection_that_fills_a_row_exactly():
    """A hand instance whose only optimum fills row 0 to its capacity exactly: items 0 and 1
    (weights 5 + 4 = 9 = capacity, profit 18). Every other feasible pair is worse (0 and 2: 15;
    1 and 2: 13) and no three items fit, so a model whose capacity row is off by one (8 instead of
    9) answers 15: the MILP must find 18, as brute force does."""
    inst = MknapInstance(profits=(10.0, 8.0, 5.0), weights=((5.0, 4.0, 3.0), (1.0, 2.0, 3.0)),
                         capacities=(9.0, 9.0), name="exactly-full")
    for method in ("milp", "brute"):
        r = optsched.solve(inst, method)
        assert r.status == "optimal", method
        assert r.objective == 18.0 and sorted(r.solution["selected"]) == [0, 1], (method, r.objective)
