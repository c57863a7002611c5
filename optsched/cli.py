"""The ``optsched`` command line, uniform across problems.

Exit statuses (the table: docs/cli.md, "Exit statuses"): 0 success (including ``time_limit``,
``gap_limit`` and ``node_limit`` results), 1 a check found violations (an infeasible solution, a
disagreeing objective, a self-contradictory result record) or a method failed, 2 invalid input
(one line, no traceback), 3 infeasible instance,
130 interrupted by Ctrl-C (SIGINT; one line on stderr, the solve is stopped on every back-end and
no child process is left), 143 ended by SIGTERM and 129 by SIGHUP (the same clean-up, one line),
141 the reader of stdout went away (``| head``; nothing more is printed, as with SIGPIPE).
An output file that cannot be written (disk full, read-only folder) is exit 1 with one line, and no
file is left behind: every verb writes through :mod:`optsched.core.atomic`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Sequence

from .core.errors import InvalidInstanceError, OptschedError, UnknownNameError
from .core.params import MAX_THREADS, check_value
from .core.procs import restore_signals, terminate_like_interrupt
from .core.startup import release_startup_signals

EXIT_OK, EXIT_VIOLATION, EXIT_INVALID, EXIT_INFEASIBLE = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141


def _int_at_least(name: str, minimum: int | None, maximum: int | None = None):
    """An argparse type: an integer >= ``minimum`` (and <= ``maximum``), the error naming the
    option; out of range is an error, never clamped."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer (got {text!r})") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be >= {minimum} (got {value})")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{name} must be <= {maximum} (got {value})")
        return value
    return parse


def _positive_int(name: str):
    return _int_at_least(name, 1)


def _nonnegative_int(name: str):
    return _int_at_least(name, 0)


def _positive_number(name: str):
    """An argparse type: a positive finite number, the error naming the option."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {text!r})") from None
        if not (0 < value < float("inf")):
            raise argparse.ArgumentTypeError(f"{name} must be a positive finite number (got {text})")
        return value
    return parse


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--time-limit must be a number of seconds (got {text!r})") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"--time-limit must be a positive finite number of seconds (got {text})")
    return value


def _check_output(path: str | None, problem: str) -> None:
    """Refuse an output path whose folder does not exist (before any work is done)."""
    if path in (None, "-"):
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidInstanceError(problem, "-o", f"folder {str(folder)!r} does not exist", str(path))
    if target.is_dir():
        raise InvalidInstanceError(problem, "-o", "is a folder, not a file", str(path))


def _looks_like_result(data) -> bool:
    return isinstance(data, dict) and "method" in data and "status" in data and "format_version" in data


def _looks_like_instance(data) -> bool:
    return (isinstance(data, dict) and "format_version" in data and "problem" in data
            and "method" not in data and "status" not in data)


def _load_instance(prob, path, sidecar: bool = True):
    """The problem's instance in ``path`` (from its ``.npz`` sidecar when one exists and
    ``sidecar``); a result record there is named as such (exit 2)."""
    from .core.sidecar import read_json_data

    data = read_json_data(path, prob.name, sidecar=sidecar)
    if _looks_like_result(data):
        raise InvalidInstanceError(prob.name, "(file)", f"{path} is a result record (method "
                                   f"{data.get('method')!r}), not a {prob.name} instance")
    return prob.instance_type.from_json(data)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors are invalid input: exit 2, one line
        raise InvalidInstanceError("cli", "arguments", message)


class Progress:
    """Progress of a solve on stderr: elapsed time, the method's own messages and, for HiGHS MIP
    solves, incumbent, bound, gap and nodes as they improve (HiGHS callbacks). A live line on a
    terminal; elsewhere a log line at most every ``log_interval`` seconds (none for a solve
    shorter than that). ``enabled=False`` (``--quiet``) writes nothing."""

    def __init__(self, label: str, stream=None, interval: float = 1.0, *, enabled: bool = True,
                 log_interval: float = 5.0, live: bool | None = None, clock=time.monotonic):
        from .repro.progress import StatusLine

        self.label, self.interval, self.enabled, self.clock = label, interval, enabled, clock
        self.line = StatusLine(sys.stderr if stream is None else stream, interval=log_interval, live=live,
                               clock=clock)
        self.message = ""
        self.fraction: float | None = None
        self.info: dict | None = None
        self._version = self._written = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._listening = None

    def __call__(self, message: str, fraction: float | None = None) -> None:
        """The method's own progress (``ctx.report``)."""
        self.message, self.fraction = message, fraction
        self._version += 1

    def on_solver(self, info: dict) -> None:
        """A HiGHS callback's incumbent, bound and gap (runs in the solver thread: store only)."""
        self.info = info
        self._version += 1

    def text(self) -> str:
        from .repro.progress import solve_line

        return solve_line(self.label, self.clock() - self.line.start, self.info, self.message[:50], self.fraction)

    def tick(self) -> bool:
        """Offer the current state to the line; returns whether a line was written."""
        version = self._version
        written = self.line.update(self.text(), changed=version != self._written)
        if written:
            self._written = version
        return written

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.tick()

    def __enter__(self):
        if self.enabled:
            from .core.backends.highs import progress_listener

            self._listening = progress_listener(self.on_solver)
            self._listening.__enter__()
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if self._listening is not None:
            self._listening.__exit__(None, None, None)
            self._listening = None
        self.line.clear()


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _extra_options(extra: Sequence[str], where: str) -> dict:
    """``--name value`` pairs (problem-specific options) into a dict, names with underscores."""
    out, i = {}, 0
    items = list(extra)
    while i < len(items):
        tok = items[i]
        if not tok.startswith("--"):
            raise InvalidInstanceError("cli", where, f"unexpected argument {tok!r}")
        key = tok[2:].replace("-", "_")
        if "=" in key:
            key, value = key.split("=", 1)
            out[key] = _parse_value(value)
            i += 1
        elif i + 1 < len(items) and not items[i + 1].startswith("--"):
            out[key] = _parse_value(items[i + 1])
            i += 2
        else:
            out[key] = True
            i += 1
    return out


