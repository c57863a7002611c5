"""Finding and importing the experiment scripts ``paper_repro/*.py``.

Every ``*.py`` file directly in the scripts folder whose name does not start with ``_`` is an
experiment script, taken in sorted file-name order; it must define a module-level ``EXPERIMENT``
(:class:`~optsched.repro.experiment.Experiment`). The experiment's id comes from ``EXPERIMENT.id``;
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

__all__ = ["Script", "discover", "load_script", "select", "format_exception"]

#: experiment ids name files (``<id>_<name>.md``): a letter, then letters, digits and "-"
#: (the "_" separates id and name)
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9-]*$")


@dataclass
class Script:
    """One discovered script: its experiment, or why it could not be loaded."""

    path: Path
    experiment: Experiment | None
    error: str | None = None

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


def _experiment_of(path: Path) -> Experiment:
    module = load_script(path)
    experiment = getattr(module, "EXPERIMENT", None)
    if not isinstance(experiment, Experiment):
        raise TypeError(f"{path.name} defines no module-level EXPERIMENT = Experiment(...)")
    if not _ID.match(experiment.id):
        raise ValueError(f"{path.name}: experiment id {experiment.id!r} must be a letter followed by letters, "
                         f"digits and '-'")
    return experiment


def discover(scripts_dir: str | Path) -> list[Script]:
    """Every experiment script in ``scripts_dir`` (sorted by file name), loaded or with its error.

    Two scripts declaring the same id: the later one (in file-name order) is reported as an error.
    """
    scripts: list[Script] = []
    seen: dict[str, Path] = {}
    for path in sorted(Path(scripts_dir).glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            experiment = _experiment_of(path)
        except Exception:
            scripts.append(Script(path, None, format_exception()))
            continue
        key = experiment.id.lower()
        if key in seen:
            scripts.append(Script(path, None, f"experiment id {experiment.id!r} is already declared by "
                                              f"{seen[key].name}"))
            continue
        seen[key] = path
        scripts.append(Script(path, experiment))
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
