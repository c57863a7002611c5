"""Finding and importing the experiment scripts: ``paper_repro/*.py``, then each problem's own.

Every ``*.py`` file directly in the scripts folder whose name does not start with ``_`` is an
experiment script, taken in sorted file-name order (a problem-free table, e.g. one that iterates
the registry); it must define a module-level ``EXPERIMENT``
(:class:`~optsched.experiments.declaration.Experiment`). After them, the ``repro.py`` of every
registered problem's folder that has one (problems in name order): a problem declares its own
experiments there, ``EXPERIMENT`` or a list ``EXPERIMENTS``, and since a problem imports nothing
above it, each may be a plain ``dict`` of the :class:`Experiment` fields.

A table over several problems is declared in parts (``part=``, ``order=``; one per problem folder);
the parts of one id are joined into one :class:`Script` whose experiment runs every part's cells
(``docs/repro.md``). The experiment's id comes from ``EXPERIMENT.id``; a script that fails to
import is reported under the id its file name starts with (``t2b_mknap.py`` -> ``T2B``, a problem's
``repro.py`` under its folder's name) so that ``--only`` can still name it. Scripts are imported by
path, both in the driver and in the workers, under a module name derived from the path (they are
not a package); a worker finds the declaration it runs by its name (:attr:`Part.declaration`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from optsched.core.errors import UnknownNameError

from optsched.experiments.declaration import Experiment

__all__ = ["Script", "Part", "discover", "load_script", "module_experiment", "module_experiments",
           "declaration_of", "problem_scripts", "select", "format_exception"]

#: experiment ids name files (``<id>_<name>.md``): a letter, then letters, digits and "-"
#: (the "_" separates id and name)
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9-]*$")


@dataclass
class Part:
    """One declaration of a table: the file that holds it and its experiment (a whole table, or
    one problem's part of it)."""

    path: Path
    experiment: Experiment
    origin: str | None = None

    @property
    def declaration(self) -> str:
        """The name a worker finds this declaration by in its file: ``id``, or ``id/part``."""
        exp = self.experiment
        return f"{exp.id}/{exp.part}" if exp.part else exp.id


@dataclass
class Script:
    """One discovered table: its experiment, or why it could not be loaded."""

    path: Path
    experiment: Experiment | None
    error: str | None = None
    #: where the script lives, for reports: None for a script of the scripts folder
    #: (``paper_repro/<name>``), ``optsched/problems/<folder>/repro.py`` for a problem's own
    #: (the parts' files, joined by ", ", for a table declared in parts)
    origin: str | None = None
    #: the declarations the table is made of, in order: one, or one per part
    parts: list[Part] | None = None
    #: the table's id when its parts could not be joined (there is no experiment to take it from)
    table_id: str | None = None

    @property
    def id(self) -> str:
        if self.experiment is not None:
            return self.experiment.id
        if self.table_id:
            return self.table_id
        if self.path.name == PROBLEM_SCRIPT:
            return self.path.parent.name.upper()
        return self.path.stem.split("_", 1)[0].upper()

    @property
    def paths(self) -> list[Path]:
        """Every file the table's cells run from (their digests are part of every cell key)."""
        return [part.path for part in self.parts] if self.parts else [self.path]

    def cell_sources(self, quick: bool) -> list[tuple[Path, str]]:
        """``(file, declaration)`` of each of ``experiment.cells(quick)``, in the same order."""
        out: list[tuple[Path, str]] = []
        for part in self.parts or []:
            n = len(part.experiment.cells(quick)) if len(self.parts) > 1 else len(self.experiment.cells(quick))
            out += [(part.path, part.declaration)] * n
        return out


def format_exception(limit: int = 12) -> str:
    """The current exception's traceback, its last ``limit`` lines."""
    lines = traceback.format_exc().rstrip().splitlines()
    return "\n".join(lines[-limit:])


def _module_name(path: Path) -> str:
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:10]
    return f"_optsched_repro_{path.stem}_{digest}"


def load_script(path: str | Path) -> ModuleType:
    """Import the script at ``path`` (once per process) and return its module."""
    path = Path(path).resolve()
    name = _module_name(path)
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _as_experiment(declared):
    return Experiment(**declared) if isinstance(declared, dict) else declared


