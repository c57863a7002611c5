"""domain-decomposition: Hilbert keys against hilbertcurve, exact methods against brute force,
checker, baselines and the particle pipeline."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.problems.domain_decomposition import (DomainDecompositionInstance, cell_work, cut_surface,
                                                    decompose_particles, gaussian_halos, hilbert_keys,
                                                    hilbert_points, quantize, zeldovich)
from optsched.problems.domain_decomposition.baselines import equal_count, recursive_bisection


@pytest.mark.parametrize("bits", [1, 2, 4, 9, 16, 21])
def test_keys_equal_hilbertcurve_package(bits):
    from hilbertcurve.hilbertcurve import HilbertCurve

    pts = np.random.default_rng(bits).integers(0, 1 << bits, size=(300, 3))
    ref = HilbertCurve(bits, 3).distances_from_points(pts.tolist())
    assert hilbert_keys(pts, bits).tolist() == [int(r) for r in ref]
    assert hilbert_points(hilbert_keys(pts, bits), bits).tolist() == pts.tolist()


def test_curve_is_a_bijection_with_unit_steps():
    bits = 3
    pts = hilbert_points(np.arange(8 ** bits, dtype=np.uint64), bits)
    assert len({tuple(p) for p in pts.tolist()}) == 8 ** bits
    assert np.all(np.abs(np.diff(pts, axis=0)).sum(axis=1) == 1)  # consecutive cells share a face


def test_coarse_cell_is_the_key_prefix():
    rng = np.random.default_rng(0)
    pos = rng.random((5000, 3))
    fine = hilbert_keys(quantize(pos, 10), 10)
    coarse = hilbert_keys(quantize(pos, 3), 3)
    assert np.array_equal(fine >> np.uint64(3 * 7), coarse)


def test_invalid_keys_input():
    with pytest.raises(ValueError):
        hilbert_keys(np.array([[0, 0, 8]]), 3)
    with pytest.raises(ValueError):
        hilbert_keys(np.zeros((2, 3), int), 22)


def _inst(weights, speeds, contiguous=True, level=2):
    n = len(weights)
    cells = tuple(range(0, 2 * n, 2))
    return DomainDecompositionInstance(level=level, cells=cells, weights=tuple(weights), particles=(1,) * n,
                                       speeds=tuple(speeds), contiguous=contiguous)


@given(st.lists(st.integers(0, 20), min_size=1, max_size=7), st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=1,
                                                                       max_size=3))
def test_exact_methods_equal_brute_force_contiguous(w, s):
    inst = _inst(w, s)
    ref = optsched.solve(inst, "brute").objective
    for m in ("chain", "dp", "milp"):
        r = optsched.solve(inst, m)
        assert r.status == "optimal"
        assert r.objective == pytest.approx(ref, rel=1e-7, abs=1e-9), m


@pytest.mark.parametrize("seed", range(3))
def test_free_milp_equals_brute_force_and_scipy(seed):
    rng = np.random.default_rng(seed)
    inst = _inst(rng.integers(1, 20, size=6).tolist(), [1.0, 2.0, 1.0], contiguous=False)
    ref = optsched.solve(inst, "brute").objective
    assert optsched.solve(inst, "milp").objective == pytest.approx(ref)
    assert optsched.solve(inst, "milp", backend="scipy").objective == pytest.approx(ref)


def test_checker_and_cut_surface_by_hand():
    # level 1: 8 cells of a 2x2x2 cube, all occupied; curve order = hilbert index
    inst = DomainDecompositionInstance(level=1, cells=tuple(range(8)), weights=(1,) * 8, particles=(1,) * 8,
                                       speeds=(1.0, 1.0))
    rep = optsched.check(inst, {"owner": [0, 0, 0, 0, 1, 1, 1, 1]})
    assert rep.feasible and rep.objective == 4.0
    assert rep.details["cut_surface"] == 4  # the first four cells form a face-connected half: 4 faces cross
    assert cut_surface(inst, [0] * 8) == 0
    bad = optsched.check(inst, {"owner": [0, 1, 0, 0, 1, 1, 1, 1]})
    assert not bad.feasible and "contiguous" in bad.violations[0]
    free = DomainDecompositionInstance(**{**inst.to_dict(), "contiguous": False})
    assert optsched.check(free, {"owner": [0, 1, 0, 0, 1, 1, 1, 1]}).feasible


@pytest.mark.parametrize("change,field", [({"cells": (1, 0)}, "cells[1]"), ({"weights": (1.0,)}, "weights"),
                                          ({"speeds": (0.0, 1.0)}, "speeds"), ({"cells": (0, 64)}, "cells[1]")])
def test_invalid_instances(change, field):
    base = dict(level=1, cells=(0, 1), weights=(1.0, 1.0), particles=(1, 1), speeds=(1.0, 1.0))
    with pytest.raises(InvalidInstanceError) as exc:
        DomainDecompositionInstance(**{**base, **change})
    assert exc.value.field.startswith(field.split("[")[0])


def test_equal_count_ignores_work_and_the_chain_does_not():
    # 50 light cells, one crowded cell (100 particles, work 1 + 0.01*100^2 = 101... here 101), 50 light
    w = [1.0] * 50 + [101.0] + [1.0] * 50
    n = [1] * 50 + [100] + [1] * 50
    inst = DomainDecompositionInstance(level=4, cells=tuple(range(101)), weights=tuple(w), particles=tuple(n),
                                       speeds=(1.0, 1.0, 1.0))
    eq = optsched.solve(inst, "equal-count")
    ex = optsched.solve(inst, "chain")
    assert ex.objective == 101.0  # 50 | crowded | 50
    assert eq.objective == 151.0  # the crowded cell's particles fall in rank 0's third: 50 + 101


def test_equal_count_respects_speeds():
    inst = _inst([1.0] * 9, [2.0, 1.0])
    assert equal_count(inst) == [0] * 6 + [1] * 3


def test_rcb_splits_by_speed_share():
    inst = DomainDecompositionInstance(level=1, cells=tuple(range(8)), weights=(1,) * 8, particles=(1,) * 8,
                                       speeds=(3.0, 1.0), contiguous=False)
    owner = recursive_bisection(inst)
    assert sorted(np.bincount(owner, minlength=2).tolist()) == [2, 6]
    r = optsched.solve(inst, "rcb")
    assert r.status == "feasible" and r.objective == 2.0


def test_generators_are_clustered_and_in_the_unit_box():
    rng = np.random.default_rng(1)
    for pos in (gaussian_halos(20_000, rng), zeldovich(20_000, rng)):
        assert pos.min() >= 0 and pos.max() < 1
        _, counts, _ = cell_work(pos, 3)
        # clustered: the fullest cell holds far more than the mean
        assert counts.max() > 3 * counts.mean()


def test_pipeline_matches_the_instance_route():
    rng = np.random.default_rng(2)
    pos = gaussian_halos(20_000, rng)
    speeds = [2.0, 2.0, 1.0, 1.0, 1.0]
    out = decompose_particles(pos, speeds, level=4, bits=12)
    cells, counts, weights = cell_work(pos, 4)
    inst = DomainDecompositionInstance(level=4, cells=tuple(cells.tolist()), weights=tuple(weights.tolist()),
                                       particles=tuple(counts.tolist()), speeds=tuple(speeds))
    assert out["bottleneck"] == pytest.approx(optsched.solve(inst, "chain").objective)
    assert out["starts"][0] == 0 and out["starts"][-1] == len(pos)
    keys = hilbert_keys(quantize(pos, 12), 12)
    assert np.all(np.diff(keys[out["order"]].astype(np.int64)) >= 0)


def test_contiguous_model_refuses_points_out_of_rank_or_chain_order():
    """The contiguous MILP's order rows: ``u[k, p] <= u[k, p+1]`` (a cell in ranks <= p is in ranks
    <= p+1) and ``u[k+1, p] <= u[k, p]`` (each rank's prefix is a prefix of the chain). A point
    breaking either family charges loads that are not those of the partition it decodes to:

    * prefixes (3, 1) out of rank order (4 cells of weight 4, speeds 1, 0.5, 1): the load rows read
      12, -8 and 12 (T = 12 fits them), the decoded partition (cells 0 | 1-2 | 3) takes 16;
    * rank 0 holding cells 0 and 2 but not 1 (out of chain order): it decodes to no contiguous
      partition.

    Each such point must violate the model; a valid encoding of the same instance does not. On
    cells 5, 1, 1, 5, 1, 1, 5 over three equal ranks the MILP then equals brute force (7)."""
    from optsched.problems.domain_decomposition.model import build_model, decode

    inst = _inst([4, 4, 4, 4], [1.0, 0.5, 1.0])
    model = build_model(inst)

    def point(columns, T):
        x = np.zeros(model.num_cols)
        x[model.blocks["T"].indices().ravel()] = T
        u = model.blocks["u"].indices()
        for p, col in enumerate(columns):
            x[u[:, p]] = col
        return x

    valid = point([[1, 1, 0, 0], [1, 1, 0, 0]], 8.0)      # cells 0-1 | none | 2-3
    assert model.violation(valid) == 0 and decode(inst, model, valid)["owner"] == [0, 0, 2, 2]
    rank_order = point([[1, 1, 1, 0], [1, 0, 0, 0]], 12.0)
    owner = decode(inst, model, rank_order)["owner"]
    assert owner == [0, 1, 1, 2] and optsched.get_problem(inst.problem).check(inst, {"owner": owner}).objective == 16
    assert model.violation(rank_order) >= 1.0
    chain_order = point([[1, 0, 1, 0], [1, 0, 1, 0]], 12.0)
    assert model.violation(chain_order) >= 1.0
    inst = _inst([5, 1, 1, 5, 1, 1, 5], [1.0, 1.0, 1.0])
    r = optsched.solve(inst, "milp")
    assert r.status == "optimal" and r.objective == optsched.solve(inst, "brute").objective == 7
