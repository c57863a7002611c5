"""Finding and importing the experiment scripts: ``paper_repro/*.py``, then each problem's own.

Every ``*.py`` file directly in the scripts folder whose name does not start with ``_`` is an
experiment script, taken in sorted file-name order; it must define a module-level ``EXPERIMENT``
(:class:`~optsched.repro.experiment.Experiment`). After them, the ``repro.py`` of every registered
problem's folder that has one (problems in name order): a problem declares its own experiment
there, and since a problem imports nothing above it, its ``EXPERIMENT`` may be a plain ``dict`` of
the :class:`Experiment` fields. The experiment's id comes from ``EXPERIMENT.id``;
a script that fails to import is reported under the id its file name starts with (``t2b_mknap.py``
-> ``T2B``) so that ``--only`` can still name it. Scripts are imported by path, both in the driver
and in the workers, under a module name derived from the path (they are not a package).
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

from .experiment import Experiment

__all__ = ["Script", "discover", "load_script", "module_experiment", "problem_scripts", "select", "format_exception"]

#: experiment ids name files (``<id>_<name>.md``): a letter, then letters, digits and "-"
#: (the "_" separates id and name)
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9-]*$")


@dataclass
class Script:
    """One discovered script: its experiment, or why it could not be loaded."""

    path: Path
    experiment: Experiment | None
    error: str | None = None
    #: where the script lives, for reports: None for a script of the scripts folder
    #: (``paper_repro/<name>``), ``optsched/problems/<folder>/repro.py`` for a problem's own
    origin: str | None = None

    @property
    def id(self) -> str:
        if self.experiment is not None:
            return self.experiment.id
        return self.path.stem.split("_", 1)[0].upper()


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


def module_experiment(module: ModuleType):
    """The module's ``EXPERIMENT`` (an :class:`Experiment`; a ``dict`` of its fields is converted)."""
    experiment = getattr(module, "EXPERIMENT", None)
    return Experiment(**experiment) if isinstance(experiment, dict) else experiment


def _experiment_of(path: Path) -> Experiment:
    module = load_script(path)
    experiment = module_experiment(module)
    if not isinstance(experiment, Experiment):
        raise TypeError(f"{path.name} defines no module-level EXPERIMENT = Experiment(...)")
    if not _ID.match(experiment.id):
        raise ValueError(f"{path.name}: experiment id {experiment.id!r} must be a letter followed by letters, "
                         f"digits and '-'")
    return experiment


#: the file of a problem's folder that declares the problem's own experiment
PROBLEM_SCRIPT = "repro.py"


def problem_scripts() -> list[tuple[Path, str]]:
    """``(path, origin)`` of the :data:`PROBLEM_SCRIPT` of every registered problem's folder
    that has one, problems in name order."""
    import importlib.util

    import optsched  # registers every problem

    out = []
    for _, problem in sorted(optsched.list_problems().items()):
        spec = importlib.util.find_spec(problem.package) if problem.package else None
        for folder in (spec.submodule_search_locations or []) if spec else []:
            path = Path(folder) / PROBLEM_SCRIPT
            if path.is_file():
                out.append((path, "/".join(problem.package.split(".")) + "/" + PROBLEM_SCRIPT))
    return out


def discover(scripts_dir: str | Path, *, problems: bool = True) -> list[Script]:
    """Every experiment script in ``scripts_dir`` (sorted by file name), then (``problems``) the
    :data:`PROBLEM_SCRIPT` of every problem folder that has one; each loaded or with its error.

    Two scripts declaring the same id: the later one (in that order) is reported as an error.
    """
    scripts: list[Script] = []
    seen: dict[str, str] = {}
    found = [(path, None) for path in sorted(Path(scripts_dir).glob("*.py")) if not path.name.startswith("_")]
    for path, origin in found + (problem_scripts() if problems else []):
        try:
            experiment = _experiment_of(path)
        except Exception:
            scripts.append(Script(path, None, format_exception(), origin))
            continue
        key = experiment.id.lower()
        if key in seen:
            scripts.append(Script(path, None, f"experiment id {experiment.id!r} is already declared by "
                                              f"{seen[key]}", origin))
            continue
        seen[key] = origin or path.name
        scripts.append(Script(path, experiment, None, origin))
    return scripts


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
