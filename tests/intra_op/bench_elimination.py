"""Benchmark of intra-op's elimination and core set-up (``eliminate`` then ``Core``), the step the
Lagrangian stage and every region move repeat, against the earlier whole-array forms kept as
references in ``test_memory_equivalence.py`` (measured in the same run; ``extra_info`` holds the
ratio). Marked slow; no assertion on time (the machine is shared): the numbers are compared, not
gated. The instances: 20 generated 300-node instances (region-sized), and A when the data is there.
"""

from __future__ import annotations

import time

import pytest

from optsched.problems.intra_op import generate
from optsched.problems.intra_op.dual import Core
from optsched.problems.intra_op.elimination import eliminate
from tests.intra_op.test_memory_equivalence import ref_eliminate

pytestmark = pytest.mark.slow


def _reference_core(el):
    """The earlier set-up: the core's matrices concatenated (``ref_eliminate`` lays out nothing)."""
    el.flat = None
    return Core(el)


def _best_of(fn, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def test_bench_eliminate_and_core_small(benchmark):
    insts = [generate(s, graph="random", nodes=300, strategies=8, memory_ratio=1.05) for s in range(20)]

    def new():
        for inst in insts:
            Core(eliminate(inst))

    def old():
        for inst in insts:
            _reference_core(ref_eliminate(inst))

    reference = _best_of(old)
    benchmark(new)
    benchmark.extra_info.update(reference_s=reference, ratio=benchmark.stats.stats.min / reference)
    print(f"eliminate + Core, 20 x 300 nodes: {benchmark.stats.stats.min:.4f} s, before {reference:.4f} s")


@pytest.mark.data
def test_bench_eliminate_and_core_A(benchmark):
    from tests.conftest import require_data

    from optsched.problems.intra_op import load_iopddl

    inst = load_iopddl(require_data("iopddl/asplos-2025-iopddl-A.json.gz"))
    reference = _best_of(lambda: _reference_core(ref_eliminate(inst)), rounds=3)
    benchmark.pedantic(lambda: Core(eliminate(inst)), rounds=3)
    benchmark.extra_info.update(reference_s=reference, ratio=benchmark.stats.stats.min / reference)
    print(f"eliminate + Core on A: {benchmark.stats.stats.min:.4f} s, before {reference:.4f} s")
