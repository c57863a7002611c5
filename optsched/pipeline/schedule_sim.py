"""Deprecated alias of :mod:`optsched.simulation.pipeline` (moved to the simulation layer); it
will be removed in the next release."""

from __future__ import annotations

import warnings

warnings.warn("optsched.pipeline.schedule_sim moved to optsched.simulation.pipeline", DeprecationWarning,
              stacklevel=2)

from optsched.simulation.pipeline import *  # noqa: E402,F401,F403
from optsched.simulation.pipeline import __all__  # noqa: E402,F401
