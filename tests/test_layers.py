"""The architecture, checked: which package may import which (docs/architecture.md).

Every module's imports are read with :mod:`ast` (module-level and inside functions alike; names in
docstrings are not imports). The rules:

* a problem imports no other problem;
* nothing below the problems (core, graphs, chain, simulation, workloads, online, pipeline)
  imports a problem;
* core imports none of the layers above it, and ``core.linear`` no back-end (the model layer does
  not depend on any solver).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import optsched

ROOT = Path(optsched.__file__).parent
#: the shared layers below the problems, lowest first; each may import only those to its left
BELOW_PROBLEMS = ("core", "graphs", "chain", "simulation", "workloads", "online", "pipeline", "plotting")
#: deprecated aliases kept for one release where a module moved up a layer (they only re-export)
DEPRECATED_ALIASES = {"optsched.core.simulation": "optsched.simulation.cluster",
                      "optsched.pipeline.schedule_sim": "optsched.simulation.pipeline"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return {m for m in out if m == "optsched" or m.startswith("optsched.")}


MODULES = sorted(p for p in ROOT.rglob("*.py"))


def _layer(module: str) -> tuple[str, str | None]:
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "problems":
        return "problems", parts[2]
    return (parts[1] if len(parts) > 1 else "optsched"), None


def _violations() -> list[str]:
    bad = []
    problem_pkgs = {p.name for p in (ROOT / "problems").iterdir() if (p / "__init__.py").exists()}
    for path in MODULES:
        me = _module_name(path)
        if me in DEPRECATED_ALIASES:
            target = DEPRECATED_ALIASES[me]
            assert _imports(path) <= {target, f"{target}.__all__", f"{target}.*"}, \
                f"the alias {me} must only re-export {DEPRECATED_ALIASES[me]}"
            continue
        layer, problem = _layer(me)
        for target in sorted(_imports(path)):
            t_layer, t_problem = _layer(target)
            if t_layer == "problems" and t_problem not in problem_pkgs:
                continue  # 'optsched.problems' itself, or a name imported from it
            if layer == "problems" and t_layer == "problems" and t_problem and t_problem != problem:
                bad.append(f"{me} imports another problem: {target}")
            if layer in BELOW_PROBLEMS and t_layer == "problems" and t_problem:
                bad.append(f"{me} (below the problems) imports a problem: {target}")
            if layer in BELOW_PROBLEMS and t_layer in BELOW_PROBLEMS and \
                    BELOW_PROBLEMS.index(t_layer) > BELOW_PROBLEMS.index(layer):
                bad.append(f"{me} ({layer}) imports the higher layer {t_layer}: {target}")
            if layer in BELOW_PROBLEMS and t_layer in ("cli", "api", "repro"):
                bad.append(f"{me} ({layer}) imports {t_layer}: {target}")
            if me == "optsched.core.linear" and target.startswith("optsched.core.backends"):
                bad.append(f"{me} imports a back-end: {target}")
    return bad


def test_layers_import_only_downwards():
    bad = _violations()
    assert not bad, "layering violations:\n" + "\n".join(bad)


def test_the_import_reader_sees_relative_and_function_level_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "optsched" / "problems" / "alpha"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    mod = pkg / "solver.py"
    mod.write_text("from ..beta import model\n\ndef f():\n    from optsched.problems.gamma.x import y\n")
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path / "optsched")
    found = _imports(mod)
    assert "optsched.problems.beta.model" in found and "optsched.problems.gamma.x.y" in found


@pytest.mark.parametrize("module", ["optsched.core.linear"])
def test_the_model_layer_needs_no_solver(module):
    path = ROOT.parent / (module.replace(".", "/") + ".py")
    assert not any(t.startswith("optsched.core.backends") for t in _imports(path))


@pytest.mark.parametrize("alias,target", sorted(DEPRECATED_ALIASES.items()))
def test_deprecated_aliases_warn_and_re_export(alias, target):
    import importlib
    import sys

    sys.modules.pop(alias, None)
    with pytest.warns(DeprecationWarning, match="moved to"):
        old = importlib.import_module(alias)
    new = importlib.import_module(target)
    assert old.__all__ and all(getattr(old, name) is getattr(new, name) for name in new.__all__)
