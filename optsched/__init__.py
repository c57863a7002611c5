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
from .core.registry import get_problem, problems as list_problems
from .core.result import Result
from .core.solving import solve
from . import problems as _problems  # noqa: E402,F401  (importing registers every problem)
from .api import check, generate, load_instance, load_result  # noqa: E402
from .frames import repro_frame, results_frame  # noqa: E402
from .compare import compare  # noqa: E402
from .plotting.crosscut import plot_ratios  # noqa: E402
from . import plot  # noqa: E402  (the module is callable: optsched.plot(instance, result, path))

__all__ = ["solve", "check", "generate", "load_instance", "load_result", "get_problem", "list_problems",
           "results_frame", "repro_frame", "compare", "plot", "plot_ratios",
           "Result", "OptschedError", "InvalidInputError", "InvalidInstanceError", "InvalidOptionError",
           "NotApplicable", "BackendRefused", "UnknownNameError", "Infeasible",
           "__version__"]
