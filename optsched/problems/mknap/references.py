"""Reference values for ``instances/mknap/`` (``make instances``).

* ``gen-*.json``: generated instances with their optimum from ``milp`` (highspy), cross-checked
  with SciPy's independent HiGHS build and, where n <= 20, brute force.
* ``mknapcb1.json``: for each OR-Library ``mknapcb1`` problem, the best known value (file header),
  the LP relaxation value published beside it, and optsched's proven optimum with its solver
  version and time. The instances themselves are not stored (the data stays outside the
  repository); the source file's SHA-256 identifies them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from optsched.core.data import DataUnavailable, data_file, sha256_file
from optsched.core.references import write_reference
from optsched.core.solving import solve

from .algorithms import BRUTE_MAX_ITEMS
from .generate import generate
from .orlib import count_orlib, load_orlib

GENERATED = [("small", 25, 3, 0.5, seed) for seed in range(3)] + [("tiny", 8, 2, 0.5, seed) for seed in range(3)] \
    + [("cb", 40, 5, 0.25, 0)]


def build_reference_instances(out_dir: Path, log=print) -> list[Path]:
    written = []
    for label, items, rows, tightness, seed in GENERATED:
        inst = generate(seed, items=items, rows=rows, tightness=tightness)
        exact = solve(inst, "milp")
        checks = {"scipy": solve(inst, "milp", backend="scipy").objective}
        if items <= BRUTE_MAX_ITEMS:
            checks["brute"] = solve(inst, "brute").objective
        assert exact.status == "optimal" and all(v == exact.objective for v in checks.values()), checks
        path = out_dir / f"gen-{label}-{items}x{rows}-s{seed}.json"
        write_reference(path, inst, {"kind": "optimum", "value": exact.objective, "status": exact.status,
                                     "method": "milp", "backend": exact.backend,
                                     "solver_version": exact.solver_version, "cross_checks": checks,
                                     "how": "optsched milp (mip_rel_gap 0), equal to every cross-check"})
        written.append(path)
        log(f"mknap {path.name}: {exact.objective}")
    try:
        path = data_file("mknap/mknapcb1.txt")
    except DataUnavailable as exc:
        log(f"mknap mknapcb1: skipped ({exc})")
        return written
    lp_values = _published_lp_values(path.parent / "best-feasible-slns.txt")
    entries = []
    for index in range(count_orlib(path)):
        inst = load_orlib(path, index)
        exact = solve(inst, "milp")
        entries.append({"index": index, "best_known": inst.reference_value,
                        "published_lp": lp_values.get(index), "optsched_optimum": exact.objective,
                        "optsched_status": exact.status, "optsched_bound": exact.bound,
                        "milp_wall_s": round(exact.wall_s, 2)})
        log(f"mknap mknapcb1[{index}]: {exact.status} {exact.objective} (best known {inst.reference_value})")
    out = out_dir / "mknapcb1.json"
    out.write_text(json.dumps({
        "source": path.name, "source_sha256": sha256_file(path),
        "how": "best_known: the file header (Chu & Beasley 1998); published_lp: best-feasible-slns.txt; "
               "optsched_optimum: optsched milp on highspy, mip_rel_gap 0",
        "solver_version": exact.solver_version, "entries": entries}, indent=1) + "\n")
    written.append(out)
    return written


def _published_lp_values(path: Path) -> dict[int, float]:
    """LP relaxation values listed in best-feasible-slns.txt for problems ``5.100-NN``."""
    if not path.is_file():
        return {}
    values: dict[int, float] = {}
    text = path.read_text()
    part = text.split("LP optimal", 1)[-1] if "LP optimal" in text else ""
    for name, value in re.findall(r"^5\.100-(\d\d)\s+([0-9.eE+-]+)\s*$", part, flags=re.M):
        values[int(name)] = float(value)
    return values
