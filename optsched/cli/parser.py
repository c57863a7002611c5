"""The parser of every verb; for ``--help``, what depends on the registry (a problem's presets,
generator options, methods and their options; the import formats)."""

from __future__ import annotations

import argparse

from ..core.params import MAX_NODE_LIMIT, MAX_THREADS
from .args import _int_at_least, _Parser, _positive_number, _positive_seconds
from .helptext import _escape, _metavar, _presets_text, _profile_names, _wrap, imports_text, methods_text, option_help


def _known_problem(name: str | None):
    if not name:
        return None
    import optsched

    return optsched.core.registry.problems().get(name)


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
    s.add_argument("instance", help="an instance file of PROBLEM (from generate or import), or a file of "
                   "a format PROBLEM reads directly (docs/cli.md; reading it counts in --time-limit)")
    s.add_argument("--method", metavar="NAME", help="the method (listed below; default: the problem's default)")
    s.add_argument("--backend", metavar="NAME", help="solver back-end for exact models (see 'optsched backends'; "
                                                     "default: highs)")
    s.add_argument("--time-limit", type=_positive_seconds, metavar="SECONDS",
                   help="budget of the whole method call; at the limit the best answer so far is "
                        "reported with status time_limit (default: none)")
    s.add_argument("--node-limit", type=_int_at_least("--node-limit", 0, MAX_NODE_LIMIT), metavar="N",
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
    s.add_argument("--format", help="the solution format (one the problem declares, e.g. iopddl)")
    s = sub.add_parser("plot", help="draw a result: Gantt chart, partition, placement, sharding plan, price curve...",
                       description="Draw a result of solve -o as the problem's picture (matplotlib; every "
                                   "problem has one, declared in its folder's plot.py).")
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    s.add_argument("instance", help="the instance file")
    s.add_argument("result", help="a result record written by solve -o")
    s.add_argument("-o", "--output", required=True, help="FILE.png, FILE.svg or FILE.pdf")
    from ..compare import add_compare_parser

    add_compare_parser(sub)
    s = sub.add_parser("repro", help="regenerate the paper tables into paper_repro/results",
                       description="Run the paper_repro experiments and write their tables; cells already "
                                   "computed (same code, settings and instance) are reused.")
    s.add_argument("--quick", action="store_true", help="the QUICK variant (minutes; results under <out>/quick)")
    s.add_argument("--only", nargs="+", metavar="ID", help="only these experiments (e.g. T1 T8)")
    s.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="where cells run: local processes or a dask cluster (default: local)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address (with --executor dask)")
    s.add_argument("--connect-timeout", type=float, metavar="S",
                   help="seconds to wait for the --scheduler to answer (default: 10)")
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
    from .. import __version__

    return f"optsched {__version__}"
