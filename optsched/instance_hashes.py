"""The SHA-256 of every preset's generated instance, stored in ``instances/hashes.json``.

A seeded instance is the same bytes on every machine (generators draw through
:mod:`optsched.core.portable`, never through numpy's CPU-dispatched transcendental ufuncs), and
this file is the proof: ``tests/test_instance_hashes.py`` regenerates every preset of every
problem (seed 0) and compares its canonical-JSON SHA-256 (the one results record) with the stored
one, and ``make test-portable`` (in CI) runs that test a second time with numpy's SIMD dispatch
narrowed to the baseline (``NPY_DISABLE_CPU_FEATURES`` set to ``python -m optsched.core.simd
--cpu-features``).

Regenerate after a deliberate generator change and review the diff::

    python -m optsched.instances_build --hashes

Presets that read a real data set (``OPTSCHED_DATA_DIR``) are hashed when the data is there; when
it is not, their stored hashes are kept and listed under ``needs_data`` (their test skips).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["HASH_FILE", "SEED", "preset_hash", "build_hashes", "load_hashes"]

HASH_FILE = Path(__file__).resolve().parents[1] / "instances" / "hashes.json"
SEED = 0


def preset_hash(problem: str, preset: str, seed: int = SEED) -> str:
    import optsched

    return optsched.generate(problem, seed=seed, preset=preset).sha256()


def _needs_data(problem: str, preset: str) -> bool:
    """Whether the preset fails without the data directory (it reads a real data set)."""
    saved = os.environ.get("OPTSCHED_DATA_DIR")
    os.environ["OPTSCHED_DATA_DIR"] = os.path.join(os.sep, "nonexistent", "optsched-data")  # not the user cache either
    try:
        preset_hash(problem, preset)
        return False
    except Exception:
        return True
    finally:
        if saved is None:
            del os.environ["OPTSCHED_DATA_DIR"]
        else:
            os.environ["OPTSCHED_DATA_DIR"] = saved


def load_hashes(path: Path = HASH_FILE) -> dict:
    return json.loads(Path(path).read_text())


def build_hashes(path: Path = HASH_FILE, log=print) -> dict:
    """Hash every preset of every registered problem and write ``path`` (sorted, stable)."""
    import optsched
    from optsched.core.data import data_dir

    old = load_hashes(path) if Path(path).is_file() else {"hashes": {}, "needs_data": []}
    hashes, needs_data = {}, []
    for name, problem in sorted(optsched.core.registry.problems().items()):
        for preset in sorted(problem.presets):
            key = f"{name}/{preset}"
            if _needs_data(name, preset):
                needs_data.append(key)
                if data_dir() is None:
                    if key in old["hashes"]:
                        hashes[key] = old["hashes"][key]
                    log(f"{key}: needs OPTSCHED_DATA_DIR; stored hash kept" if key in hashes
                        else f"{key}: needs OPTSCHED_DATA_DIR; not hashed")
                    continue
            hashes[key] = preset_hash(name, preset)
            if old["hashes"].get(key) not in (None, hashes[key]):
                log(f"{key}: changed")
    table = {"about": "SHA-256 of the canonical JSON of optsched.generate(problem, seed=0, preset=preset) "
                      "for every preset; checked by tests/test_instance_hashes.py; regenerate with "
                      "python -m optsched.instances_build --hashes",
             "seed": SEED, "hashes": hashes, "needs_data": needs_data}
    Path(path).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return table