def _coerce(options: dict, schema: dict, problem: str, what: str) -> dict:
    out = {}
    for key, value in options.items():
        if key not in schema:
            raise InvalidInstanceError(problem, f"--{key.replace('_', '-')}", f"unknown {what} "
                                       f"(known: {', '.join('--' + k.replace('_', '-') for k in schema) or 'none'})")
        want = schema[key].type
        if want is str and not isinstance(value, str):
            value = json.dumps(value) if isinstance(value, (list, dict)) else str(value)
        elif want is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        # the declared type and interval (optsched.core.params), as optsched.generate checks them
        out[key] = check_value(problem, f"--{key.replace('_', '-')}", schema[key], value)
    return out


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


# -- commands ---------------------------------------------------------------------------------
def cmd_problems(args) -> int:
    import optsched

    for name, prob in sorted(optsched.list_problems().items()):
        print(f"{name:22s} {prob.sense}  {prob.title}  [methods: {', '.join(prob.methods)}]")
    return EXIT_OK


def cmd_methods(args) -> int:
    import optsched

    prob = optsched.get_problem(args.problem)
    print(f"{prob.name}: {prob.title} ({prob.sense})")
    print(f"objective: {prob.objective}")
    print(f"solution:  {prob.solution_schema}")
    print(f"spec:      {prob.spec}")
    print()
    print("methods (solve --method NAME; options as --option NAME=VALUE):")
    print(methods_text(prob))
    if prob.presets:
        print()
        print("generator presets (generate --preset NAME):")
        print(_presets_text(prob))
    if prob.generator_options:
        print()
        print("generator options (generate --name VALUE):")
        for k, o in prob.generator_options.items():
            print(f"  --{k.replace('_', '-')} <{o.type.__name__}>  {option_help(o)}")
    return EXIT_OK


def cmd_backends(args) -> int:
    from .core.backends import BACKENDS, DEFAULT_BACKEND

    for name, be in BACKENDS.items():
        try:
            version = be.version() if be.available() else "not available"
        except Exception as exc:  # a broken install is reported, not raised
            version = f"not available ({type(exc).__name__})"
        mark = " (default)" if name == DEFAULT_BACKEND else ""
        print(f"{name}{mark}: {be.description}")
        print(f"    version: {version}")
        print(f"    bound:   {be.bound_support}")
        print(f"    watchdog: {'in-process cancel' if be.watchdog == 'cancel' else 'child process, killed on overrun'}")
    return EXIT_OK


def cmd_generate(args, extra) -> int:
    import optsched

    prob = optsched.get_problem(args.problem)
    _check_output(args.output, prob.name)
    options = _coerce(_extra_options(extra, "generator options"), prob.generator_options, prob.name,
                      "generator option")
    inst = optsched.generate(args.problem, seed=args.seed, preset=args.preset, **options)
    _write(inst.dumps(indent=1), args.output)
    _sync_sidecar(args.output, inst.to_json(), args.sidecar, prob.name)
    return EXIT_OK


