"""Helpers shared by the benchmarks (``tests/<folder>/bench_*.py``, collected by ``make bench``
only): timing with a peak-memory measure, a fresh interpreter per measured step, and the
one-line report of a step beside its reference. Names no problem: each benchmark lives in its
problem's test folder and brings its own instance and reference.
"""

from __future__ import annotations

import gc
import json
import math
import os
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def best_time(function, repeat: int) -> float:
    """Smallest wall time of ``repeat`` calls of ``function``, in seconds."""
    best = math.inf
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - began)
    return best


def measure(fn):
    """(result, wall seconds, peak MiB): the time from an untraced run, the peak from a second run
    under ``tracemalloc`` (which slows allocation-heavy code several-fold, so it never times)."""
    gc.collect()  # each step starts from the same heap state, not the garbage of the one before
    start = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - start
    del out
    gc.collect()
    tracemalloc.start()
    out = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, wall, peak / 2**20


def npz_load(path):
    """Every array of an ``.npz`` file, read with plain ``numpy.load`` (the sidecar's reference)."""
    with np.load(path, allow_pickle=False) as z:
        return [z[k] for k in z.files]


def report(label: str, rows: list[tuple[str, float, float, float, str]], record_property) -> None:
    """Print each step's time as a ratio to its reference, with its peak memory and the load."""
    print(f"\n{label} (1-minute load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    for step, wall, ref, peak, ref_name in rows:
        print(f"  {step:<28} {wall:7.3f} s = {wall / ref:6.2f} x {ref_name} ({ref:.3f} s); peak {peak:7.1f} MiB")
        record_property(step.replace(" ", "_") + "_s", wall)


#: the start of every child's code: its peak resident memory and the one line it emits
CHILD_PRELUDE = """
import json, resource, sys, time
import optsched
def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def emit(**values):
    print("RESULT " + json.dumps(values))
"""


def run_child(code: str, timeout: float = 3600.0) -> dict:
    """Run ``code`` in a fresh interpreter (the repository first on its path); return the dict it
    emitted, so that its peak resident memory (``ru_maxrss``) is the step's own."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", CHILD_PRELUDE + textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])
