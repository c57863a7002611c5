"""optsched: exact models, approximation and online algorithms for distributed deep-learning
cluster scheduling, checked against HiGHS optima.

>>> import optsched
>>> inst = optsched.generate("mknap", seed=1, preset="tiny")
>>> result = optsched.solve(inst, "milp")
>>> result.status
'optimal'
>>> optsched.solve(inst, "brute").objective == result.objective
True
"""

from __future__ import annotations

__version__ = "0.1.0"

from .core.startup import hold_sigint_for_cli as _hold_sigint_for_cli

_hold_sigint_for_cli()  # the command line answers a Ctrl-C during its imports with exit 130 (cli.main)

from .core.errors import (BackendRefused, Infeasible, InvalidInputError, InvalidInstanceError, InvalidOptionError,
                          NotApplicable, OptschedError, UnknownNameError)
from .core.registry import get_problem
from .core.result import Result
from .core.solving import solve
from . import problems as _problems  # noqa: E402,F401  (importing registers every problem)
from .api import check, load_instance, load_result  # noqa: E402
from .core.generation import generate  # noqa: E402  (documents its parameters; api.generate is the same call)
from .frames import repro_frame, results_frame  # noqa: E402
from .compare import compare  # noqa: E402
from .plotting.crosscut import plot_ratios  # noqa: E402
from . import plot  # noqa: E402  (the module is callable: optsched.plot(instance, result, path))


def list_problems():
    """The registered problems as a table: a pandas DataFrame, one row per problem in name order.

    Columns: ``name`` (what :func:`generate`, :func:`solve` and the CLI take), ``title``, ``sense``
    (``min`` or ``max``), ``objective`` (the one-line definition), ``unit`` (the objective's unit:
    ``s``, ``bytes``, ``slots``, ``(unitless)``, ...; per objective when the instance picks one),
    ``methods`` (how many),
    ``reference`` (the exact method the others are measured against, several in order of
    preference, comma-separated; empty when there is none), ``default_method``, ``kinds`` (the
    methods' kinds: exact, approximation, online, heuristic, baseline, bound), ``presets`` and
    ``importers`` (the names :func:`generate`'s ``preset`` and ``optsched import --format`` take).

    The registry's records themselves (what shared code reads) are
    :func:`optsched.core.registry.problems` (a dict name -> :class:`~optsched.core.registry.Problem`)
    and :func:`get_problem`; ``help(optsched.get_problem(NAME))`` documents one problem's options.

    >>> import optsched
    >>> table = optsched.list_problems()
    >>> list(table.columns)[:4]
    ['name', 'title', 'sense', 'objective']
    >>> row = table.set_index("name").loc["mknap"]
    >>> row["sense"], row["reference"], bool(row["methods"] == len(optsched.get_problem("mknap").methods))
    ('max', 'milp, brute', True)
    >>> len(table[:3])
    3
    """
    import pandas as pd

    from .core.registry import KINDS, problems

    rows = []
    for name, p in sorted(problems().items()):
        kinds = {m.kind for m in p.methods.values()}
        rows.append({"name": name, "title": p.title, "sense": p.sense, "objective": p.objective,
                     "methods": len(p.methods), "reference": ", ".join(p.reference_methods),
                     "unit": (", ".join(f"{u} ({k})" for k, u in p.objective_unit.items())
                              if isinstance(p.objective_unit, dict) else p.objective_unit or ""),
                     "default_method": p.default_method, "kinds": ", ".join(k for k in KINDS if k in kinds),
                     "presets": ", ".join(p.presets), "importers": ", ".join(p.importers)})
    columns = ["name", "title", "sense", "objective", "unit", "methods", "reference", "default_method", "kinds",
               "presets", "importers"]
    return pd.DataFrame(rows, columns=columns)

__all__ = ["solve", "check", "generate", "load_instance", "load_result", "get_problem", "list_problems",
           "results_frame", "repro_frame", "compare", "plot", "plot_ratios",
           "Result", "OptschedError", "InvalidInputError", "InvalidInstanceError", "InvalidOptionError",
           "NotApplicable", "BackendRefused", "UnknownNameError", "Infeasible",
           "__version__"]