def module_experiment(module: ModuleType):
    """The module's ``EXPERIMENT`` (an :class:`Experiment`; a ``dict`` of its fields is converted)."""
    return _as_experiment(getattr(module, "EXPERIMENT", None))


def module_experiments(module: ModuleType) -> list:
    """Every declaration of the module: its ``EXPERIMENT``, then the items of its ``EXPERIMENTS``
    (each converted from a ``dict`` when it is one)."""
    out = [] if getattr(module, "EXPERIMENT", None) is None else [module_experiment(module)]
    return out + [_as_experiment(item) for item in getattr(module, "EXPERIMENTS", ())]


def declaration_of(module: ModuleType, name: str = "") -> Experiment:
    """The module's declaration named ``name`` (``id`` or ``id/part``, :attr:`Part.declaration`);
    its ``EXPERIMENT`` when ``name`` is empty (what a worker runs a cell of)."""
    if not name:
        return module_experiment(module)
    for experiment in module_experiments(module):
        if isinstance(experiment, Experiment) and (
                f"{experiment.id}/{experiment.part}" if experiment.part else experiment.id) == name:
            return experiment
    raise LookupError(f"{getattr(module, '__file__', module)} declares no experiment {name!r}")


def _experiments_of(path: Path) -> list[Experiment]:
    module = load_script(path)
    experiments = module_experiments(module)
    if not experiments or not all(isinstance(e, Experiment) for e in experiments):
        raise TypeError(f"{path.name} defines no module-level EXPERIMENT = Experiment(...) (or EXPERIMENTS, a list)")
    for experiment in experiments:
        if not _ID.match(experiment.id):
            raise ValueError(f"{path.name}: experiment id {experiment.id!r} must be a letter followed by letters, "
                             f"digits and '-'")
    return experiments


class _PartsWriter:
    """The writer the parts of one table report through: the runner's writer, plus ``shared`` (a
    dict that lives while the table's parts report, in order: a part may leave a drawing piece for
    a later part, e.g. a figure whose panels show two parts' rows) and ``at_end`` (callables run
    after every part has reported, e.g. saving that figure)."""

    def __init__(self, out):
        self._out = out
        self.shared: dict = {}
        self.at_end: list = []

    def __getattr__(self, name):
        return getattr(self._out, name)


def join_parts(parts: list[Part]) -> Experiment:
    """One experiment from a table's parts (sorted by ``order``): the header of the part of order
    0; the cells of every part in order; the parts' methods and data files, in order (each once); each part's
    ``report`` with its own rows. ``run_cell`` finds the part of a cell by its parameters (the
    runner does not need it: each task names its part's file and declaration)."""
    from dataclasses import replace

    experiments = [part.experiment for part in parts]
    lead = experiments[0]

    def cells(quick: bool) -> list[dict]:
        return [params for experiment in experiments for params in experiment.cells(quick)]

    def run_cell(params: dict, seed: int) -> dict:
        for quick in (False, True):
            for experiment in experiments:
                if params in experiment.cells(quick):
                    return experiment.run_cell(params, seed)
        raise LookupError(f"{lead.id}: no part declares the cell {params!r}")

    def report(rows: list[dict], out) -> None:
        writer = _PartsWriter(out)
        start = 0
        for experiment in experiments:
            count = len(experiment.cells(out.quick))
            experiment.report(rows[start:start + count], writer)
            start += count
        for finish in writer.at_end:
            finish()

    methods = tuple(dict.fromkeys(m for experiment in experiments for m in experiment.methods))
    data = tuple(dict.fromkeys(f for experiment in experiments for f in experiment.requires_data))
    return replace(lead, cells=cells, run_cell=run_cell, report=report, methods=methods, requires_data=data,
                   part="", order=0)


#: the file of a problem's folder that declares the problem's own experiment
PROBLEM_SCRIPT = "repro.py"