def _sync_sidecar(output, data, write: bool, problem: str) -> None:
    """Write the ``.npz`` sidecar of the JSON just written (``--sidecar``), else remove a stale one.
    A sidecar that cannot be written takes the JSON file with it: the command leaves nothing."""
    from .core.atomic import OutputError
    from .core.sidecar import sync_sidecar

    try:
        sync_sidecar(output, data, write=write, problem=problem)
    except OutputError:
        if output not in (None, "-"):
            Path(output).unlink(missing_ok=True)
        raise


def _write(text: str, output: str | None) -> None:
    """Print ``text``, or write it to ``output`` atomically (a failure leaves no file: exit 1)."""
    from .core.atomic import write_text

    if output in (None, "-"):
        print(text)
    else:
        write_text(output, text + "\n")


def cmd_solve(args) -> int:
    import optsched
    from .core.clock import anchor_at_process_start

    anchor_at_process_start()  # --time-limit bounds the whole command, start-up included (core.clock)
    prob = optsched.get_problem(args.problem)
    _check_output(args.output, prob.name)
    inst = _load_instance(prob, args.instance, sidecar=not args.no_sidecar)
    meth = prob.get_method(args.method)
    options = {}
    for item in args.option or []:
        if "=" not in item:
            raise InvalidInstanceError(prob.name, "--option", "must be NAME=VALUE", item)
        k, v = item.split("=", 1)
        options[k] = _parse_value(v)
    with Progress(f"{prob.name}/{meth.name}", enabled=not args.quiet) as progress:
        result = optsched.solve(inst, meth.name, backend=args.backend, time_limit=args.time_limit,
                                seed=args.seed, threads=args.threads, node_limit=args.node_limit,
                                options=options, progress=progress)
    if args.output:
        _write(result.dumps(), args.output)
    _sync_sidecar(args.output, result.to_json(), args.sidecar, prob.name)
    if args.json:
        print(result.dumps())
    else:
        line = (f"{result.problem}/{result.method} [{result.fidelity}]"
                f"{' on ' + result.backend if result.backend else ''}: {result.status}"
                f"  objective={_fmt(result.objective)} bound={_fmt(result.bound)} gap={_fmt(result.gap)}"
                f"  wall={result.wall_s:.3f}s")
        print(line)
        if result.reason:
            print(f"reason: {result.reason}")
    if result.status == "infeasible":
        return EXIT_INFEASIBLE
    if result.status == "error":
        return EXIT_VIOLATION
    return EXIT_OK


def cmd_check(args) -> int:
    import optsched
    from .core.referee import record_contradictions
    from .core.registry import CheckReport
    from .core.result import Result
    from .core.sidecar import read_json_data

    prob = optsched.get_problem(args.problem)
    inst = _load_instance(prob, args.instance, sidecar=not args.no_sidecar)
    data = read_json_data(args.result, prob.name, sidecar=not args.no_sidecar)
    if _looks_like_instance(data):
        raise InvalidInstanceError(prob.name, "(file)", f"{args.result} is an instance (problem "
                                   f"{data.get('problem')!r}), not a result record or solution")
    if isinstance(data, dict) and "format_version" in data and "method" in data:
        result = Result.from_json(data)
        if result.problem != prob.name:
            raise InvalidInstanceError(prob.name, "problem", f"result is for {result.problem!r}", result.problem)
        if result.instance_sha256 and result.instance_sha256 != inst.sha256():
            print(f"note: the result was computed for another instance (sha256 {result.instance_sha256[:12]}...)",
                  file=sys.stderr)
        solution, reported = result.solution, result.objective
        contradictions = record_contradictions(result, prob.sense)
        if solution is None and not contradictions:
            raise InvalidInstanceError(prob.name, "solution", "the result carries no solution to check")
    else:
        solution, reported, contradictions = data, None, []
    report = prob.check(inst, solution) if solution is not None else None
    if report is None:  # a self-contradictory record without a solution: its claims are the answer
        report = CheckReport(True, None)
    agrees = reported is None or report.objective is None or abs(report.objective - reported) <= 1e-6 * max(1, abs(reported))
    if args.json:
        print(json.dumps({"feasible": report.feasible, "objective": report.objective, "reported_objective": reported,
                          "objective_agrees": agrees, "violations": report.violations,
                          "record_contradictions": contradictions}, indent=2))
    else:
        for c in contradictions:
            print(f"the record contradicts itself: {c}")
        if report.feasible and solution is not None:
            print(f"feasible: objective={_fmt(report.objective)}"
                  + ("" if agrees else f" (the result reported {_fmt(reported)})"))
        else:
            print(f"infeasible solution: {len(report.violations)} violation(s)")
            for v in report.violations:
                print(f"  - {v}")
    return EXIT_OK if report.feasible and agrees and not contradictions else EXIT_VIOLATION


