"""``pipeline-schedule``: the order of forwards and backwards of M microbatches on each stage of
a planned synchronous pipeline (docs ``optsched/problems/pipeline_schedule/README.md``).

The checker is the exact event simulator :mod:`optsched.simulation.pipeline`. Methods:
``gpipe``, ``1f1b``, ``kfkb`` (public schedules), ``list`` (optsched's list scheduler), ``milp``
(exact, small), ``brute`` (exact, tiny). Ada-Grouper under bandwidth preemption is a problem of
its own (``optsched/problems/pipeline_schedule/README.md``).
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import build_model
from .generate import from_plan, generate
from .instance import PipelineScheduleInstance, check
from .problem import PROBLEM

__all__ = ["PipelineScheduleInstance", "PROBLEM", "generate", "from_plan", "check", "build_model"]
