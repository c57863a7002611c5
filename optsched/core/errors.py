"""Typed errors shared by every problem: one class per meaning.

The contract (``docs/cli.md``, "Exit statuses", is the one table of exit codes):

* :class:`InvalidInputError` (exit 2) is the common base of everything the *caller* must change,
  always naming the problem (or ``cli``), the field and the rule in one line. Its kinds say what
  to change:

  - :class:`InvalidInstanceError`: the instance or the file is wrong (malformed JSON, unknown
    field, negative size, wrong format version, a malformed line of an imported trace);
  - :class:`InvalidOptionError`: an option, a parameter or a setting is wrong (a generator
    option, a method option, ``time_limit``/``threads``/``node_limit``, a command-line argument);
    :class:`UnknownNameError` (an unknown problem, method, back-end, preset or format) is one;
  - :class:`NotApplicable`: the input is valid, but this method cannot produce a solution of it
    (pick another method);
  - :class:`BackendRefused`: the input is valid, but this back-end refuses the model it would
    have to solve (pick another back-end);

* a valid instance without a feasible solution is *not* an error: methods raise
  :class:`Infeasible` internally and :func:`optsched.solve` turns it into a result with
  ``status = "infeasible"`` and the reason (CLI exit status 3);
* a limit reached is *not* an error either: :class:`TimeLimitReached` is how a method's loop
  stops at its budget, and :func:`optsched.solve` turns it into a result with
  ``status = "time_limit"`` (its incumbent if it carried one, else no solution; exit 0);
  back-ends report ``time_limit``, ``node_limit`` and ``gap_limit`` as statuses. So no exception
  "a limit was reached with nothing to return" ever reaches a caller of :func:`optsched.solve`:
  a limit with nothing to return is a ``time_limit`` (or ``node_limit``) result without a
  solution;
* :class:`SolverError` (exit 1): a back-end failed.

Catch :class:`InvalidInputError` for "any invalid input"; ``except ValueError`` still catches
every kind of it (and ``except KeyError`` an unknown name), as it always did.
"""

from __future__ import annotations

__all__ = [
    "OptschedError",
    "InvalidInputError",
    "InvalidInstanceError",
    "InvalidOptionError",
    "NotApplicable",
    "BackendRefused",
    "UnknownNameError",
    "Infeasible",
    "TimeLimitReached",
    "SolverError",
    "close_matches",
    "did_you_mean",
]


def close_matches(name: object, known, n: int = 3) -> list[str]:
    """The names of ``known`` closest to ``name`` (``difflib.get_close_matches``, best first): the
    one suggestion for a misspelt problem, method, back-end, preset, format or option name.
    Case, and ``-`` against ``_``, count for nothing (``MILP`` is ``milp``, ``--time_limit`` is
    ``--time-limit``).

    >>> close_matches("gredy", ["greedy", "milp", "lp-round"])
    ['greedy']
    >>> close_matches("MILP", ["milp", "brute"]), close_matches("zzz", ["milp"])
    (['milp'], [])
    """
    import difflib

    names = [str(k) for k in known]
    key = str(name).lower().replace("_", "-")
    folded: dict[str, str] = {}
    for k in names:
        folded.setdefault(k.lower().replace("_", "-"), k)
    if key in folded and folded[key] != str(name):
        return [folded[key]]
    return [folded[m] for m in difflib.get_close_matches(key, list(folded), n=n, cutoff=0.6)]


def did_you_mean(name: object, known) -> str:
    """``" (did you mean 'x'?)"`` (or ``'x' or 'y'``) for the names of ``known`` close to ``name``
    (:func:`close_matches`); ``""`` when none is.

    >>> did_you_mean("mknp", ["mknap", "srpt"]), did_you_mean("hihgs", ["highs", "cpsat"])
    (" (did you mean 'mknap'?)", " (did you mean 'highs'?)")
    >>> did_you_mean("--item", ["--items", "--item-size"])
    " (did you mean '--items' or '--item-size'?)"
    >>> did_you_mean("qqq", ["mknap"])
    ''
    """
    found = close_matches(name, known)
    if not found:
        return ""
    quoted = [repr(m) for m in found]
    return f" (did you mean {', '.join(quoted[:-1]) + ' or ' if len(quoted) > 1 else ''}{quoted[-1]}?)"