def _importers() -> dict:
    import optsched

    table = {}
    for prob in optsched.list_problems().values():
        for fmt, loader in prob.importers.items():
            table[fmt] = (prob, loader)
    return table


def cmd_import(args) -> int:
    table = _importers()
    if args.format not in table:
        raise UnknownNameError("import format", args.format, list(table))
    prob, loader = table[args.format]
    _check_output(args.output, prob.name)
    kwargs = {} if args.index is None else {"index": args.index}
    if args.batch_size is not None:
        import inspect

        if "batch_size" not in inspect.signature(loader).parameters:
            raise InvalidInstanceError(prob.name, "--batch-size", f"format {args.format!r} takes no batch size")
        kwargs["batch_size"] = args.batch_size
    inst = loader(args.file, **kwargs)
    _write(inst.dumps(indent=1), args.output)
    _sync_sidecar(args.output, inst.to_json(), args.sidecar, prob.name)
    return EXIT_OK


def cmd_export(args) -> int:
    import optsched
    from optsched.core.backends import write_mps

    prob = optsched.get_problem(args.problem)
    if args.solution or args.format:
        if not (args.solution and args.format):
            raise InvalidInstanceError(prob.name, "--format", "--solution and --format go together")
        if args.format not in prob.solution_exporters:
            raise InvalidInstanceError(prob.name, "--format", "unknown solution format (known: "
                                       f"{', '.join(prob.solution_exporters) or 'none'})", args.format)
        _check_output(args.output, prob.name)
        inst = _load_instance(prob, args.instance)
        result = _load_result(args.solution, prob.name)
        if result.solution is None:
            raise InvalidInstanceError(prob.name, "--solution", f"the result has no solution (status {result.status})")
        _write(prob.solution_exporters[args.format](inst, result.solution), args.output)
        print(f"wrote {args.output}: the {args.format} solution of {result.method}'s result")
        return EXIT_OK
    if prob.build_model is None:
        raise InvalidInstanceError(prob.name, "export", "this problem has no linear model to export")
    _check_output(args.output, prob.name)
    inst = _load_instance(prob, args.instance)
    model = prob.build_model(inst)
    if args.lp_relaxation:
        model = model.relaxed()
    if not str(args.output).endswith(".mps"):
        raise InvalidInstanceError(prob.name, "-o", "the output file must end in .mps", args.output)
    write_mps(model, args.output)
    print(f"wrote {args.output}: {model.num_cols} columns ({int(model.integrality.sum())} integer), "
          f"{model.num_rows} rows, {model.matrix.nnz} nonzeros")
    return EXIT_OK


def _load_result(path: str, problem: str):
    from .core.result import Result
    from .core.sidecar import read_json_data

    data = read_json_data(path, problem)
    if _looks_like_instance(data):
        raise InvalidInstanceError(problem, "(file)", f"{path} is an instance, not a result record")
    if not (isinstance(data, dict) and "format_version" in data and "method" in data):
        raise InvalidInstanceError(problem, "(file)", f"{path} is not a result record (write one with solve -o)")
    result = Result.from_json(data)
    if result.problem != problem:
        raise InvalidInstanceError(problem, "problem", f"result is for {result.problem!r}", result.problem)
    return result


def cmd_plot(args) -> int:
    import matplotlib

    import optsched
    from .plot import plot

    matplotlib.use("Agg")  # files only: no window (the library itself never forces a backend)
    prob = optsched.get_problem(args.problem)
    _check_output(args.output, prob.name)
    inst = _load_instance(prob, args.instance)
    from .core.atomic import atomic_path

    result = _load_result(args.result, prob.name)
    with atomic_path(args.output) as tmp:  # the figure appears whole or not at all
        fig = plot(inst, result, tmp)
    print(f"wrote {args.output}: {', '.join(f'{k} {v}' for k, v in fig.optsched.items())}")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return EXIT_OK


def cmd_compare(args) -> int:
    from .compare import cmd_compare as run  # the verb lives in its own module

    return run(args)


def cmd_repro(args) -> int:
    from .repro.cli import run_repro

    return run_repro(args)


def cmd_models(args) -> int:
    from .models_cli import run_models

    return run_models(args)


