"""Typed errors shared by every problem.

The contract (spec README, "Errors and statuses"):

* statically invalid input -> :class:`InvalidInstanceError` naming the problem, the field and the
  rule; the CLI prints one line and exits with status 2;
* a valid instance without a feasible solution is *not* an error: methods raise
  :class:`Infeasible` internally and :func:`optsched.solve` turns it into a result with
  ``status = "infeasible"`` and the reason (CLI exit status 3).
"""

from __future__ import annotations

__all__ = [
    "OptschedError",
    "InvalidInstanceError",
    "NotApplicable",
    "UnknownNameError",
    "Infeasible",
    "SolverError",
]


class OptschedError(Exception):
    """Base class of every error optsched raises on purpose."""

    exit_status = 1


class InvalidInstanceError(OptschedError, ValueError):
    """Statically invalid input: malformed file, unknown field, negative size, wrong version.

    >>> e = InvalidInstanceError("mknap", "weights[0][3]", "must be >= 0", got=-2)
    >>> str(e)
    "mknap: field 'weights[0][3]': must be >= 0 (got -2)"
    """

    exit_status = 2

    def __init__(self, problem: str, field: str, rule: str, got: object = ...):
        self.problem = problem
        self.field = field
        self.rule = rule
        self.got = got
        msg = f"{problem}: field {field!r}: {rule}"
        if got is not ...:
            text = repr(got)
            if len(text) > 60:
                text = text[:57] + "..."
            msg += f" (got {text})"
        super().__init__(msg)


class NotApplicable(InvalidInstanceError):
    """A method cannot produce a solution of this (valid, possibly feasible) instance, e.g. a
    published schedule that needs more microbatches in flight than the instance's cap allows: not
    a verdict on the instance (another method may solve it), so CLI exit status 2, not 3.

    >>> str(NotApplicable("pipeline-schedule", "gpipe", "keeps 4 microbatches in flight, cap 3"))
    "pipeline-schedule: field '(method)': method 'gpipe' does not apply to this instance: keeps 4 microbatches in flight, cap 3"
    """

    def __init__(self, problem: str, method: str, reason: str):
        self.method, self.reason = method, reason
        super().__init__(problem, "(method)", f"method {method!r} does not apply to this instance: {reason}")


class UnknownNameError(OptschedError, KeyError):
    """An unknown problem, method, back-end, preset or format name (CLI exit status 2)."""

    exit_status = 2

    def __init__(self, kind: str, name: str, known: list[str] | tuple[str, ...]):
        self.kind, self.name, self.known = kind, name, tuple(known)
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(sorted(known)) or '(none)'}")

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


class Infeasible(OptschedError):
    """Raised by a method when the (valid) instance has no feasible solution, with the reason.

    :func:`optsched.solve` converts it into a result with ``status = "infeasible"``.
    """

    exit_status = 3

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class SolverError(OptschedError):
    """A back-end failed (not installed, crashed, returned an unusable status)."""

    exit_status = 1


class BackendRefused(InvalidInstanceError):
    """A solver back-end refuses a model it cannot solve exactly (CLI exit status 2), naming why:
    e.g. CP-SAT and a continuous column, or a coefficient that has no exact integer scaling.

    Raised before the solver runs, never after a partial answer; a refusal is not a verdict on the
    instance (another back-end may solve it).

    >>> str(BackendRefused("cpsat", "mknap-milp", "column 3 is continuous"))
    "mknap-milp: field 'backend': cpsat refuses this model: column 3 is continuous"
    """

    def __init__(self, backend: str, model: str, reason: str):
        self.backend, self.reason = backend, reason
        super().__init__(model, "backend", f"{backend} refuses this model: {reason}")


__all__.append("BackendRefused")