class OptschedError(Exception):
    """Base class of every error optsched raises on purpose."""

    exit_status = 1


class InvalidInputError(OptschedError, ValueError):
    """Invalid input (CLI exit status 2, one line, no traceback): the common base of
    :class:`InvalidInstanceError`, :class:`InvalidOptionError`, :class:`NotApplicable` and
    :class:`BackendRefused`. The message names the problem, the field and the rule.

    >>> e = InvalidInputError("mknap", "weights[0][3]", "must be >= 0", got=-2)
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


class InvalidInstanceError(InvalidInputError):
    """The instance or the file is wrong: malformed file, unknown field, negative size, wrong
    version, a malformed line of an imported trace (exit status 2).

    >>> e = InvalidInstanceError("mknap", "weights[0][3]", "must be >= 0", got=-2)
    >>> str(e)
    "mknap: field 'weights[0][3]': must be >= 0 (got -2)"
    """


class InvalidOptionError(InvalidInputError):
    """An option, parameter or setting is wrong: a generator option (an option of ``generate``,
    ``optsched/core/params.py``), a method option, a solver setting (``time_limit``, ``threads``,
    ``node_limit``, ``mip_rel_gap``), a command-line argument (exit status 2).

    >>> str(InvalidOptionError("mknap", "items", "must be in [1, 100000]", got=0))
    "mknap: field 'items': must be in [1, 100000] (got 0)"
    """


class NotApplicable(InvalidInputError):
    """A method cannot produce a solution of this (valid, possibly feasible) instance, e.g. a
    published schedule that needs more microbatches in flight than the instance's cap allows: not
    a verdict on the instance (another method may solve it), so CLI exit status 2, not 3.

    >>> str(NotApplicable("pipeline-schedule", "gpipe", "keeps 4 microbatches in flight, cap 3"))
    "pipeline-schedule: field '(method)': method 'gpipe' does not apply to this instance: keeps 4 microbatches in flight, cap 3"
    """

    def __init__(self, problem: str, method: str, reason: str):
        self.method, self.reason = method, reason
        super().__init__(problem, "(method)", f"method {method!r} does not apply to this instance: {reason}")


class BackendRefused(InvalidInputError):
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


class UnknownNameError(InvalidOptionError, KeyError):
    """An unknown problem, method, back-end, preset or format name (CLI exit status 2): an
    option naming something that does not exist. The message suggests the close names
    (:func:`did_you_mean`, also in ``suggestions``) and lists the known ones.

    >>> str(UnknownNameError("method", "gredy", ["greedy", "milp"]))
    "unknown method 'gredy' (did you mean 'greedy'?); known: greedy, milp"
    >>> str(UnknownNameError("method", "qqq", ["greedy", "milp"]))
    "unknown method 'qqq'; known: greedy, milp"
    """

    def __init__(self, kind: str, name: str, known: list[str] | tuple[str, ...]):
        self.kind, self.name, self.known = kind, name, tuple(known)
        self.problem, self.field, self.got = "", kind, name
        self.suggestions = close_matches(name, self.known)
        hint = did_you_mean(name, self.known)
        self.rule = f"unknown{hint}; known: {', '.join(sorted(self.known)) or '(none)'}"
        Exception.__init__(self, f"unknown {kind} {name!r}{hint}; known: {', '.join(sorted(known)) or '(none)'}")

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


class TimeLimitReached(Exception):
    """Raised by :meth:`~optsched.core.solving.SolveContext.check_time` when the method's budget is
    spent: control flow, not an error (it is deliberately no :class:`OptschedError`, so a method's
    ``except OptschedError`` never swallows it).

    A method may catch it to return its incumbent; uncaught, :func:`optsched.solve` turns it into
    a result with ``status = "time_limit"`` and no solution (or the incumbent given as
    ``incumbent``), which is a success (exit status 0, its bound and gap say how good it is).
    """

    exit_status = 0

    def __init__(self, message: str = "time limit reached", incumbent=None):
        super().__init__(message)
        self.incumbent = incumbent


class SolverError(OptschedError):
    """A back-end failed (not installed, crashed, returned an unusable status)."""

    exit_status = 1
