"""The ``optsched`` command line, uniform across problems.

The package is split by responsibility: :mod:`~optsched.cli.main` (the entry point and the verb
table), :mod:`~optsched.cli.parser` and :mod:`~optsched.cli.args` (the parser, argument types and
problem options), :mod:`~optsched.cli.helptext` (help that comes from the registry),
:mod:`~optsched.cli.files` (reading instances and results, writing outputs atomically),
:mod:`~optsched.cli.progress` (progress of a solve), one module per group of verbs
(:mod:`~optsched.cli.info`, :mod:`~optsched.cli.instances`, :mod:`~optsched.cli.results`,
:mod:`~optsched.cli.tools`), and :mod:`~optsched.cli.exits` (exit statuses, errors, interrupts).
``optsched.cli:main`` is the console script; ``python -m optsched.cli`` runs the same.

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

from .exits import (EXIT_BROKEN_PIPE, EXIT_INFEASIBLE, EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK,
                    EXIT_VIOLATION)
from .helptext import _metavar, imports_text, methods_text, option_help
from .main import COMMANDS, main
from .parser import build_parser
from .progress import Progress

__all__ = ["main", "build_parser", "Progress", "option_help", "methods_text", "imports_text", "COMMANDS",
           "EXIT_OK", "EXIT_VIOLATION", "EXIT_INVALID", "EXIT_INFEASIBLE", "EXIT_INTERRUPTED",
           "EXIT_BROKEN_PIPE"]
