"""What racing costs the portfolio's own member on this machine (``make bench``).

The portfolio runs its chosen member (CP-SAT on OR-Library ``mknapcb1`` #4, about 3 s alone) in
the calling process and SCIP in a child at idle CPU priority. On an idle 2-core machine the child
gets the second core to itself; whatever slows the first member then (shared caches, memory
bandwidth, a host that maps both virtual cores onto one physical core) is a cost in proportion
to the run time, not a start-up cost. This benchmark measures it, in round robin so that a change
of load hits every variant:

* ``alone``: ``cpsat`` by itself;
* ``beside-idle-loop``: ``cpsat`` with a busy loop at ``SCHED_IDLE`` on the other core (pure CPU,
  no memory traffic);
* ``portfolio``: the default portfolio (``cpsat`` in process, ``scip`` in the idle child).

It reports each variant's fastest run over ``cpsat``'s fastest run alone (1.00 = no cost). No
time is asserted (the machines are shared); each run must prove the optimum.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import optsched

pytestmark = [pytest.mark.slow, pytest.mark.benchmark]

ROUNDS = 3
_BUSY = ("import os\n"
         "try:\n"
         "    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
         "except (AttributeError, OSError):\n"
         "    os.nice(19)\n"
         "while True:\n"
         "    pass\n")


def _instance():
    from optsched.core.data import DataUnavailable, data_file
    from optsched.problems.mknap import load_orlib

    try:
        return load_orlib(data_file("mknap/mknapcb1.txt"), 4)
    except DataUnavailable as exc:
        pytest.skip(str(exc))


def _run(inst, backend: str, beside: str | None = None) -> float:
    side = None
    if beside == "idle-loop":
        side = subprocess.Popen([sys.executable, "-c", _BUSY])
        time.sleep(0.5)  # the loop is running before the solve starts
    try:
        r = optsched.solve(inst, "milp", backend=backend, time_limit=120, seed=0)
    finally:
        if side is not None:
            side.kill()
            side.wait()
    assert r.status == "optimal", (backend, r.status, r.reason)
    return r.wall_s


def test_cost_of_racing_for_the_in_process_member(record_property):
    inst = _instance()
    variants = {"alone": ("cpsat", None), "beside-idle-loop": ("cpsat", "idle-loop"),
                "portfolio": ("portfolio", None)}
    times: dict[str, list[float]] = {v: [] for v in variants}
    load = os.getloadavg()[0]
    for _ in range(ROUNDS):
        for name, (backend, beside) in variants.items():
            times[name].append(_run(inst, backend, beside))
    ref = min(times["alone"])
    print(f"\nmknapcb1 #4, load before {load:.2f} (2 cores); fastest of {ROUNDS} round-robin runs:")
    for name, walls in times.items():
        ratio = min(walls) / ref
        record_property(f"{name}_over_alone", ratio)
        print(f"  {name:18s} {min(walls):6.2f} s  ({ratio:.3f} x alone; runs "
              + " ".join(f"{w:.2f}" for w in walls) + ")")
