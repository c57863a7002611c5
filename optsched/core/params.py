"""Declared parameter constraints, checked in one place for every entry point.

Every generator option of a problem (:attr:`optsched.core.registry.Problem.generator_options`)
declares its type and, for numbers, the :class:`Interval` it must lie in (finite ends: the upper
end of a size is a bound that fits memory); :func:`validate_parameters` checks given values
against the declarations before the generator runs. ``optsched.generate(problem, seed, **params)``
calls it, and so does ``optsched generate`` (which goes through ``optsched.generate``), so the
Python API and the command line refuse the same values with the same message: an
:class:`~optsched.core.errors.InvalidOptionError` naming the field (CLI exit 2).

The model is scikit-learn's ``_parameter_constraints`` (a type and an interval per parameter,
validated once by the estimator's base class, not by each ``fit``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import InvalidInstanceError, InvalidOptionError

__all__ = ["Interval", "validate_parameters", "check_value", "checked_float", "check_name", "effective_bounds",
           "MAX_THREADS", "MAX_NODE_LIMIT"]

#: the most solver threads a solve may ask for (more is an error, never clamped: HiGHS allocates
#: per thread, and a million threads ends in ``std::bad_alloc``)
MAX_THREADS = 256
#: the largest branch-and-bound node limit (HiGHS stores it in a 32-bit integer and rejects more;
#: 2^31 - 1 nodes is no limit in practice): more is an error naming ``node_limit``, not a SolverError
MAX_NODE_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class Interval:
    """Numbers between ``low`` and ``high``; ``closed`` says which ends belong to it
    (``both``, ``left``, ``right`` or ``neither``).

    >>> Interval(0, 1, closed="right").contains(0), Interval(0, 1, closed="right").contains(1)
    (False, True)
    >>> str(Interval(1, 10_000))
    '[1, 10000]'
    """

    low: float
    high: float
    closed: str = "both"
    #: what +infinity means when a float option also accepts it (e.g. ``"no branch and bound"``);
    #: None: infinity is refused like NaN (the ends themselves are always finite)
    infinity: str | None = None

    def __post_init__(self):
        if self.closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be both, left, right or neither, not {self.closed!r}")
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low <= self.high):
            raise ValueError(f"an interval needs finite ends low <= high, not [{self.low}, {self.high}]")

    def contains(self, value: float) -> bool:
        lo_ok = value >= self.low if self.closed in ("both", "left") else value > self.low
        hi_ok = value <= self.high if self.closed in ("both", "right") else value < self.high
        return lo_ok and hi_ok

    def __str__(self) -> str:
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        text = f"{left}{_num(self.low)}, {_num(self.high)}{right}"
        return text if self.infinity is None else f"{text} or inf ({self.infinity})"


def checked_float(problem: str, field: str, value: Any, error: type = InvalidOptionError) -> float:
    """``value`` (an int or a float, never a bool) as a finite float, or ``error`` (an
    :class:`InvalidOptionError` unless told) naming ``field``: the one guarded conversion of a
    user's number. An integer beyond the float range (``10**400``: ``float()`` raises
    ``OverflowError``), NaN and the infinities are refused, never passed on.

    >>> checked_float("demo", "time_limit", 3)
    3.0
    >>> checked_float("demo", "time_limit", 10**400)
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidOptionError: demo: field 'time_limit': must be a finite number (an integer too large for a float) (got 1000000000000000000000000000000000000000000000000000000...)
    """
    if not _is_real(value):
        raise error(problem, field, "must be a number", value)
    try:
        out = float(value)
    except OverflowError:
        raise error(problem, field, "must be a finite number (an integer too large for a float)", value) from None
    if not math.isfinite(out):
        raise error(problem, field, "must be a finite number", value)
    return out


def check_name(problem: str, field: str, value: Any) -> str | None:
    """A name the caller may leave out (``method``, ``backend``): None (the default) or a
    non-empty string; an empty string is refused, never read as "the default".

    >>> check_name("demo", "backend", "")
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidOptionError: demo: field 'backend': must be a non-empty name (leave it out for the default) (got '')
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidOptionError(problem, field, "must be a name (a string)", value)
    if not value.strip():
        raise InvalidOptionError(problem, field, "must be a non-empty name (leave it out for the default)", value)
    return value


