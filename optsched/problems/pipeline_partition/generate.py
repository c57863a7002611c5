"""Presets and the conformance suite's tiny instances of ``pipeline-partition``. The generators
(a profile on a device graph, a seeded random chain, a hand-made chain) are the shared layer's
(:mod:`optsched.pipeline.partition.generate`), re-exported here.
"""

from __future__ import annotations

from optsched.pipeline.partition.generate import chain_instance, from_profile, generate, random_profile

from .instance import PipelinePartitionInstance

__all__ = ["generate", "from_profile", "random_profile", "chain_instance", "tiny_instance", "PRESETS"]

PRESETS: dict[str, dict] = {
    "tiny": {"layers": 5, "topology": "nvlink:3"},
    "small": {"layers": 12, "topology": "two-level:2x2"},
    "medium": {"layers": 60, "topology": "two-level:2x4"},
}


_TINY = [
    {"topology": "flat:3:10", "objective": "bottleneck", "max_replicas": 1},
    {"topology": "two-level:2x2:25:1", "objective": "sync-estimate"},
    {"topology": "random:4:0.3", "objective": "bottleneck", "stages": 2},
    {"topology": "nvlink:3", "objective": "sync-estimate"},
]


def tiny_instance(seed: int) -> PipelinePartitionInstance:
    """Small enough for ``milp`` in well under a second: 4-6 positions, 3-4 devices."""
    spec = _TINY[seed % len(_TINY)]
    return generate(seed, layers=4 + seed % 3, microbatches=4, **spec)
