"""Deprecated alias of :mod:`optsched.simulation.cluster` (moved to the simulation layer); it
will be removed in the next release."""

from __future__ import annotations

import warnings

warnings.warn("optsched.core.simulation moved to optsched.simulation.cluster", DeprecationWarning, stacklevel=2)

from optsched.simulation.cluster import *  # noqa: E402,F401,F403
from optsched.simulation.cluster import __all__  # noqa: E402,F401
