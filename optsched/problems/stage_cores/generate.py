"""Generated ``stage-cores`` instances [ours].

The three BGL preprocessing stages with per-core rates drawn log-uniformly within a factor
``spread`` around 1000 items/s per core (BGL publishes no per-stage rates in its abstract; these are
optsched's numbers, not the paper's).
"""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidOptionError
from optsched.core import portable
from optsched.core.rng import make_rng

from .instance import StageCoresInstance

__all__ = ["generate", "PRESETS", "tiny_instances", "STAGES"]

STAGES = ("sampling", "feature-retrieval", "transfer")
PRESETS = {"tiny": dict(cores=6, stages=3), "small": dict(cores=32, stages=3), "large": dict(cores=96, stages=5)}


def generate(seed: int = 0, cores: int = 32, stages: int = 3, spread: float = 8.0) -> StageCoresInstance:
    if stages < 1:
        raise InvalidOptionError("stage-cores", "stages", "must be >= 1", stages)
    rng = make_rng(seed, "stage-cores", "generate")
    names = STAGES[:stages] if stages <= len(STAGES) else STAGES + tuple(f"stage{i}" for i in range(3, stages))
    rates = 1000.0 * portable.exp(rng.uniform(-portable.log(spread) / 2, portable.log(spread) / 2, size=stages))
    return StageCoresInstance(stages=names, rate_per_core=tuple(float(round(r, 3)) for r in rates), cores=cores,
                              name=f"stages{stages}-c{cores}-s{seed}", provenance=f"optsched generator, seed {seed}")


def tiny_instances(seed: int) -> StageCoresInstance:
    return generate(seed, cores=5 + seed, stages=3)
