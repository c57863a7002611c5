"""Speed of ``map-bb`` (``make bench``; marked slow).

* The orbit DP of ``map-bb`` against ``subset-dp`` (the same engine over every device subset) on a
  random 12-position chain on 8 devices (a three-level PCIe tree and two 4-GPU servers), both
  measured in this run: equal values, the ratio must be >= 10, absolute times are printed.
* ``map-bb`` on PipeDream's VGG-16 on 2 x DGX-1 (16 devices, bottleneck): status optimal, time
  and peak Python memory (tracemalloc) printed.
"""

from __future__ import annotations

import time
import tracemalloc

import pytest

import optsched
from optsched.core.solving import objective_tolerance
from optsched.problems.pipeline_partition.dp import solve_order
from optsched.problems.pipeline_partition.generate import generate
from optsched.problems.pipeline_partition.mapping import Orbits
from tests.conftest import require_data

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("topo", ["pcie:2x2x2:15.75:10:5", "two-level:2x4:50:12.5"])
def test_orbit_dp_vs_subset_dp(benchmark, topo):
    inst = generate(1, layers=12, topology=topo, objective="bottleneck", microbatches=4)
    start = time.perf_counter()
    reference = optsched.solve(inst, "subset-dp")
    subset_s = time.perf_counter() - start
    value = benchmark.pedantic(lambda: solve_order(inst, Orbits(inst), "bottleneck")[0], rounds=3, iterations=1)
    orbit_s = benchmark.stats.stats.min
    print(f"\n{topo}, 12 positions x 8 devices: orbit DP {orbit_s:.3f} s, subset-dp {subset_s:.3f} s, "
          f"speed-up {subset_s / orbit_s:.1f}x")
    assert abs(value - reference.objective) <= objective_tolerance(reference.objective)
    assert subset_s / orbit_s >= 10


def test_map_bb_vgg16_on_two_dgx1():
    path = require_data("profiles/pipedream/vgg16.graph.txt")
    inst = generate(0, profile=str(path), topology="dgx1x2", objective="bottleneck", microbatches=8)
    tracemalloc.start()
    start = time.perf_counter()
    r = optsched.solve(inst, "map-bb", time_limit=300)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"\nmap-bb, VGG-16 on dgx1x2: {r.status} {r.objective:.6g} s in {elapsed:.2f} s "
          f"({r.stats.get('phase')}), peak Python memory {peak / 1e6:.1f} MB")
    assert r.status == "optimal"
