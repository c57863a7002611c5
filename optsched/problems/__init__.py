"""One package per problem; importing this package registers all of them.

Each problem folder holds its instance type, checker, generators, exact model, algorithms and
baselines, and registers itself with :mod:`optsched.core.registry` when imported. Problems
import only from :mod:`optsched.core`, never from each other. Every sub-package found here is
imported (in name order), so adding a problem is adding a folder.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = [m.name for m in pkgutil.iter_modules(__path__) if m.ispkg]

for _name in sorted(__all__):
    importlib.import_module(f"{__name__}.{_name}")
