"""The registry of problems and their methods, and the records that describe them.

One :class:`Problem` per problem name (its instance type, checker, generator, presets, importers
and exact model builder) and one :class:`Method` per algorithm, with its kind, fidelity and, when
it has one, its :class:`Guarantee`. A problem package registers itself when imported::

    knap = register_problem(Problem(name="knap", ...))

    @knap.method("greedy", kind="baseline", fidelity="ours", summary="...")
    def greedy(instance, ctx):
        ...
        return Outcome(solution=..., objective=...)

Everything registered is exercised by the conformance suite (:mod:`optsched.core.conformance`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from .errors import InvalidInstanceError, UnknownNameError

__all__ = [
    "KINDS", "FIDELITIES", "Guarantee", "Option", "Method", "Problem", "CheckReport", "Outcome",
    "register_problem", "unregister_problem", "get_problem", "problems", "always_applies", "size_limit",
    "direct_format", "read_direct", "not_an_instance",
]

KINDS = ("exact", "approximation", "online", "heuristic", "baseline", "bound")
FIDELITIES = ("paper", "code", "reconstruction", "ours")


def always_applies(instance) -> tuple[bool, str]:
    return True, "no conditions"


def _shown(size) -> str:
    """``size`` as text; an integer of more than 30 digits as ``about 10^k`` (``str`` of a huge
    integer is slow, and refused past 4,300 digits).

    >>> _shown(12), _shown(2 ** 200)
    ('12', 'about 10^60')
    """
    if isinstance(size, int) and size.bit_length() > 100:
        return f"about 10^{(size.bit_length() - 1) * 30103 // 100000}"
    return str(size)


def size_limit(measure: Callable[[Any], float], limit: float, what: str,
               method: str = "this method") -> Callable[[Any], tuple[bool, str]]:
    """An ``applicable`` predicate: ``measure(instance) <= limit``, with a reason naming ``what``.

    >>> ok = size_limit(lambda inst: inst, 12, "items", "brute")
    >>> ok(10)
    (True, 'items = 10 <= 12')
    >>> ok(13)
    (False, 'items = 13, brute needs items <= 12')
    """
    def applies(instance) -> tuple[bool, str]:
        size = measure(instance)
        if size <= limit:
            return True, f"{what} = {_shown(size)} <= {limit}"
        return False, f"{what} = {_shown(size)}, {method} needs {what} <= {limit}"
    applies.limit = limit  # type: ignore[attr-defined]
    return applies


@dataclass(frozen=True)
class Guarantee:
    """A theorem about a method, checked by the conformance and property tests.

    The deterministic forms are one affine bound, ratio x REF + additive term [ours: the record;
    each theorem carries its own source]:

    * ``form = "affine"``: with ``sense = "<="`` (minimization), ALG <= value * REF + additive;
      with ``">="`` (maximization), ALG >= REF / value - additive (value >= 1, additive >= 0,
      both functions of the instance). Declare a bound affine when the theorem *is* affine (e.g.
      a ratio plus a constant); do not fold the constant into the ratio.
    * ``form = "multiplicative"``: the affine form with additive term 0: ALG <= value * REF, or
      ALG >= REF / value;
    * ``form = "additive"``: the affine form with ratio 1 (``value`` is the additive term):
      ALG <= REF + value, or ALG >= REF - value;
    * ``form = "probabilistic"``: the event ``event(instance, result)`` holds with probability at
      least ``probability(instance)`` over the method's randomness (tested by a one-sided binomial
      test).

    ``reference`` says what REF is: ``OPT``, ``upper_bound`` or ``lower_bound`` (a proven bound
    computed by ``reference_value(instance)``, e.g. an LP value). ``applies(instance)`` returns
    ``(bool, reason)``: the theorem's conditions. ``source`` is ``paper``, ``ours`` or
    ``classical``; ``proof`` names where the proof is written.

    >>> g = Guarantee("affine", "<=", lambda i: 2.0, "OPT", "ALG <= 2 OPT + 3", "ours", "x",
    ...               additive=lambda i: 3.0)
    >>> g.threshold(None, 10.0), g.ratio(None), g.additive_term(None)
    (23.0, 2.0, 3.0)
    >>> Guarantee("affine", ">=", lambda i: 2.0, "OPT", "ALG >= OPT / 2 - 1", "ours", "x",
    ...           additive=lambda i: 1.0).threshold(None, 10.0)
    4.0
    """

    form: Literal["affine", "multiplicative", "additive", "probabilistic"]
    sense: Literal["<=", ">="]
    value: Callable[[Any], float]
    reference: Literal["OPT", "upper_bound", "lower_bound"]
    statement: str
    source: Literal["paper", "ours", "classical"]
    proof: str
    applies: Callable[[Any], tuple[bool, str]] = always_applies
    probability: Callable[[Any], float] | None = None
    event: Callable[[Any, Any], bool] | None = None
    reference_value: Callable[[Any], float] | None = None
    #: the additive term of an ``affine`` guarantee (a function of the instance; None: 0)
    additive: Callable[[Any], float] | None = None

    def __post_init__(self) -> None:
        if self.additive is not None and self.form != "affine":
            raise ValueError(f"an additive term belongs to form 'affine', not {self.form!r}")

    def ratio(self, instance) -> float:
        """The multiplicative part of the bound (1 for an ``additive`` guarantee)."""
        if self.form == "probabilistic":
            raise ValueError("probabilistic guarantees have no ratio")
        return 1.0 if self.form == "additive" else float(self.value(instance))

    def additive_term(self, instance) -> float:
        """The additive part of the bound (0 for a ``multiplicative`` guarantee)."""
        if self.form == "probabilistic":
            raise ValueError("probabilistic guarantees have no additive term")
        if self.form == "additive":
            return float(self.value(instance))
        if self.form == "affine" and self.additive is not None:
            return float(self.additive(instance))
        return 0.0

    def threshold(self, instance, reference: float) -> float:
        """The value ALG must be on the right side of, given REF: ratio x REF + additive term
        (``<=``), or REF / ratio - additive term (``>=``)."""
        if self.form == "probabilistic":
            raise ValueError("probabilistic guarantees have no threshold")
        ratio, extra = self.ratio(instance), self.additive_term(instance)
        if self.form == "additive":  # no multiplication by 1: the same float as REF + value
            return reference + extra if self.sense == "<=" else reference - extra
        if self.form == "multiplicative":
            return ratio * reference if self.sense == "<=" else reference / ratio
        return ratio * reference + extra if self.sense == "<=" else reference / ratio - extra

    def holds(self, instance, alg: float, reference: float, rel_tol: float = 1e-7) -> bool:
        """Whether ALG satisfies the guarantee against REF, up to ``rel_tol`` of float noise."""
        t = self.threshold(instance, reference)
        slack = rel_tol * max(1.0, abs(t), abs(alg))
        return alg <= t + slack if self.sense == "<=" else alg >= t - slack

    def describe(self) -> dict:
        return {"statement": self.statement, "form": self.form, "reference": self.reference,
                "source": self.source, "proof": self.proof}


@dataclass(frozen=True)
class Option:
    """A method keyword argument: it steers the search only, and is recorded in the result."""

    type: type
    default: Any
    help: str
    #: the values the option accepts when they form a fixed set (empty: any value of ``type``);
    #: checked by :meth:`Method.resolve_options` and listed by ``--help``
    choices: tuple = ()
    #: the interval a number must lie in (:class:`optsched.core.params.Interval`); every numeric
    #: generator option declares one, checked by :func:`optsched.core.params.validate_parameters`
    bounds: Any = None
    #: whether ``None`` (JSON null) is accepted (the default then means "derived from the others")
    nullable: bool = False
    #: for ``type=tuple``: the type and interval of each item
    item_type: type = int
    items: Any = None

    def allowed(self) -> tuple:
        """The values the option accepts, as far as they are a fixed set: the declared
        ``choices``; for a bool, ``(True, False)``; otherwise the alternatives its help text
        lists when the help is exactly a list of names (``"a | b | c"``, ``"'a' or 'b'"``, with
        parenthetical remarks and a leading ``label:`` ignored) that includes the default; else
        ``()`` (any value of the type).

        >>> Option(str, "fast", "fast | exact (slower)").allowed()
        ('fast', 'exact')
        >>> Option(str, "a", "'a' or a file").allowed()
        ()
        >>> Option(str, "4", "device mesh: P or PxQ").allowed()
        ()
        >>> Option(bool, True, "use it").allowed()
        (True, False)
        """
        if self.choices:
            return tuple(self.choices)
        if self.type is bool:
            return (True, False)
        if self.type is not str:
            return ()
        derived = _alternatives_in(self.help)
        # placeholders such as "P or PxQ" are no list of values: the default must be one of them
        return derived if self.default in derived else ()

    def describe(self) -> dict:
        """The option as JSON-able data: type name, default, help and allowed values."""
        out = {"type": self.type.__name__, "default": self.default, "help": self.help,
               "allowed": list(self.allowed())}
        if self.bounds is not None:
            out["range"] = str(self.bounds)
        return out


def _alternatives_in(text: str) -> tuple:
    """The names of ``text`` when it is a list of alternatives (see :meth:`Option.allowed`)."""
    import re

    bare = re.sub(r"\([^()]*\)", " ", text)
    if ":" in bare:
        bare = bare.rsplit(":", 1)[1]
    parts = [part.strip().strip("'\"") for part in re.split(r"\s+\|\s+|\s+or\s+|,\s*", bare.strip())]
    if len(parts) < 2 or not all(re.fullmatch(r"[A-Za-z0-9_.+-]+", part) for part in parts):
        return ()
    return tuple(parts)


@dataclass(frozen=True, kw_only=True)
class Method:
    problem: str
    name: str
    kind: str
    fidelity: str
    run: Callable
    summary: str
    guarantee: Guarantee | None = None
    options: dict[str, Option] = field(default_factory=dict)
    uses_backend: bool = False
    randomized: bool = False
    #: (bool, reason): whether the method can run on this instance (e.g. brute force: tiny only)
    applicable: Callable[[Any], tuple[bool, str]] = always_applies
    #: the method's colour in every figure ("#rrggbb"), declared by its problem; None: the shared
    #: colour of its name (``optsched.plotting.style.METHOD_COLORS``) or a stable palette colour
    color: str | None = None

    def __post_init__(self):
        if self.color is not None and not re.fullmatch(r"#[0-9a-f]{6}", self.color):
            raise ValueError(f"{self.problem}/{self.name}: color must be '#rrggbb' (lower case), got {self.color!r}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.problem}/{self.name}: kind must be one of {KINDS}")
        if self.fidelity not in FIDELITIES:
            raise ValueError(f"{self.problem}/{self.name}: fidelity must be one of {FIDELITIES}")

    @property
    def is_bound(self) -> bool:
        return self.kind == "bound"

    def resolve_options(self, given: dict | None) -> dict:
        """Defaults overlaid with ``given`` (a dict, or None), each value checked against its
        declaration by :func:`optsched.core.params.check_value`, the check generator options get:
        its type (an int where a float is declared, never a float where an int is, never a bool
        for a number), finite, within its interval (declared, else inferred from the default:
        :func:`optsched.core.params.effective_bounds`), one of its choices (declared, or the
        alternatives its help lists). Unknown names and every violation are an
        :class:`~optsched.core.errors.InvalidOptionError` naming ``option NAME`` (exit 2)."""
        from .errors import InvalidOptionError, did_you_mean
        from .params import check_value

        if given is None:
            given = {}
        if not isinstance(given, dict):
            raise InvalidOptionError(self.problem, "options", f"must be a dict of the options of method "
                                     f"{self.name!r} (name -> value)", given)
        out = {k: o.default for k, o in self.options.items()}
        for k, v in given.items():
            if not isinstance(k, str) or k not in self.options:
                raise InvalidOptionError(self.problem, f"option {k}", f"unknown option of method "
                                           f"{self.name!r}{did_you_mean(k, self.options) if isinstance(k, str) else ''} "
                                         f"(known: {', '.join(self.options) or 'none'})")
            v = check_value(self.problem, f"option {k}", self.options[k], v, infer=True)
            out[k] = float(v) if self.options[k].type is float else v   # checked: finite, in range
        return out


@dataclass
class CheckReport:
    """What a checker says of a solution: feasible or not (with every violation), and its value."""

    feasible: bool
    objective: float | None
    violations: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    @classmethod
    def from_violations(cls, violations: list[str], objective: float | None, **details) -> "CheckReport":
        """A report that is feasible exactly when ``violations`` is empty."""
        return cls(not violations, objective, list(violations), details)


@dataclass
class Outcome:
    """What a method returns to :func:`optsched.solve`.

    ``solution`` is JSON-able data in the problem's solution schema (None for kind ``bound``).
    ``objective`` is the method's own value (checked against the checker's); ``bound`` a proven
    bound on OPT when the method has one; ``status`` ``optimal`` only for exact methods that proved
    it.
    """

    solution: Any = None
    objective: float | None = None
    bound: float | None = None
    status: str = "feasible"
    backend: str | None = None
    solver_version: str | None = None
    reason: str | None = None
    stats: dict = field(default_factory=dict)


@dataclass
class Problem:
    """A problem: its instance type, the authoritative checker, generators and methods."""

    name: str
    title: str
    sense: Literal["min", "max"]
    instance_type: type
    check: Callable[[Any, Any], CheckReport]
    objective: str  # the authoritative one-line objective, as on the docs page `spec` cites
    solution_schema: str
    spec: str
    generate: Callable[..., Any] | None = None
    presets: dict[str, dict] = field(default_factory=dict)
    generator_options: dict[str, Option] = field(default_factory=dict)
    importers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: import formats read directly wherever an instance file is expected (``solve``, ``check``,
    #: ``export``, :func:`optsched.load_instance`), without ``optsched import`` first: format name
    #: (a key of ``importers``) -> ``detect(head) -> bool``, a content sniffer given the file's
    #: first bytes (:func:`optsched.core.textfile.read_head`: gunzipped, no BOM). A detector says
    #: yes only to content no optsched instance or result file has (see :func:`direct_format`)
    direct_formats: dict[str, Callable[[bytes], bool]] = field(default_factory=dict)
    #: format name -> ``exporter(instance, solution) -> str``: a solution in another tool's format
    #: (``optsched export PROBLEM INSTANCE --solution RESULT --format NAME -o FILE``)
    solution_exporters: dict[str, Callable[[Any, Any], str]] = field(default_factory=dict)
    build_model: Callable[[Any], Any] | None = None
    default_method: str = "milp"
    #: the exact (or bound) method the conformance battery compares every other method with, or
    #: several in order of preference (the first that applies to an instance is used, e.g.
    #: ``("milp", "brute")``); None only for problems with no exact method (then checks against
    #: OPT are reported skipped)
    reference_method: str | tuple[str, ...] | None = "milp"
    tiny_instances: Callable[[int], Any] | None = None  # seed -> tiny instance, for conformance
    #: the fixed instances on which the non-exact methods' quality is recorded
    #: (a :class:`optsched.core.quality_sets.QualitySet`; ``instances/quality/``, ``make instances``)
    quality: Any = None
    #: ``build(out_dir) -> [paths]``: writes the problem's reference instances with their
    #: reference values into ``instances/<folder>/`` (``make instances``)
    build_references: Callable[[Any], Any] | None = None
    #: the problem's folder as a Python package (``optsched.problems.<folder>``), where shared code
    #: finds what the folder declares in files (its ``plot.py``); :func:`register_problem` sets it
    #: to the registering module's package when not given
    package: str | None = None
    methods: dict[str, Method] = field(default_factory=dict)
    #: the objective's unit for people (``"s"``, ``"bytes"``, ``"slots"``, ``"(unitless)"``, ...),
    #: or a dict from the instance's ``objective`` field to the unit (a problem whose instances
    #: choose among objectives): printed after the value by ``optsched solve``, never part of a
    #: record. None: the ``OBJECTIVE_UNIT`` its folder's ``instance.py`` declares beside
    #: ``OBJECTIVE`` (read by :func:`register_problem`), if any
    objective_unit: str | dict | None = None

    def __post_init__(self) -> None:
        ref = self.reference_method
        if isinstance(ref, list):  # a list is read as the tuple it means
            self.reference_method = ref = tuple(ref)
        if not (ref is None or isinstance(ref, str)
                or (isinstance(ref, tuple) and ref and all(isinstance(n, str) for n in ref))):
            raise TypeError(f"{self.name}: reference_method must be a method name, a non-empty tuple of "
                            f"names or None (got {ref!r})")
        for fmt in self.direct_formats:
            if fmt not in self.importers:
                raise TypeError(f"{self.name}: direct format {fmt!r} has no importer")

    @property
    def reference_methods(self) -> tuple[str, ...]:
        """The reference method names in order of preference (empty when there is none).

        >>> Problem("p", "t", "min", object, None, "", "", "", reference_method=("milp", "brute")).reference_methods
        ('milp', 'brute')
        """
        ref = self.reference_method
        return () if ref is None else (ref,) if isinstance(ref, str) else tuple(ref)

    def method(self, name: str, *, kind: str, fidelity: str, summary: str, guarantee: Guarantee | None = None,
               options: dict[str, Option] | None = None, uses_backend: bool = False, randomized: bool = False,
               applicable: Callable | None = None, color: str | None = None):
        """Decorator registering ``func(instance, ctx) -> Outcome`` as a method of this problem."""
        def register(func):
            if name in self.methods:
                raise ValueError(f"{self.name}: method {name!r} registered twice")
            self.methods[name] = Method(problem=self.name, name=name, kind=kind, fidelity=fidelity, run=func,
                                        summary=summary, guarantee=guarantee, options=dict(options or {}),
                                        uses_backend=uses_backend, randomized=randomized,
                                        applicable=applicable or always_applies, color=color)
            return func
        return register

    def unit_of(self, instance: Any = None) -> str | None:
        """The objective's unit (of ``instance``'s objective when the unit depends on it), or None.

        >>> p = Problem("p", "t", "min", object, None, "", "", "", objective_unit={"time": "s", "bytes": "bytes"})
        >>> class I: objective = "bytes"
        >>> p.unit_of(I()), p.unit_of(None)
        ('bytes', None)
        """
        unit = self.objective_unit
        if isinstance(unit, dict):
            return unit.get(getattr(instance, "objective", None))
        return unit

    def format_objective(self, value: float | None, instance: Any = None) -> str:
        """``value`` with the objective's unit for people: ``"12.5 s"``, ``"131908 (unitless)"``
        (no unit declared: the number alone; None: ``"-"``).

        >>> p = Problem("p", "t", "min", object, None, "", "", "", objective_unit="s")
        >>> p.format_objective(12.5), p.format_objective(None), p.format_objective(3)
        ('12.5 s', '-', '3 s')
        """
        if value is None:
            return "-"
        number = f"{value:.10g}" if isinstance(value, float) else str(value)
        unit = self.unit_of(instance)
        return f"{number} {unit}" if unit else number

    def describe(self) -> str:
        """What ``help()`` shows for this problem (its ``__doc__``): the objective and its unit,
        the call that generates an instance with a numpydoc "Parameters" section of every
        generator option (type, interval, default, help) and the presets, what it returns, then
        every method (kind, fidelity, guarantee, summary) with its options in the same form."""
        from .params import options_doc

        inst = self.instance_type
        inst_name = getattr(inst, "__name__", str(inst))
        unit = self.objective_unit
        if isinstance(unit, dict):
            unit = ", ".join(f"{v} ({k})" for k, v in unit.items())
        unit = f"; unit: {unit}" if unit else ""
        lines = [f"{self.name}: {self.title}", "",
                 f"Objective ({'minimize' if self.sense == 'min' else 'maximize'}{unit}): {self.objective}", ""]
        if self.generate is not None:
            lines += [f'optsched.generate("{self.name}", seed=0, preset=None, **options) -> {inst_name}', ""]
            presets = ", ".join(repr(p) for p in self.presets)
            lines += ["Parameters", "----------", "seed : int, default=0",
                      "    seed of the generator's random draws (the same seed, the same instance)",
                      f"preset : {{{presets}}} or None, default=None" if presets else "preset : None, default=None",
                      "    a named set of the options below (options given as well override it):"]
            for name, values in self.presets.items():
                shown = ", ".join(f"{k}={v!r}" for k, v in values.items()) or "the defaults"
                lines.append(f"    {name}: {shown}")
            body = options_doc(self.generator_options, title="").splitlines()[2:]
            lines += body + [""]
        lines += ["Returns", "-------", f"{inst_name} ({getattr(inst, '__module__', '?')})"]
        first = " ".join((getattr(inst, "__doc__", "") or "").strip().split("\n\n")[0].split())
        if first:
            lines.append(f"    {first}")
        lines += ["", "Methods", "-------", f'optsched.solve(instance, METHOD, options={{...}}); '
                  f'reference: {", ".join(self.reference_methods) or "none"}', ""]
        for m in self.methods.values():
            mark = ", default" if m.name == self.default_method else ""
            lines.append(f"{m.name} : {m.kind}, [{m.fidelity}]{mark}")
            lines.append(f"    {m.summary}")
            if m.guarantee is not None:
                lines.append(f"    guarantee: {m.guarantee.statement} [{m.guarantee.source}]")
            if m.options:
                lines += [""] + options_doc(m.options, title="Options", indent="    ").splitlines()
            lines.append("")
        if self.importers:
            lines += ["Import formats: " + ", ".join(self.importers) + " (optsched import FORMAT FILE)"]
        return "\n".join(lines).rstrip() + "\n"

    def get_method(self, name: str | None) -> Method:
        name = name or self.default_method
        try:
            return self.methods[name]
        except KeyError:
            raise UnknownNameError(f"method of {self.name}", name, list(self.methods)) from None

    def load_instance(self, path) -> Any:
        return self.instance_type.load(path)

    def better(self, a: float, b: float) -> bool:
        """Whether value ``a`` is strictly better than ``b`` in this problem's sense."""
        return a < b if self.sense == "min" else a > b

    def ratio(self, alg: float, opt: float) -> float:
        """ALG/OPT for minimization, OPT/ALG for maximization (>= 1 means no better than OPT)."""
        num, den = (alg, opt) if self.sense == "min" else (opt, alg)
        if den == 0:
            return 1.0 if num == 0 else math.inf
        return num / den


