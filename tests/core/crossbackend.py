"""Every exact model of every problem on every back-end: the cross-back-end table.

For each registered problem, every method that solves a linear model (``uses_backend``) of kind
``exact`` or ``bound`` is run on the problem's reference instances on each back-end and compared
with the ``highs`` back-end (the reference). A cell is

* ``agrees``: same status and, when there is an objective, the same checked objective within
  :data:`TOLERANCE` (and the same bound within it for ``bound`` methods), on every instance;
* ``refused (reason)``: the back-end declined the model with :class:`BackendRefused` (exit 2);
* ``WRONG (...)``: anything else (a crash, another status, another optimum) - a bug.

Run ``python -m tests.core.crossbackend [--seeds N] [--small]`` to print the table (problems x
back-ends); ``tests/core/test_cross_backend.py`` asserts that no cell is wrong.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import optsched
from optsched.core.backends import BACKENDS
from optsched.core.backends.base import BackendRefused

#: relative tolerance on objectives (1e-6 * max(1, |value|)): the four routes all run HiGHS with
#: mip_rel_gap = 0 and feasibility tolerances of 1e-7 relative, and the checked objective is a
#: float sum recomputed from the solution, so two optimal solutions agree to well within 1e-6;
#: a wrong translation (a dropped constraint, a forced integrality) moves the optimum by far more
#: on these instances (e.g. 0.01089 vs 0.00615 on one problem's tiny instance before the cvxpy fix).
TOLERANCE = 1e-6

_SMALL: dict[str, str] = {}


def small_presets() -> dict[str, str]:
    """Problem -> the preset beyond ``tiny_instances`` that ``--small`` adds (solved by highs in
    about a second): each problem's tests declare it, ``SMALL_PRESET`` in
    ``tests/<folder>/cross_backend.py``; a problem that declares none gets no small instance."""
    if not _SMALL:
        import importlib

        root = Path(__file__).resolve().parents[2]
        for name, problem in optsched.core.registry.problems().items():
            folder = (problem.package or "").rsplit(".", 1)[-1]
            if folder and (root / "tests" / folder / "cross_backend.py").is_file():
                _SMALL[name] = importlib.import_module(f"tests.{folder}.cross_backend").SMALL_PRESET
    return _SMALL


def model_methods(problem) -> list[str]:
    """The methods of ``problem`` that solve a linear model and are exact or bounds."""
    return [m.name for m in problem.methods.values() if m.uses_backend and m.kind in ("exact", "bound")]


def reference_instances(problem, seeds=(0,), small: bool = False) -> list:
    out = [problem.tiny_instances(s) for s in seeds] if problem.tiny_instances else []
    if small and problem.name in small_presets():
        out.append(optsched.generate(problem.name, seed=1, preset=small_presets()[problem.name]))
    return out


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def compare(instance, method: str, backend: str, reference=None) -> tuple[str, str]:
    """``(verdict, detail)`` for one instance: verdict ``agrees``, ``refused`` or ``wrong``."""
    if reference is None:
        reference = optsched.solve(instance, method, backend="highs")
    try:
        res = optsched.solve(instance, method, backend=backend)
    except BackendRefused as exc:
        return "refused", exc.rule
    except Exception as exc:  # a crash is a wrong cell, reported with its type
        return "wrong", f"{type(exc).__name__}: {exc}"
    if res.status != reference.status:
        return "wrong", f"status {res.status} vs highs {reference.status}"
    if not _close(res.objective, reference.objective):
        return "wrong", f"objective {res.objective} vs highs {reference.objective}"
    kind = optsched.get_problem(instance.problem).get_method(method).kind
    if kind == "bound" and not _close(res.bound, reference.bound):
        return "wrong", f"bound {res.bound} vs highs {reference.bound}"
    if res.status in ("optimal", "feasible") and res.stats.get("bound_violated_by_checked_objective") is not None:
        return "wrong", "the checked objective is better than the reported bound"
    return "agrees", ""


def table(seeds=(0,), small: bool = False, backends=None) -> dict:
    """``{(problem, backend): (cell text, solves)}`` over every problem with a linear model."""
    backends = list(backends or BACKENDS)
    cells = {}
    for name, problem in sorted(optsched.core.registry.problems().items()):
        methods = model_methods(problem)
        if not methods:
            continue
        instances = reference_instances(problem, seeds, small)
        refs = {(i, m): optsched.solve(inst, m, backend="highs")
                for i, inst in enumerate(instances) for m in methods}
        for be in backends:
            verdicts, n = [], 0
            for i, inst in enumerate(instances):
                for m in methods:
                    n += 1
                    verdicts.append((m, *compare(inst, m, be, refs[i, m])))
            wrong = [f"{m}: {d}" for m, v, d in verdicts if v == "wrong"]
            refused = sorted({f"{m}: {d}" for m, v, d in verdicts if v == "refused"})
            if wrong:
                text = "WRONG (" + "; ".join(wrong[:2]) + ")"
            elif refused:
                text = "refused (" + "; ".join(refused) + ")"
            else:
                text = "agrees"
            cells[name, be] = (text, n)
    return cells


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="tiny instances per problem (seeds 0..N-1)")
    ap.add_argument("--small", action="store_true", help="add one instance of a small preset")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    cells = table(tuple(range(args.seeds)), args.small)
    backends = list(BACKENDS)
    problems = sorted({p for p, _ in cells})
    print("| problem (methods; solves per cell) | " + " | ".join(backends) + " |")
    print("|---|" + "---|" * len(backends))
    for p in problems:
        methods = ", ".join(model_methods(optsched.get_problem(p)))
        n = cells[p, backends[0]][1]
        print(f"| {p} ({methods}; {n}) | " + " | ".join(cells[p, b][0] for b in backends) + " |")
    print(f"\n{time.perf_counter() - start:.0f} s; tolerance {TOLERANCE:g} relative; reference: highs")
    return 1 if any(c[0].startswith("WRONG") for c in cells.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
