"""``optsched``'s entry point: parse the verb, run its command, map what ends it to an exit status
(:mod:`optsched.cli.exits`)."""

from __future__ import annotations

import sys
from typing import Sequence

from ..core.data import DataUnavailable
from ..core.errors import InvalidOptionError, OptschedError
from ..core.procs import restore_signals, terminate_like_interrupt
from ..core.startup import release_startup_signals
from .args import _suggest_flag
from .exits import _broken_pipe, _interrupted, remember_stderr, report_error, report_missing_data
from .info import cmd_backends, cmd_methods, cmd_problems
from .instances import cmd_export, cmd_generate, cmd_import
from .parser import _help_hints, build_parser
from .results import cmd_check, cmd_plot, cmd_solve
from .tools import cmd_compare, cmd_data, cmd_models, cmd_repro


#: verb -> command; each takes the parsed arguments (``generate`` also the problem's own options)
COMMANDS = {
    "problems": cmd_problems, "methods": cmd_methods, "backends": cmd_backends,
    "generate": cmd_generate, "import": cmd_import, "export": cmd_export,
    "solve": cmd_solve, "check": cmd_check, "plot": cmd_plot,
    "compare": cmd_compare, "repro": cmd_repro, "models": cmd_models, "data": cmd_data,
}


def main(argv: Sequence[str] | None = None) -> int:
    remember_stderr()
    argv = list(sys.argv[1:] if argv is None else argv)
    caught = release_startup_signals()  # Ctrl-C (or SIGTERM, SIGHUP) while the command line was importing
    terminate_like_interrupt()  # SIGTERM and SIGHUP stop children and exit as Ctrl-C does
    if caught:
        restore_signals()
        import signal

        from ..core.procs import Terminated

        return _interrupted(None if caught == signal.SIGINT else Terminated(caught))
    try:
        parser = build_parser()
        hints = _help_hints(parser, argv)
        if hints:
            parser = build_parser(hints)
        args, extra = parser.parse_known_args(argv)
        if extra and args.command != "generate":
            raise InvalidOptionError("cli", "arguments",
                                     _suggest_flag(parser, f"unrecognized arguments: {' '.join(extra)}"))
        handler = COMMANDS[args.command]
        code = handler(args, extra) if args.command == "generate" else handler(args)
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return code
    except OptschedError as exc:
        return report_error(exc)
    except DataUnavailable as exc:  # a data set the command needs is not installed: an input missing
        return report_missing_data(exc)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except BrokenPipeError:
        return _broken_pipe()
    finally:
        restore_signals()