def effective_bounds(opt) -> "Interval | None":
    """The interval a number option is checked against: the declared ``bounds``; else one
    inferred from the option's type and default [ours]: a magnitude at most
    :data:`~optsched.core.values.MAX_MAGNITUDE` (a float) or :data:`~optsched.core.values.MAX_INTEGER`
    (an int), and non-negative when the default is (counts, seconds, shares, factors). None for
    other types.

    >>> from optsched.core.registry import Option
    >>> str(effective_bounds(Option(int, 3, "rounds")))
    '[0, 9.0072e+15]'
    >>> str(effective_bounds(Option(float, -1.0, "offset")))
    '[-1e+50, 1e+50]'
    """
    if opt.bounds is not None or opt.type not in (int, float):
        return opt.bounds
    from .values import MAX_INTEGER, MAX_MAGNITUDE

    top = MAX_INTEGER if opt.type is int else MAX_MAGNITUDE
    default = opt.default
    low = 0 if _is_real(default) and default >= 0 else -top
    return Interval(low, top)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_value(problem: str, field: str, opt, value: Any, infer: bool = False) -> Any:
    """``value`` checked against the declaration ``opt`` (an :class:`~optsched.core.registry.Option`):
    its type (an int is accepted where a float is declared, never a float where an int is; NaN
    and infinities never), its interval, its choices, and for a ``tuple`` option each item's type
    and interval (with ``infer``, a number option without declared bounds is checked against
    :func:`effective_bounds`: how method options are checked). Returns the value as given (an int stays an int where a float is declared, as
    Python callers always passed it to the generators), a list as a tuple.
    """
    want = opt.type
    if value is None:
        if opt.nullable:
            return None
        raise InvalidOptionError(problem, field, f"must be {_type_name(opt)}, not null")
    if want is int:
        if not _is_int(value):
            raise InvalidOptionError(problem, field, f"must be {_type_name(opt)}", value)
    elif want is float:
        if not _is_real(value):
            raise InvalidOptionError(problem, field, f"must be {_type_name(opt)}", value)
        if value == math.inf and opt.bounds is not None and opt.bounds.infinity is not None:
            return value   # a declared meaning of +inf (Interval.infinity)
        checked_float(problem, field, value)   # NaN, infinities, an int beyond the float range
    elif want is bool:
        if not isinstance(value, bool):
            raise InvalidOptionError(problem, field, "must be true or false", value)
    elif want is str:
        if not isinstance(value, str):
            raise InvalidOptionError(problem, field, "must be a string", value)
    elif want is tuple:
        if not isinstance(value, (list, tuple)):
            raise InvalidOptionError(problem, field, f"must be {_type_name(opt)}", value)
        if opt.items is not None:
            if not value:
                raise InvalidOptionError(problem, field, "must list at least one value", value)
            for i, item in enumerate(value):
                check_value(problem, f"{field}[{i}]", _ItemOption(opt.item_type, opt.items), item)
        value = tuple(value)
    elif not isinstance(value, want):
        raise InvalidOptionError(problem, field, f"must be {want.__name__}", value)
    bounds = effective_bounds(opt) if infer else opt.bounds
    if bounds is not None and not bounds.contains(value):
        raise InvalidOptionError(problem, field, f"must be in {bounds}", value)
    allowed = opt.allowed() if want is not bool and hasattr(opt, "allowed") else tuple(opt.choices)
    if allowed and value not in allowed:  # declared choices, or the alternatives the help lists
        raise InvalidOptionError(problem, field, "must be one of " + ", ".join(map(str, allowed)), value)
    return value


