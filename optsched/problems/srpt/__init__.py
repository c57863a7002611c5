"""``srpt``: online scheduling of DL jobs with predictions (A-SRPT; docs ``optsched/problems/srpt/README.md``).

A GPU cluster receives jobs with job graphs (rings, chains, grids), true and predicted iteration
counts; the objective is total flow time. Methods: ``a-srpt`` (online, reconstruction),
baselines ``fifo``, ``sjf-oracle``, ``tiresias-las`` (each with heuristic or random placement),
and the lower bound ``lb`` (kind ``bound``). No exact method: see ``optsched/problems/srpt/README.md#srpt``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .generate import generate, load_gavel_stream
from .instance import SrptInstance, SrptJob, check
from .problem import PROBLEM

__all__ = ["SrptInstance", "SrptJob", "PROBLEM", "generate", "load_gavel_stream", "check"]
