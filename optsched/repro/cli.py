"""``optsched repro``: the command-line entry (the parser lives in :mod:`optsched.cli`)."""

from __future__ import annotations

from .runner import RunOptions, run

__all__ = ["run_repro"]


def run_repro(args) -> int:
    """Run ``optsched repro`` for parsed arguments (``quick, only, executor, scheduler, jobs,
    out``) from the repository root; returns the exit status (0 ok, 1 a table failed)."""
    options = RunOptions(quick=args.quick, executor=args.executor, jobs=args.jobs, scheduler=args.scheduler,
                         out=args.out, connect_timeout=getattr(args, "connect_timeout", None))
    return run(options, only=args.only)