def cmd_data(args) -> int:
    """``optsched data fetch [NAME ... | --all]`` and ``optsched data list`` (docs/data.md)."""
    from .core.data import data_target
    from .core.datasets import DATASETS, fetch, status

    root = Path(args.dir) if args.dir else data_target()
    if args.action == "list":
        rows = status(args.names or None, root)
        for name in sorted({r[0] for r in rows}):
            mine = [r for r in rows if r[0] == name]
            ok = sum(r[2] == "ok" for r in mine)
            bad = [f"{r[1]} ({r[2]})" for r in mine if r[2] != "ok"]
            ds = DATASETS[name]
            print(f"{name:18} {ok}/{len(mine)} files ok  {ds.repo}@{ds.commit[:12]}  {ds.summary}")
            for line in bad[:3]:
                print(f"{'':18} {line}")
        print(f"data directory: {root}")
        return 0
    if not args.names and not args.all:
        raise InvalidInstanceError("cli", "data fetch", "name data sets or give --all "
                                   f"(data sets: {', '.join(sorted(DATASETS))})")
    if args.names and args.all:
        raise InvalidInstanceError("cli", "data fetch", "give data set names or --all, not both")
    fetch(None if args.all else args.names, root, mirror=args.source, log=print)
    return 0


def _escape(text: str) -> str:
    """Help text for argparse, which %-formats it."""
    return str(text).replace("%", "%%")


def _shown(value) -> str:
    """A default or allowed value as it is typed on the command line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value == "":
        return '""'
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def option_help(opt) -> str:
    """One option's help line: description, type, default and allowed values.

    >>> from optsched.core.registry import Option
    >>> option_help(Option(str, "fast", "fast | exact"))
    'fast | exact [str, default: fast; allowed: fast, exact]'
    """
    allowed = opt.allowed()
    extra = f"; allowed: {', '.join(_shown(v) for v in allowed)}" if allowed else ""
    extra += f"; range: {opt.bounds}" if getattr(opt, "bounds", None) is not None else ""
    return f"{opt.help} [{opt.type.__name__}, default: {_shown(opt.default)}{extra}]"


def _metavar(opt) -> str:
    return {"int": "INT", "float": "NUMBER", "bool": "BOOL", "str": "TEXT"}.get(opt.type.__name__, "VALUE")


def _presets_text(prob) -> str:
    lines = []
    width = max((len(n) for n in prob.presets), default=0)
    for name, params in prob.presets.items():
        shown = " ".join(f"--{k.replace('_', '-')} {_shown(v)}" for k, v in params.items()) or "(the defaults)"
        lines.append(f"  {name:{width}s}  {shown}")
    return "\n".join(lines)


def methods_text(prob) -> str:
    """The methods of ``prob`` with kind, fidelity, guarantee, summary and every option (type,
    default, description, allowed values): the text of ``solve PROBLEM --help``."""
    lines = []
    for m in prob.methods.values():
        mark = " (default)" if m.name == prob.default_method else ""
        lines.append(f"  {m.name}{mark}  [{m.kind}, {m.fidelity}]  {m.summary}")
        if m.guarantee:
            lines.append(f"      guarantee: {m.guarantee.statement} [{m.guarantee.source}]")
        for oname, opt in m.options.items():
            lines.append(f"      --option {oname}=<{opt.type.__name__}>  {option_help(opt)}")
    return "\n".join(lines)


def imports_text() -> str:
    """The import formats, one line each: name, problem, first line of the importer's docstring."""
    table = _importers()
    width = max((len(f) for f in table), default=0)
    lines = []
    for fmt, (prob, loader) in sorted(table.items()):
        first = _first_sentence(loader.__doc__ or "")
        lines.append(f"  {fmt:{width}s}  -> {prob.name}{': ' + first if first else ''}")
    return "\n".join(lines)


def _first_sentence(doc: str, limit: int = 110) -> str:
    """The first sentence of a docstring, without reST markup or a leading usage example.

    >>> _first_sentence("``optsched import x F``: read a file (``.json``) of :class:`Foo`. More.")
    'read a file (.json) of Foo.'
    >>> _first_sentence("Jobs ``a .. b`` of a trace. More.")
    'Jobs a .. b of a trace.'
    """
    import re

    para = " ".join(doc.strip().split("\n\n")[0].split())
    para = re.sub(r"^``optsched [^`]*``:\s*", "", para)
    para = re.sub(r":\w+:`~?([^`]*)`", r"\1", para).replace("``", "")
    m = re.search(r"(?<!\.)\.(\s|$)", para)
    text = para[:m.end()].strip() if m else para
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def _wrap(text: str) -> str:
    import textwrap

    return textwrap.fill(text, 79)