@dataclass(frozen=True)
class _ItemOption:
    type: type
    bounds: Interval | None
    nullable: bool = False
    items: Interval | None = None
    item_type: type = int
    choices: tuple = ()


def _type_name(opt) -> str:
    names = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    if opt.type is tuple:
        text = f"a list of {names.get(opt.item_type, opt.item_type.__name__)}s"
    else:
        text = names.get(opt.type, opt.type.__name__)
    if opt.bounds is not None:
        text += f" in {opt.bounds}"
    return text + (" or null" if opt.nullable else "")


def validate_parameters(problem: str, declared: dict, given: dict, what: str = "generator option") -> dict:
    """``given`` checked against ``declared`` (name -> Option): an unknown name or a value of the
    wrong type or out of its interval raises :class:`InvalidOptionError` naming the field.
    Returns the values as given (a list as a tuple).

    >>> from optsched.core.registry import Option
    >>> decl = {"jobs": Option(int, 4, "jobs", bounds=Interval(1, 1000))}
    >>> validate_parameters("demo", decl, {"jobs": 0})
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidOptionError: demo: field 'jobs': must be in [1, 1000] (got 0)
    >>> validate_parameters("demo", decl, {"jobs": 2.0})
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidOptionError: demo: field 'jobs': must be an integer in [1, 1000] (got 2.0)
    """
    out = {}
    for key, value in given.items():
        if key not in declared:
            raise InvalidOptionError(problem, key, f"unknown {what} (known: {', '.join(declared) or 'none'})")
        out[key] = check_value(problem, key, declared[key], value)
    return out


# --- documentation of declared options (scikit-learn's "Parameters" sections) ------------------

def option_type_doc(opt) -> str:
    """The type of a declared option as a numpydoc "Parameters" line says it: ``int in [1, 100]``,
    ``float in (0, 1]``, ``{'bfs', 'random'}``, ``bool``, ``list of int in [1, 1000]``, each
    with ``or None`` when null is accepted.

    >>> from optsched.core.registry import Option
    >>> option_type_doc(Option(int, 4, "jobs", bounds=Interval(1, 1000)))
    'int in [1, 1000]'
    >>> option_type_doc(Option(str, "bfs", "bfs | random", choices=("bfs", "random")))
    "{'bfs', 'random'}"
    >>> option_type_doc(Option(tuple, (5, 3), "fan-outs", items=Interval(1, 1000)))
    'list of int in [1, 1000]'
    >>> option_type_doc(Option(float, None, "rate", bounds=Interval(0, 1, closed="right"), nullable=True))
    'float in (0, 1] or None'
    """
    allowed = opt.allowed() if opt.type is not bool and hasattr(opt, "allowed") else ()
    if allowed:
        text = "{" + ", ".join(repr(v) for v in allowed) + "}"
    elif opt.type is tuple:
        text = f"list of {opt.item_type.__name__}" + (f" in {opt.items}" if opt.items is not None else "")
    else:
        text = opt.type.__name__ + (f" in {opt.bounds}" if opt.bounds is not None else "")
    return text + (" or None" if opt.nullable else "")


def options_doc(options: dict, title: str = "Parameters", indent: str = "") -> str:
    """A numpydoc section (as scikit-learn's docstrings have) of the declared options ``options``
    (name -> :class:`~optsched.core.registry.Option`): per option ``name : type, default=value``
    and its help indented below. ``""`` when there are none.

    >>> from optsched.core.registry import Option
    >>> print(options_doc({"jobs": Option(int, 4, "number of jobs", bounds=Interval(1, 1000))}))
    Parameters
    ----------
    jobs : int in [1, 1000], default=4
        number of jobs
    """
    if not options:
        return ""
    lines = [title, "-" * len(title)]
    for name, opt in options.items():
        default = list(opt.default) if isinstance(opt.default, tuple) else opt.default
        lines.append(f"{name} : {option_type_doc(opt)}, default={default!r}")
        lines.append(f"    {opt.help}")
    return "\n".join(indent + line for line in lines)