_PROBLEMS: dict[str, Problem] = {}


def register_problem(problem: Problem) -> Problem:
    """Register ``problem``; its ``package`` defaults to the package of the calling module (the
    problem's folder, for a ``problem.py`` that registers it)."""
    if problem.name in _PROBLEMS:
        raise ValueError(f"problem {problem.name!r} registered twice")
    if problem.package is None:
        import sys

        problem.package = sys._getframe(1).f_globals.get("__package__") or None
    if problem.objective_unit is None:  # declared beside OBJECTIVE in the folder's instance.py
        import sys

        for module in (f"{problem.package}.instance", getattr(problem.instance_type, "__module__", "")):
            declared = getattr(sys.modules.get(module), "OBJECTIVE_UNIT", None)
            if isinstance(declared, (str, dict)):
                problem.objective_unit = declared
                break
    _document(problem)
    _PROBLEMS[problem.name] = problem
    return problem


class _Documented(type):
    """The metaclass of a registered problem's own class: its ``__doc__`` is the problem's
    :meth:`Problem.describe`, computed when read (methods register after the problem), so
    ``help(optsched.get_problem(NAME))`` documents that problem's options and methods."""

    @property
    def __doc__(cls):  # noqa: D401 - a property of the class
        problem = cls.__dict__.get("_problem")
        return problem.describe() if problem is not None else Problem.__doc__