def _profile_names() -> str:
    from .workloads.profiles import known_profiles

    groups: dict[str, list[str]] = {}
    for name in sorted(known_profiles()):
        if "/" in name:
            folder, short = name.split("/", 1)
            groups.setdefault(folder, []).append(short)
    text = "; ".join(f"{folder}/ {', '.join(shorts)}" for folder, shorts in groups.items())
    return (text + "; the folder may be left out when only one has the name") if text else "none found"


def _known_problem(name: str | None):
    if not name:
        return None
    import optsched

    return optsched.list_problems().get(name)


def _help_hints(parser: argparse.ArgumentParser, argv: list[str]) -> dict:
    """For ``--help``: the command and the problem named on the command line (the first
    positional after the command, skipping the values of the command's options)."""
    if not any(a in ("-h", "--help") for a in argv):
        return {}
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    tokens = iter(argv)
    command = next((t for t in tokens if not t.startswith("-")), None)
    if command not in sub.choices:
        return {"command": command}
    takes_value = {o for a in sub.choices[command]._actions if a.nargs != 0 for o in a.option_strings}
    positionals = []
    for tok in tokens:
        if tok.startswith("-"):
            if "=" not in tok and tok in takes_value:
                next(tokens, None)
            continue
        positionals.append(tok)
    return {"command": command, "problem": positionals[0] if positionals else None}


