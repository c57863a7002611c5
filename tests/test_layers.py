"""The architecture, checked: every arrow points down and no circle of files (docs/architecture.md).

Every module of ``optsched/`` is read with :mod:`ast`; its imports, at module level and inside
functions alike (names in docstrings are not imports), are edges of the module import graph:

* ``import a.b.c`` and ``from a.b import c`` where ``a.b.c`` is a module: an edge to that module;
* ``from a.b import name`` where ``name`` is not a module: an edge to ``a.b`` (the package's
  ``__init__.py`` when ``a.b`` is a package);
* that Python runs the ``__init__.py`` of every enclosing package before a module is not an edge of
  the file that imports it (it is how the interpreter loads packages, not a dependency of the file).

The rules, each a test below:

1. **Every module has a layer.** Each top-level module or package of ``optsched`` (a *unit*) sits
   in exactly one layer of :data:`LAYERS`; a new unit fails the test until it is given one.
2. **Every arrow points down.** A unit imports only units of strictly lower layers (units of one
   layer do not import each other), with one exception: ``optsched.problems`` (the package that
   imports every problem folder) imports the problem folders. A problem folder imports no other
   problem folder and not ``optsched.problems``. ``core.linear`` imports no back-end.
3. **No circle of files.** The module import graph has no cycle. A package's ``__init__.py`` that
   re-exports its children has edges to them, so a child that imports its own package's
   ``__init__`` (``from . import name``) closes a circle: children import the module that defines
   a name, never the package that re-exports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import optsched

ROOT = Path(optsched.__file__).parent

#: the layers, lowest first; a unit may import units of lower layers only. Units in one layer are
#: siblings that do not import each other. ``optsched`` is the package facade (optsched/__init__.py).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),                      # instances, results, registry, linear model, back-ends, solve()
    ("graphs",),                    # graph record, cuts, partitions, refinement
    ("chain",),                     # contiguous chain partition
    ("simulation",),                # cluster and pipeline simulators, slot convention
    ("workloads",),                 # DNN profiles, operator graphs, topologies, traces
    ("online", "pipeline"),         # adversarial search, guarantee watch; stage costs, antichains
    ("plotting", "experiments"),    # style, drawing pieces, cross-cutting plots; repro tables' declarations
    ("problems",),                  # one folder per problem, and the package that imports them all
    ("frames", "api", "plot"),      # results as frames; generate/check/load; a problem's picture
    ("compare",),                   # methods against a reference
    ("optsched",),                  # the package facade: optsched.solve, optsched.plot, ...
    ("quality", "instance_hashes", "gallery", "models_cli"),   # tools over the facade
    ("instances_build", "docs_build", "repro"),                # builders and sweeps
    ("cli",),                       # the command line
)

def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _raw_imports(path: Path, root: Path) -> list[tuple[str, tuple[str, ...]]]:
    """``(module, names)`` for every import statement of ``path`` (relative imports resolved);
    ``names`` is empty for ``import module``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((a.name, ()) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((mod, tuple(a.name for a in node.names)))
    top = root.name
    return [(m, n) for m, n in out if m == top or m.startswith(top + ".")]


def _imports(path: Path, root: Path = None) -> set[str]:
    """Every name ``path`` imports from the package, as dotted names (``mod`` and ``mod.name``)."""
    root = root or ROOT
    out: set[str] = set()
    for mod, names in _raw_imports(path, root):
        out.add(mod)
        out.update(f"{mod}.{n}" for n in names)
    return out


def import_graph(root: Path = None) -> dict[str, set[str]]:
    """module -> the modules it imports (edges as described in the module docstring)."""
    root = root or ROOT
    paths = {_module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for me, path in paths.items():
        targets = set()
        for mod, names in _raw_imports(path, root):
            if not names:
                # ``import a.b.c``: the deepest existing module named
                while mod and mod not in paths:
                    mod = mod.rpartition(".")[0]
                targets.add(mod)
                continue
            for n in names:
                if f"{mod}.{n}" in paths:
                    targets.add(f"{mod}.{n}")
                else:
                    base = mod
                    while base and base not in paths:
                        base = base.rpartition(".")[0]
                    targets.add(base)
        graph[me] = {t for t in targets if t and t != me}
    return graph


def unit(module: str) -> str:
    """The unit of a module: ``optsched`` (the facade), ``problems`` (the package importing every
    problem), ``problems.<name>`` (a problem folder) or the top-level name (``core``, ``cli``...)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "optsched"
    if parts[1] == "problems" and len(parts) >= 3:
        return "problems." + parts[2]
    return parts[1]


def layer_of(u: str) -> int | None:
    name = "problems" if u.startswith("problems.") else u
    for i, names in enumerate(LAYERS):
        if name in names:
            return i
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for me, targets in sorted(graph.items()):
        mine = unit(me)
        for target in sorted(targets):
            theirs = unit(target)
            if theirs == mine:
                continue
            a, b = layer_of(mine), layer_of(theirs)
            if a is None or b is None:
                continue  # reported by test_every_module_has_a_layer
            if mine == "problems" and theirs.startswith("problems."):
                continue  # the package that imports every problem folder
            if mine.startswith("problems.") and theirs.startswith("problems."):
                bad.append(f"{me} imports another problem: {target}")
            elif mine.startswith("problems.") and theirs == "problems":
                bad.append(f"{me} imports optsched.problems (the package of every problem)")
            elif b > a:
                bad.append(f"{me} ({mine}, layer {a}) imports the higher layer {theirs} (layer {b}): {target}")
            elif b == a:
                bad.append(f"{me} imports its sibling {theirs} of the same layer: {target}")
        if me == "optsched.core.linear" or me.startswith("optsched.core.linear."):
            bad += [f"{me} imports a back-end: {t}" for t in sorted(targets) if t.startswith("optsched.core.backends")]
    return bad


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (each holds a circle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _describe(comp: list[str], graph: dict[str, set[str]]) -> str:
    members = set(comp)
    return "circle of files:\n" + "\n".join(f"    {m} -> {', '.join(sorted(graph[m] & members))}" for m in comp)


GRAPH = import_graph()


def test_every_module_has_a_layer():
    units = {unit(m) for m in GRAPH}
    missing = sorted(u for u in units if layer_of(u) is None)
    assert not missing, f"give these modules a layer in LAYERS (and docs/architecture.md): {missing}"
    listed = [name for names in LAYERS for name in names]
    assert len(listed) == len(set(listed)), "a unit is listed in two layers"
    stale = sorted(set(listed) - {u.split(".")[0] for u in units})
    assert not stale, f"LAYERS names units that do not exist: {stale}"


def test_layers_import_only_downwards():
    bad = upward_imports(GRAPH)
    assert not bad, "layering violations:\n" + "\n".join(bad)


def test_no_circle_of_files():
    found = cycles(GRAPH)
    assert not found, "\n".join(_describe(c, GRAPH) for c in found)


def test_the_documented_layers_are_the_tested_ones():
    text = (ROOT.parent / "docs" / "architecture.md").read_text()
    for names in LAYERS:
        for name in names:
            shown = "optsched" if name == "optsched" else f"optsched.{name}"
            assert f"`{shown}`" in text, f"docs/architecture.md does not place {shown}"


# ---- the checker itself, on small made-up packages -------------------------------------------

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "optsched"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            init = root / parent / "__init__.py"
            if not init.exists():
                init.write_text("")
        path.write_text(text)
    return root


def test_the_import_reader_sees_relative_and_function_level_imports(tmp_path):
    root = _tree(tmp_path, {"problems/alpha/solver.py":
                            "from ..beta import model\n\ndef f():\n    from optsched.problems.gamma.x import y\n"})
    found = _imports(root / "problems" / "alpha" / "solver.py", root)
    assert "optsched.problems.beta.model" in found and "optsched.problems.gamma.x.y" in found


def test_an_upward_import_fails(tmp_path):
    root = _tree(tmp_path, {"core/a.py": "def f():\n    from optsched.frames import results_frame\n",
                            "frames.py": "from optsched.core.a import f\n",
                            "graphs/g.py": "from ..workloads import traces\n",
                            "workloads/traces.py": "",
                            "problems/alpha/m.py": "from optsched.problems.beta import x\n",
                            "problems/beta/x.py": "",
                            "problems/gamma/m.py": "from optsched.problems import alpha\n",
                            "api.py": "from . import plot\n", "plot.py": ""})
    bad = "\n".join(upward_imports(import_graph(root)))
    assert "optsched.core.a (core, layer 0) imports the higher layer frames" in bad
    assert "optsched.graphs.g (graphs, layer 1) imports the higher layer workloads" in bad
    assert "optsched.problems.alpha.m imports another problem: optsched.problems.beta.x" in bad
    assert "optsched.problems.gamma.m imports another problem: optsched.problems.alpha" in bad
    assert "optsched.api imports its sibling plot" in bad
    assert not [line for line in bad.splitlines() if line.startswith("optsched.frames ")]  # frames -> core: down


def test_a_circle_fails_also_through_a_package_init_and_a_function_level_import(tmp_path):
    root = _tree(tmp_path, {"core/backends/__init__.py": "from .base import Backend\n",
                            "core/backends/base.py": "class Backend:\n    def f(self):\n"
                                                     "        from .watchdog import run\n",
                            "core/backends/watchdog.py": "def run():\n    from . import Backend\n",
                            "core/x.py": "import optsched.core.y\n", "core/y.py": "from optsched.core import x\n",
                            "core/z.py": "from optsched.core.x import name\n"})
    graph = import_graph(root)
    assert graph["optsched.core.backends.watchdog"] == {"optsched.core.backends"}
    found = cycles(graph)
    assert ["optsched.core.backends", "optsched.core.backends.base", "optsched.core.backends.watchdog"] in found
    assert ["optsched.core.x", "optsched.core.y"] in found
    assert len(found) == 2


def test_the_model_layer_needs_no_solver():
    assert not any(t.startswith("optsched.core.backends") for t in GRAPH["optsched.core.linear"])


@pytest.mark.parametrize("module", ["optsched.core.simulation"])
def test_removed_aliases_stay_removed(module):
    assert module not in GRAPH


def test_the_pipeline_alias_warns_and_re_exports():
    """``optsched.pipeline.schedule_sim`` (now ``optsched.simulation.pipeline``) stays one more
    release; it only re-exports, downwards."""
    import importlib
    import sys

    alias, target = "optsched.pipeline.schedule_sim", "optsched.simulation.pipeline"
    assert GRAPH[alias] == {target}
    sys.modules.pop(alias, None)
    with pytest.warns(DeprecationWarning, match="moved to"):
        old = importlib.import_module(alias)
    new = importlib.import_module(target)
    assert old.__all__ and all(getattr(old, name) is getattr(new, name) for name in new.__all__)


#: names that moved to a lower or a new module to break a circle or split a file, at the place users
#: import them from (left) and where they are defined now (right): the same objects
MOVED = [("optsched.core.result", "relative_gap", "optsched.core.gaps"),
         ("optsched.core.solving", "objective_tolerance", "optsched.core.gaps"),
         ("optsched.frames", "result_row", "optsched.core.result"),
         ("optsched.core.instance", "canonical_json", "optsched.core.jsonfile"),
         ("optsched.core.instance", "load_json_file", "optsched.core.jsonfile"),
         ("optsched.core.instance", "COMPACT_ABOVE", "optsched.core.jsonfile"),
         ("optsched.core.instance", "MAX_MAGNITUDE", "optsched.core.values"),
         ("optsched.core.instance", "MAX_INTEGER", "optsched.core.values"),
         ("optsched.core.backends.highs", "quiet_stdout", "optsched.core.backends.stdio"),
         ("optsched.core.backends.base", "solver_time_limit", "optsched.core.backends.watchdog")] + \
    [("optsched.simulation.cluster", name, f"optsched.simulation.{where}")
     for where, names in (("jobs", ("Cluster", "JobTable", "SimJob", "Allocation", "Event", "SimulationError")),
                          ("policies", ("Policy", "FifoPolicy", "RateModel")), ("results", ("SimulationResult",)))
     for name in names]


@pytest.mark.parametrize("old, name, new", MOVED)
def test_moved_names_stay_importable_where_users_import_them(old, name, new):
    import importlib

    assert getattr(importlib.import_module(old), name) is getattr(importlib.import_module(new), name)


def test_the_backends_by_name_are_the_catalog_plus_the_portfolio():
    from optsched.core.backends import BACKENDS
    from optsched.core.backends.catalog import SOLVERS

    assert list(BACKENDS) == [*SOLVERS, "portfolio"] and all(BACKENDS[n] is SOLVERS[n] for n in SOLVERS)
