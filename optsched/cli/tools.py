"""The verbs that run other parts of optsched: ``compare``, ``repro``, ``models``, ``data``."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import InvalidOptionError


def cmd_compare(args) -> int:
    from ..compare import cmd_compare as run  # the verb lives in its own module

    return run(args)


def cmd_repro(args) -> int:
    from ..repro.cli import run_repro

    return run_repro(args)


def cmd_models(args) -> int:
    from ..models_cli import run_models

    return run_models(args)


def cmd_data(args) -> int:
    """``optsched data fetch [NAME ... | --all]`` and ``optsched data list`` (docs/data.md)."""
    from ..core.data import data_target
    from ..core.datasets import DATASETS, fetch, status

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
        raise InvalidOptionError("cli", "data fetch", "name data sets or give --all "
                                   f"(data sets: {', '.join(sorted(DATASETS))})")
    if args.names and args.all:
        raise InvalidOptionError("cli", "data fetch", "give data set names or --all, not both")
    fetch(None if args.all else args.names, root, mirror=args.source, log=print)
    return 0
