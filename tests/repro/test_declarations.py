"""What problem folders declare for the problem-free tables (T15's adapters part, T16's time rows):
each folder declares only its own methods and presets, and the tables find every declaration."""

from __future__ import annotations

from pathlib import Path

import optsched
from optsched.repro.discovery import load_script, problem_scripts
from tests.repro_support import load_paper_script

ROOT = Path(__file__).resolve().parents[2]


def _owner(path: Path) -> str:
    """The registered problem whose folder holds ``path``."""
    return next(name for name, p in optsched.core.registry.problems().items()
                if p.package and p.package.rsplit(".", 1)[-1] == path.parent.name)


def test_adversaries_name_their_own_problem_and_a_registered_online_method():
    seen = []
    for path, _ in problem_scripts():
        for declared in getattr(load_script(path), "ADVERSARIES", ()):
            problem, method = declared["method"].split("/", 1)
            assert problem == _owner(path), (path, declared["method"])     # a folder attacks its own methods
            assert optsched.get_problem(problem).methods[method].kind == "online", declared["method"]
            assert callable(declared["adapter"]) and isinstance(declared["order"], int)
            seen.append(declared)
    orders = [d["order"] for d in seen]
    assert seen and len(set(orders)) == len(orders)                         # one place per row
    t15 = load_paper_script("t15_adapters")
    assert [c["method"] for c in t15.cells(True)] == [d["method"] for d in sorted(seen, key=lambda d: d["order"])]


def test_an_adversary_adapter_is_made_for_its_method():
    for path, _ in problem_scripts():
        for declared in getattr(load_script(path), "ADVERSARIES", ()):
            adapter = declared["adapter"]()
            assert adapter.method == declared["method"].split("/", 1)[1], declared["method"]


def test_solver_timing_names_a_preset_and_a_model_method_of_its_own_problem():
    t16 = load_paper_script("t16_solvers")
    declared = t16.timing_declarations()
    assert declared and [name for name, _ in declared] == sorted(name for name, _ in declared)
    for name, timing in declared:
        problem = optsched.get_problem(name)
        assert timing["preset"] in problem.presets, (name, timing["preset"])
        # the table times back-ends: the method solves a model (an exact one, or a bound's)
        method = problem.methods[timing["method"]]
        assert method.uses_backend and method.kind in ("exact", "bound"), name
        published = timing.get("published")
        if published:
            assert problem.methods[published["method"]].uses_backend and published["count"] > 0
    quick = [c for c in t16.cells(True) if c["kind"] == "time"]
    assert [c["problem"] for c in quick] == [name for name, _ in declared]
