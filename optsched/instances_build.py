"""``make instances``: regenerate ``instances/<folder>/`` for every problem whose record declares
``build_references(out_dir)`` (``<folder>``: the name with ``_`` for ``-``), and the recorded
quality of every non-exact method in ``instances/quality/`` (:mod:`optsched.quality`), and the
SHA-256 of every preset's generated instance in ``instances/hashes.json``
(:mod:`optsched.instance_hashes`).

``python -m optsched.instances_build --hashes`` rewrites the hash file alone."""

from __future__ import annotations

import sys
from pathlib import Path

import optsched


def main(argv: list[str] | None = None) -> int:
    argv = list(argv or [])
    from optsched.instance_hashes import build_hashes

    if "--hashes" in argv:
        argv.remove("--hashes")
        build_hashes(Path(argv[0] if argv else "instances") / "hashes.json")
        return 0
    root = Path(argv[0] if argv else "instances")
    for name, problem in sorted(optsched.core.registry.problems().items()):
        if problem.build_references is not None:
            problem.build_references(root / name.replace("-", "_"))
    from optsched.quality import build_quality_tables

    build_quality_tables(root / "quality")
    build_hashes(root / "hashes.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
