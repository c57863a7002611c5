"""``optsched models --out DIR``: regenerate the analytic per-layer profiles of ``models/``.

One JSON profile per architecture of :data:`optsched.workloads.analytic.ARCHITECTURES`, in the
format of :mod:`optsched.workloads.profiles` (read them with ``load_profile``). The output is a
deterministic function of the code: rerunning writes byte-identical files.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["run_models", "write_models"]


def write_models(out: str | Path) -> list[Path]:
    """Write ``<out>/<architecture>.json`` for every architecture; return the paths."""
    from optsched.workloads.analytic import ARCHITECTURES, profile

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in ARCHITECTURES:
        path = out / f"{name}.json"
        profile(name).save(path)
        paths.append(path)
    return paths


def run_models(args) -> int:
    for path in write_models(args.out):
        print(f"wrote {path}")
    return 0
