"""``domain-decomposition``: Peano-Hilbert domain decomposition (PHoToNs, arXiv 1802.09824; docs
``optsched/problems/domain_decomposition/README.md``).

Particles are keyed along a 3-D Peano-Hilbert curve (vectorized Skilling transform, :mod:`.hilbert`),
grouped into top-level cells with work weights, and the cell chain is cut into contiguous
segments, one per rank in a fixed order, minimizing ``max_p W_p / s_p``. Methods: ``chain`` (exact,
shared chain layer), ``dp``, ``milp``, ``brute`` (exact), baselines ``equal-count`` and ``rcb``.
"""

from __future__ import annotations

from . import methods  # noqa: F401  (registers the methods)
from .algorithms import chain_owner, decompose_particles
from .generate import cell_work, gaussian_halos, generate, zeldovich
from .hilbert import hilbert_keys, hilbert_points, quantize
from .instance import DomainDecompositionInstance, check, cut_surface
from .problem import PROBLEM

__all__ = ["PROBLEM", "DomainDecompositionInstance", "check", "cut_surface", "generate", "gaussian_halos",
           "zeldovich", "cell_work", "hilbert_keys", "hilbert_points", "quantize", "chain_owner",
           "decompose_particles", "methods"]