def build_parser(help_for: dict | None = None) -> argparse.ArgumentParser:
    """The parser of every verb. ``help_for`` (from :func:`_help_hints`) adds, for ``--help``,
    what depends on the registry: a problem's presets and generator options, its methods and
    their options, the import formats."""
    hints = help_for or {}
    command = hints.get("command")
    prob = _known_problem(hints.get("problem")) if command in ("generate", "solve") else None
    raw = argparse.RawDescriptionHelpFormatter
    p = _Parser(prog="optsched", description="optsched: exact models, approximation and online algorithms for "
                                             "distributed deep-learning scheduling, checked against exact optima.",
                epilog="Run 'optsched COMMAND --help' for what a command accepts; 'optsched generate PROBLEM "
                       "--help' and 'optsched solve PROBLEM --help' list a problem's options.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    sub.add_parser("problems", help="list the problems", description="List every registered problem: "
                   "name, sense (min/max), title and methods. Takes no arguments.")
    s = sub.add_parser("methods", help="list a problem's methods, options, presets and generator options",
                       description="A problem's methods (kind, fidelity, guarantee, summary, every option with "
                                   "type, default, description and allowed values), presets and generator options.")
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    sub.add_parser("backends", help="list the solver back-ends and what each reports",
                   description="List the solver back-ends (for solve --backend): version, bound support, watchdog. "
                               "Takes no arguments.")

    gen_epilog = None
    if prob is not None:
        gen_epilog = (f"presets of {prob.name} (--preset NAME; the options they set, overridable):\n"
                      f"{_presets_text(prob) or '  (none)'}")
    elif command == "generate":
        gen_epilog = "Name a problem ('optsched generate PROBLEM --help') to list its presets and options."
    s = sub.add_parser("generate", help="write a generated instance (problem options as --name value)",
                       formatter_class=raw, epilog=gen_epilog,
                       description=_wrap("Write a seeded random instance of PROBLEM as JSON: a preset's options "
                                   "overlaid with the problem's generator options given as --name value "
                                   "(bool options: --name, --name true or --name false)."))
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    s.add_argument("--seed", type=int, default=0, metavar="N", help="random seed; the same seed and options give the same "
                                                       "instance (default: 0)")
    s.add_argument("--preset", metavar="NAME", help="a named set of generator options (listed below)")
    s.add_argument("-o", "--output", metavar="FILE", help="write the instance here (default: stdout)")
    s.add_argument("--sidecar", action="store_true", help="also write OUTPUT.npz, a binary copy that loads faster "
                                                          "(the JSON stays canonical; needs -o; docs/io.md)")
    if prob is not None:
        g = s.add_argument_group(f"generator options of {prob.name} (--name VALUE)")
        for name, opt in prob.generator_options.items():
            text = option_help(opt)
            if name == "profile":  # read by optsched.workloads.profiles.load_profile: names work too
                text += f" (or a profile name: {_profile_names()})"
            g.add_argument(f"--{name.replace('_', '-')}", metavar=_metavar(opt), dest=f"_gen_{name}",
                           help=_escape(text))

    solve_epilog = None
    if prob is not None:
        solve_epilog = f"methods of {prob.name} (--method NAME; options as --option NAME=VALUE):\n{methods_text(prob)}"
    elif command == "solve":
        solve_epilog = "Name a problem ('optsched solve PROBLEM --help') to list its methods and their options."
    s = sub.add_parser("solve", help="solve an instance file", formatter_class=raw, epilog=solve_epilog,
                       description=_wrap("Solve an instance of PROBLEM with one method and print status, objective, "
                                   "bound and gap (or the result record with --json / -o). Long exact solves "
                                   "report incumbent, bound and gap on stderr as they improve (--quiet: off)."))
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    s.add_argument("instance", help="an instance file of PROBLEM (from generate or import)")
    s.add_argument("--method", metavar="NAME", help="the method (listed below; default: the problem's default)")
    s.add_argument("--backend", metavar="NAME", help="solver back-end for exact models (see 'optsched backends'; "
                                                     "default: highs)")
    s.add_argument("--time-limit", type=_positive_seconds, metavar="SECONDS",
                   help="budget of the whole method call; at the limit the best answer so far is "
                        "reported with status time_limit (default: none)")
    s.add_argument("--node-limit", type=_nonnegative_int("--node-limit"), metavar="N",
                   help="branch-and-bound node limit of the exact solver (default: none)")
    s.add_argument("--threads", type=_int_at_least("--threads", 1, MAX_THREADS), default=1, metavar="N",
                   help=f"solver threads, 1..{MAX_THREADS} (default: 1)")
    s.add_argument("--seed", type=int, default=0, metavar="N", help="seed of randomized methods and the solver (default: 0)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="a method option (repeatable; values are JSON or text; listed below)")
    s.add_argument("--json", action="store_true", help="print the result record as JSON")
    s.add_argument("-o", "--output", metavar="FILE", help="write the result record to this file")
    s.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    s.add_argument("--sidecar", action="store_true", help="with -o: also write the result's binary copy OUTPUT.npz")
    s.add_argument("--no-sidecar", action="store_true", help="parse the JSON even if a .npz sidecar exists")

    s = sub.add_parser("check", help="check a result (or bare solution) against an instance",
                       description="Check a solution with the problem's authoritative checker and compare its "
                                   "objective with the one the result reports (exit 1 on a violation).")
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    s.add_argument("instance", help="the instance file")
    s.add_argument("result", help="a result record (solve -o) or a bare solution in the problem's solution schema")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.add_argument("--no-sidecar", action="store_true", help="parse the JSON even if a .npz sidecar exists")

    import_epilog = None
    if command == "import":
        import_epilog = f"formats:\n{imports_text()}"
    s = sub.add_parser("import", help="convert an external file into an optsched instance", formatter_class=raw,
                       epilog=import_epilog,
                       description=_wrap("Convert a file of another tool's format into an optsched instance "
                                         "(JSON) of the problem the format belongs to."))
    s.add_argument("format", help="the file's format (listed below)")
    s.add_argument("file", help="the file to convert")
    s.add_argument("--index", type=int, metavar="I", help="which instance of a file holding several "
                                                          "(e.g. an OR-Library collection; default: the first)")
    s.add_argument("--batch-size", type=_positive_number("--batch-size"), metavar="N",
                   help="profiling batch size of a PipeDream profile (pipedream-profile; needed for files "
                        "other than PipeDream's released profiles)")
    s.add_argument("-o", "--output", metavar="FILE", help="write the instance here (default: stdout)")
    s.add_argument("--sidecar", action="store_true", help="also write OUTPUT.npz, a binary copy that loads faster "
                                                          "(the JSON stays canonical; needs -o; docs/io.md)")
    s = sub.add_parser("export", help="write an instance's exact model as MPS for other solvers, or a "
                                      "solution in another tool's format (--solution, --format)",
                       description="Write an instance's exact model as MPS (-o FILE.mps), or with --solution "
                                   "and --format a result's solution in another tool's format.")
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    s.add_argument("instance", help="the instance file")
    s.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.mps, or the solution file")
    s.add_argument("--lp-relaxation", action="store_true", help="export the LP relaxation instead of the MIP")
    s.add_argument("--solution", metavar="RESULT", help="export this result's solution instead of the model")
    s.add_argument("--format", help="the solution format (e.g. iopddl for intra-op)")
    s = sub.add_parser("plot", help="draw a result: Gantt chart, partition, placement, sharding plan, price curve...",
                       description="Draw a result of solve -o as the problem's picture (matplotlib; every "
                                   "problem has one, declared in its folder's plot.py).")
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    s.add_argument("instance", help="the instance file")
    s.add_argument("result", help="a result record written by solve -o")
    s.add_argument("-o", "--output", required=True, help="FILE.png, FILE.svg or FILE.pdf")
    from .compare import add_compare_parser

    add_compare_parser(sub)
    s = sub.add_parser("repro", help="regenerate the paper tables into paper_repro/results",
                       description="Run the paper_repro experiments and write their tables; cells already "
                                   "computed (same code, settings and instance) are reused.")
    s.add_argument("--quick", action="store_true", help="the QUICK variant (minutes; results under <out>/quick)")
    s.add_argument("--only", nargs="+", metavar="ID", help="only these experiments (e.g. T1 T8)")
    s.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="where cells run: local processes or a dask cluster (default: local)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address (with --executor dask)")
    s.add_argument("--jobs", type=_int_at_least("--jobs", None, MAX_THREADS), default=2, metavar="N",
                   help=f"parallel local workers, 1..{MAX_THREADS} (default: 2)")
    s.add_argument("--out", default="paper_repro/results", metavar="DIR",
                   help="results folder (default: paper_repro/results)")
    s = sub.add_parser("data", help="download the public data sets (pinned, SHA-256 checked) or list them",
                       description="optsched data fetch [NAME ... | --all]: download public data sets from their "
                                   "sources at pinned commits into the data directory (OPTSCHED_DATA_DIR, else the "
                                   "user cache), each file checked against its pinned SHA-256; a mismatch is "
                                   "rejected and nothing is kept. optsched data list: what is there. docs/data.md.")
    s.add_argument("action", choices=("fetch", "list"), help="fetch: download; list: show each data set's state")
    s.add_argument("names", nargs="*", metavar="NAME", help="data sets (default for list: all)")
    s.add_argument("--all", action="store_true", help="fetch every data set")
    s.add_argument("--dir", metavar="DIR", help="data directory (default: OPTSCHED_DATA_DIR, else the user cache)")
    s.add_argument("--from", dest="source", metavar="URL",
                   help="a mirror laid out like the data directory (default: each source repository at its pinned commit)")
    s = sub.add_parser("models", help="regenerate the analytic DNN profiles in models/",
                       description="Write one analytic per-layer profile (JSON) per architecture.")
    s.add_argument("--out", default="models", metavar="DIR", help="output folder (default: models)")
    return p


