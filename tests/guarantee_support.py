"""Guarantees at their exact constant: the tight families and the tightening (problem-free).

``tests/test_guarantee_constants.py`` checks every registered guarantee against its declared
constant and that each is classified; a problem's tests declare, per guaranteed method, a
(near-)tight family or the sentence saying none is known (``GUARANTEE_TIGHTNESS`` in
``tests/<folder>/declarations.py``), and its ``tests/<folder>/test_guarantee_constants.py`` shows
with :func:`check_tight_family` that a constant tightened by the family's margin fails on it.

Tightening: a multiplicative ``v`` becomes ``1 + (v - 1) (1 - delta)`` (``v (1 - delta)`` when
``v = 1``), an additive ``v`` becomes ``v (1 - delta)``; ``delta`` is stated per family and is the
family's distance to the constant plus a margin (so a declared constant loosened by more than
``delta`` fails the test, and one tightened by any amount fails the declared check on the same
instance). ``docs/status.md`` lists the families, the margins, and the guarantees without a known
tight instance.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import optsched
from optsched.core.registry import Guarantee
from optsched.core.solving import objective_tolerance


def tightened(g: Guarantee, delta: float) -> Guarantee:
    """``g`` with its constant tightened by ``delta`` (see the module docstring)."""
    def value(inst, v=g.value):
        c = v(inst)
        if g.form == "multiplicative":
            return c * (1 - delta) if c == 1 else 1 + (c - 1) * (1 - delta)
        return c * (1 - delta)
    return dataclasses.replace(g, value=value)


@dataclass(frozen=True)
class Tight:
    """A (near-)tight family: ``make()`` yields ``(instance, REF)`` pairs (REF: the proven OPT,
    or a value on the far side of OPT that still refutes the tightened constant, see each family).
    ``declared_reference(instance)``, when given, is the reference the declared constant is checked
    against instead (e.g. an upper bound on OPT where REF is a lower bound on it)."""

    make: Callable
    delta: float
    why: str
    declared_reference: Callable | None = None


def check_tight_family(problem: str, method: str, family: Tight) -> None:
    """On every instance of the family, ALG satisfies the declared constant, and on at least one
    it violates the constant tightened by ``family.delta``."""
    g = optsched.get_problem(problem).methods[method].guarantee
    tight = tightened(g, family.delta)
    count = 0
    for inst, ref in family.make():
        assert g.applies(inst)[0], g.applies(inst)[1]
        alg = optsched.solve(inst, method).objective
        declared_ref = ref
        if family.declared_reference is not None:
            declared_ref = family.declared_reference(inst)
            assert declared_ref >= ref - objective_tolerance(ref)
        assert g.holds(inst, alg, declared_ref), (
            f"{problem}/{method}: declared constant fails: ALG {alg}, REF {declared_ref}")
        count += not tight.holds(inst, alg, ref, rel_tol=0.0)
    assert count, (f"{problem}/{method}: the constant tightened by {family.delta} still holds on every instance "
                   f"of the family ({family.why}): the declared constant is looser than the family shows")