def problem_scripts() -> list[tuple[Path, str]]:
    """``(path, origin)`` of the :data:`PROBLEM_SCRIPT` of every registered problem's folder
    that has one, problems in name order."""
    import importlib.util

    import optsched  # registers every problem

    out = []
    for _, problem in sorted(optsched.core.registry.problems().items()):
        spec = importlib.util.find_spec(problem.package) if problem.package else None
        for folder in (spec.submodule_search_locations or []) if spec else []:
            path = Path(folder) / PROBLEM_SCRIPT
            if path.is_file():
                out.append((path, "/".join(problem.package.split(".")) + "/" + PROBLEM_SCRIPT))
    return out


def discover(scripts_dir: str | Path, *, problems: bool = True) -> list[Script]:
    """Every experiment script in ``scripts_dir`` (sorted by file name), then (``problems``) the
    :data:`PROBLEM_SCRIPT` of every problem folder that has one; each loaded or with its error.
    The parts of a table declared in parts are joined into one script, where its first part is.

    Two scripts declaring the same id (not as parts of one table): the later one (in that order) is
    reported as an error; two parts of the same name, or parts without the one of order 0: the
    table is.
    """
    found = [(path, None) for path in sorted(Path(scripts_dir).glob("*.py")) if not path.name.startswith("_")]
    tables: dict[str, list] = {}      # id (lower case) -> its parts, or [error script]
    order: list[object] = []          # table ids and failed scripts, in the order they are met
    for path, origin in found + (problem_scripts() if problems else []):
        try:
            experiments = _experiments_of(path)
        except Exception:
            order.append(Script(path, None, format_exception(), origin))
            continue
        for experiment in experiments:
            key = experiment.id.lower()
            if key in tables and not (experiment.part and all(p.experiment.part for p in tables[key])):
                first = tables[key][0]
                order.append(Script(path, None, f"experiment id {experiment.id!r} is already declared by "
                                                f"{first.origin or first.path.name}", origin))
                continue
            if key not in tables:
                tables[key] = []
                order.append(key)
            tables[key].append(Part(path, experiment, origin))
    scripts: list[Script] = []
    for item in order:
        if isinstance(item, Script):
            scripts.append(item)
            continue
        parts = tables[item]
        first = parts[0]
        if len(parts) == 1 and not first.experiment.part:
            scripts.append(Script(first.path, first.experiment, None, first.origin, parts))
            continue
        error = _parts_error(parts)
        if error:
            scripts.append(Script(first.path, None, error, ", ".join(_where(p) for p in parts),
                                  table_id=first.experiment.id))
            continue
        parts = sorted(parts, key=lambda p: p.experiment.order)
        origin = ", ".join(_where(p) for p in parts)
        scripts.append(Script(parts[0].path, join_parts(parts), None, origin, parts))
    return scripts


def _where(part: Part) -> str:
    """Where a part of a joined table lives, for reports: its origin, or ``<folder>/<file>``."""
    return part.origin or f"{part.path.parent.name}/{part.path.name}"


def _parts_error(parts: list[Part]) -> str | None:
    """Why a table's declarations cannot be joined (None when they can)."""
    first = parts[0]
    names = [p.experiment.part for p in parts]
    if len(set(names)) != len(names):
        return f"experiment {first.experiment.id!r}: two parts are named alike ({', '.join(sorted(names))})"
    orders = [p.experiment.order for p in parts]
    if len(set(orders)) != len(orders) or min(orders) != 0:
        return (f"experiment {first.experiment.id!r}: its parts need distinct orders, one of them 0 (the part "
                f"with the header); got {', '.join(f'{n}={o}' for n, o in zip(names, orders))}")
    return None


def select(scripts: list[Script], only: list[str] | None) -> list[Script]:
    """The scripts whose ids are in ``only`` (case-insensitive; all when ``only`` is empty).

    Raises :class:`~optsched.core.errors.UnknownNameError` (exit status 2) for an id no script has.
    """
    if not only:
        return scripts
    wanted = {name.lower() for name in only}
    known = {s.id.lower() for s in scripts}
    for name in only:
        if name.lower() not in known:
            raise UnknownNameError("experiment id", name, sorted({s.id for s in scripts}))
    return [s for s in scripts if s.id.lower() in wanted]
