"""The exact snapshot model (on :func:`optsched.workloads.colocation.build_placement_model`)."""

from __future__ import annotations

from optsched.core.linear import LinearModel
from optsched.workloads.colocation import build_placement_model


def build_model(instance, poll=None) -> LinearModel:
    """The snapshot MILP of ``instance`` (see :func:`~optsched.workloads.colocation.build_placement_model`)."""
    return build_placement_model(instance.snapshot, instance.problem, poll)