def _version() -> str:
    from . import __version__

    return f"optsched {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    global _STDERR_FD
    if _STDERR_FD is None:
        try:
            _STDERR_FD = os.dup(2)
        except OSError:
            pass
    argv = list(sys.argv[1:] if argv is None else argv)
    caught = release_startup_signals()  # Ctrl-C (or SIGTERM, SIGHUP) while the command line was importing
    terminate_like_interrupt()  # SIGTERM and SIGHUP stop children and exit as Ctrl-C does
    if caught:
        restore_signals()
        import signal

        from .core.procs import Terminated

        return _interrupted(None if caught == signal.SIGINT else Terminated(caught))
    try:
        parser = build_parser()
        hints = _help_hints(parser, argv)
        if hints:
            parser = build_parser(hints)
        args, extra = parser.parse_known_args(argv)
        if extra and args.command != "generate":
            raise InvalidInstanceError("cli", "arguments", f"unrecognized arguments: {' '.join(extra)}")
        handler = globals()[f"cmd_{args.command}"]
        code = handler(args, extra) if args.command == "generate" else handler(args)
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return code
    except OptschedError as exc:
        print(f"optsched: error: {exc}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except BrokenPipeError:
        return _broken_pipe()
    finally:
        restore_signals()


def _interrupted(exc: BaseException | None = None) -> int:
    """Ctrl-C: one line, exit 130 (SIGTERM: 143, SIGHUP: 129; :mod:`optsched.core.procs`). A
    solver thread that could not be cancelled (an in-process Pyomo or CVXPY solve) is not waited
    for: the process ends at once, without running C++ destructors of a solver that is still
    running (which would abort with SIGABRT)."""
    from .core.backends.base import abandoned_solver_threads
    from .core.procs import exit_status, interrupt_line

    # a solver library may have replaced sys.stderr or redirected descriptors 1 and 2 while it
    # solved (Pyomo captures them): write to the copy of stderr taken when main() started
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    try:
        os.write(_STDERR_FD if _STDERR_FD is not None else 2, (interrupt_line(exc) + "\n").encode())
    except OSError:
        pass
    code = exit_status(exc)
    if abandoned_solver_threads():
        os._exit(code)
    return code


_STDERR_FD: int | None = None


def _broken_pipe() -> int:
    """The reader of stdout went away: stop quietly (what SIGPIPE would do), exit 141."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
