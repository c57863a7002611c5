"""Each registered guarantee at its exact constant: it holds as declared, and where a (near-)tight
instance is known, a constant tightened by a stated margin fails on it.

* ``test_every_guarantee_is_classified``: every method with a :class:`Guarantee` is classified by
  its problem's tests (``GUARANTEE_TIGHTNESS`` in ``tests/<folder>/declarations.py``), either with
  a tight family or with the sentence saying that none is known (a new guarantee cannot slip by).
* ``test_guarantee_holds_at_its_declared_constant``: the declared statement against the proven OPT
  (or the declared reference value) on a seed sweep of the tiny instances (16 seeds; the
  conformance battery checks 4).
* each problem's ``tests/<folder>/test_guarantee_constants.py``: on its tight families, ALG
  satisfies the declared constant and violates the tightened one (``tests/guarantee_support.py``
  says how a constant is tightened).

``docs/status.md`` lists the families, the margins, and the guarantees without a known tight
instance (with the largest share of the allowance observed).
"""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import NotApplicable
from tests.declared import declared
from tests.guarantee_support import Tight

SEEDS = range(16)

#: (problem, method) -> a tight family or the sentence saying that none is known, as each
#: problem's tests declare it
TIGHTNESS: dict[tuple[str, str], Tight | str] = {
    (problem, method): t for problem, table in declared("GUARANTEE_TIGHTNESS").items() for method, t in table.items()}


def _guaranteed():
    return sorted((p.name, m.name) for p in optsched.core.registry.problems().values() for m in p.methods.values()
                  if m.guarantee is not None)


def test_every_guarantee_is_classified():
    missing = [pm for pm in _guaranteed() if pm not in TIGHTNESS]
    assert not missing, f"guarantees with no tight family and no statement that none is known: {missing}"
    stale = [pm for pm in TIGHTNESS if pm not in _guaranteed()]
    assert not stale, f"classified but no longer guaranteed: {stale}"


def _opt(problem, inst, seed):
    values = []
    for m in problem.methods.values():
        if m.kind == "exact" and m.applicable(inst)[0]:
            try:
                r = optsched.solve(inst, m.name, seed=seed)
            except NotApplicable:
                continue
            if r.status == "optimal":
                values.append(r.objective)
    return values[0] if values else None


DETERMINISTIC = [pm for pm in _guaranteed() if optsched.get_problem(pm[0]).methods[pm[1]].guarantee.form
                 != "probabilistic"]


@pytest.mark.parametrize("problem,method", DETERMINISTIC, ids=[f"{p}/{m}" for p, m in DETERMINISTIC])
def test_guarantee_holds_at_its_declared_constant(problem, method):
    p = optsched.get_problem(problem)
    g = p.methods[method].guarantee
    ran = 0
    for seed in SEEDS:
        inst = p.tiny_instances(seed)
        if not p.methods[method].applicable(inst)[0] or not g.applies(inst)[0]:
            continue
        r = optsched.solve(inst, method, seed=seed)
        if r.status in ("infeasible", "error") or r.objective is None:
            assert r.status != "error", f"{problem}/{method} seed {seed}: {r.reason}"
            continue
        ref = _opt(p, inst, seed) if g.reference == "OPT" else (g.reference_value(inst) if g.reference_value else None)
        if ref is None:
            continue
        assert g.holds(inst, r.objective, ref), (
            f"{problem}/{method} seed {seed}: ALG {r.objective}, REF {ref}, threshold {g.threshold(inst, ref)}")
        ran += 1
    if not ran:
        pytest.skip(f"{problem}/{method}: the guarantee applies to none of the tiny instances of the sweep")


@pytest.mark.slow
@pytest.mark.parametrize("problem,method", DETERMINISTIC, ids=[f"{p}/{m}" for p, m in DETERMINISTIC])
def test_guarantee_holds_on_the_presets(problem, method):
    """The declared statement on seeds 0-39 of the problem's ``tiny`` and ``small`` presets (and on
    the families its tests declare, ``GUARANTEE_PRESET_FAMILIES``: changes to the ``tiny`` preset
    and a number of seeds), against the reference method's proven OPT (or the one its tests
    declare, ``GUARANTEE_REFERENCE``; 5 s limit per instance; unproven ones are skipped).
    ``make bench``; about a minute on one core."""
    p = optsched.get_problem(problem)
    meth = p.methods[method]
    g = meth.guarantee
    ref_name = p.reference_method if isinstance(p.reference_method, str) else p.reference_method[0]
    families = [(p.presets[k], 40) for k in ("tiny", "small") if k in p.presets]
    families += [(dict(p.presets["tiny"], **change), seeds)
                 for change, seeds in declared("GUARANTEE_PRESET_FAMILIES").get(problem, [])]
    ref_name = declared("GUARANTEE_REFERENCE").get(problem, ref_name)
    ran = 0
    for params, seeds in families:
        for seed in range(seeds):
            inst = p.generate(seed, **params)
            if not meth.applicable(inst)[0] or not g.applies(inst)[0]:
                continue
            if not p.methods[ref_name].applicable(inst)[0]:
                continue
            ref = optsched.solve(inst, ref_name, time_limit=5.0)
            alg = optsched.solve(inst, method, seed=seed)
            if ref.status != "optimal" or alg.objective is None:
                continue
            assert g.holds(inst, alg.objective, ref.objective), (
                f"{problem}/{method} {params} seed {seed}: ALG {alg.objective}, OPT {ref.objective}, "
                f"threshold {g.threshold(inst, ref.objective)}")
            ran += 1
    if not ran:
        pytest.skip(f"{problem}/{method}: applies to no preset instance with a proven OPT")