def _document(problem: Problem) -> None:
    """Give ``problem`` a class of its own (a :class:`Problem` subclass that adds nothing but its
    documentation) and the same text as its instance ``__doc__``."""
    if type(problem) is not Problem:  # a subclass of the caller's own keeps its class
        return
    cls = _Documented("Problem", (Problem,), {"__module__": Problem.__module__, "__qualname__": "Problem",
                                             "__doc__": property(Problem.describe)})
    cls._problem = problem
    problem.__class__ = cls


def unregister_problem(name: str) -> None:
    """Remove a problem from the registry (for problems registered by a test or a notebook)."""
    _PROBLEMS.pop(name, None)


def get_problem(name: str) -> Problem:
    """The registered problem ``name`` (``import optsched`` registers every problem package)."""
    try:
        return _PROBLEMS[name]
    except KeyError:
        raise UnknownNameError("problem", name, list(_PROBLEMS)) from None


def problems() -> dict[str, Problem]:
    return dict(_PROBLEMS)


def direct_format(path) -> tuple[Problem, str] | None:
    """The problem and import format whose content sniffer (:attr:`Problem.direct_formats`) takes
    the file at ``path``, or None (an optsched file, a file of no such format, one that cannot be
    read: the generic reader then names what is wrong). Only the file's head is read."""
    from .textfile import read_head

    head = read_head(path)
    if not head:
        return None
    for prob in _PROBLEMS.values():
        for fmt, detect in prob.direct_formats.items():
            if detect(head):
                return prob, fmt
    return None


def read_direct(path, problem: str | None = None) -> Any:
    """The instance in ``path`` when it is a file of a problem's direct format (read by that
    format's importer, all of it inside the caller's clock), else None. ``problem`` insists on one:
    a direct file of another problem is an :class:`InvalidInstanceError` naming both."""
    found = direct_format(path)
    if found is None:
        return None
    prob, fmt = found
    if problem is not None and problem != prob.name:
        raise InvalidInstanceError(problem, "(file)", f"{path} is in the {fmt!r} format of {prob.name!r}, not a "
                                   f"{problem} instance")
    return prob.importers[fmt](path)


def not_an_instance(path, problem: str) -> InvalidInstanceError:
    """The error for a JSON file that is neither an optsched instance (no ``format_version``) nor a
    file of a format read directly, naming the file and the formats that are."""
    direct = sorted({fmt for prob in _PROBLEMS.values() if prob.name == problem or problem == "instance"
                     for fmt in prob.direct_formats})
    also = f" nor a file of a format read directly ({', '.join(direct)})" if direct else ""
    return InvalidInstanceError(problem, "format_version", f"missing: {path} is not an optsched instance{also}")
