"""Particle sets, cell work weights and instances for ``domain-decomposition`` [ours].

* :func:`gaussian_halos` -- a clustered distribution: ``halos`` Gaussian blobs with Pareto masses
  (radius ~ mass^(1/3)), plus a uniform background, periodic in ``[0, 1)^3``.
* :func:`zeldovich` -- a lattice displaced by the Zel'dovich approximation of a Gaussian random
  field with power spectrum ``P(k) ~ k^spectral_index`` (numpy FFT), periodic.
* :func:`cell_work` -- occupied level-``L`` cells in Hilbert order, with particle counts and the
  work model ``w_k = n_k + pp_factor * n_k^2`` [ours: tree work grows with the particles, direct
  particle-particle work with their pairs inside a cell; PHoToNs measures work instead].
* :func:`generate` -- an instance from a generated particle set; ``tiny_instances`` for conformance.

Rank speeds [ours]: ``mic_ranks`` of the ``ranks`` are accelerator ranks of speed ``mic_speed``
(PHoToNs runs CPU + MIC ranks); the others have speed 1; accelerators first.
"""

from __future__ import annotations

import numpy as np

from optsched.core import portable
from optsched.core.errors import InvalidOptionError
from optsched.core.rng import make_rng

from .hilbert import hilbert_keys, quantize
from .instance import DomainDecompositionInstance

__all__ = ["gaussian_halos", "zeldovich", "cell_work", "rank_speeds", "generate", "PRESETS", "tiny_instances"]

PRESETS = {
    "tiny": dict(particles=200, level=1, ranks=3, distribution="halos"),
    "small": dict(particles=5_000, level=3, ranks=8, distribution="halos"),
    "medium": dict(particles=100_000, level=5, ranks=32, distribution="zeldovich"),
    "large": dict(particles=1_000_000, level=6, ranks=64, distribution="zeldovich"),
}


def gaussian_halos(n: int, rng: np.random.Generator, halos: int = 32, background: float = 0.2,
                   radius: float = 0.03) -> np.ndarray:
    """``n`` positions in ``[0, 1)^3``: a ``background`` fraction uniform, the rest in Gaussian halos."""
    n_bg = int(round(background * n))
    masses = 1.0 + portable.pareto(rng, 1.5, size=halos)
    counts = rng.multinomial(n - n_bg, masses / masses.sum())
    centres = rng.random((halos, 3))
    sigma = radius * portable.power(masses / masses.mean(), 1 / 3)
    owner = np.repeat(np.arange(halos), counts)
    pos = centres[owner] + portable.standard_normal(rng, (n - n_bg, 3)) * sigma[owner, None]
    pos = np.concatenate([pos, rng.random((n_bg, 3))])
    return np.mod(pos, 1.0)


def zeldovich(n: int, rng: np.random.Generator, spectral_index: float = -2.0, rms_displacement: float = 3.0) -> np.ndarray:
    """About ``n`` positions (``g^3``, ``g = round(n^(1/3))``): lattice points moved by the gradient
    of a Gaussian potential; ``rms_displacement`` in lattice spacings sets the clustering."""
    g = max(2, int(round(n ** (1 / 3))))
    kx = np.fft.fftfreq(g) * g
    kz = np.fft.rfftfreq(g) * g
    KX, KY, KZ = np.meshgrid(kx, kx, kz, indexing="ij")
    k2 = KX ** 2 + KY ** 2 + KZ ** 2
    k2[0, 0, 0] = 1.0
    amp = portable.power(k2, spectral_index / 4.0)  # sqrt(P(k))
    delta = (portable.standard_normal(rng, k2.shape) + 1j * portable.standard_normal(rng, k2.shape)) * amp
    delta[0, 0, 0] = 0.0
    disp = []
    for K in (KX, KY, KZ):  # psi_k = i k / k^2 delta_k
        disp.append(np.fft.irfftn(1j * K / k2 * delta, s=(g, g, g), axes=(0, 1, 2)).ravel())
    disp = np.stack(disp, axis=1)
    disp *= rms_displacement / max(np.sqrt((disp ** 2).sum(axis=1).mean()), 1e-300)
    q = np.stack(np.meshgrid(*(np.arange(g),) * 3, indexing="ij"), axis=-1).reshape(-1, 3) + 0.5
    return np.mod((q + disp) / g, 1.0)


def cell_work(positions: np.ndarray, level: int, pp_factor: float = 0.01) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cells, counts, weights)``: occupied cells' Hilbert indices (increasing), particle counts
    and work ``n + pp_factor n^2``."""
    keys = hilbert_keys(quantize(positions, level), level)
    cells, counts = np.unique(keys, return_counts=True)
    return cells, counts, counts + pp_factor * counts.astype(float) ** 2


def rank_speeds(ranks: int, mic_ranks: int = 0, mic_speed: float = 2.0) -> np.ndarray:
    s = np.ones(ranks)
    s[:mic_ranks] = mic_speed
    return s


def generate(seed: int = 0, particles: int = 5000, level: int = 3, ranks: int = 8, distribution: str = "halos",
             pp_factor: float = 0.01, mic_ranks: int = -1, mic_speed: float = 2.0,
             contiguous: bool = True) -> DomainDecompositionInstance:
    """An instance from a generated particle set (``mic_ranks = -1``: half the ranks, rounded down)."""
    if particles < 1:
        raise InvalidOptionError("domain-decomposition", "particles", "must be >= 1", particles)
    if distribution not in ("halos", "zeldovich"):
        raise InvalidOptionError("domain-decomposition", "distribution", "must be halos or zeldovich", distribution)
    if ranks < 1:
        raise InvalidOptionError("domain-decomposition", "ranks", "must be >= 1", ranks)
    rng = make_rng(seed, "domain-decomposition", distribution)
    pos = gaussian_halos(particles, rng) if distribution == "halos" else zeldovich(particles, rng)
    cells, counts, weights = cell_work(pos, level, pp_factor)
    mic = ranks // 2 if mic_ranks < 0 else mic_ranks
    return DomainDecompositionInstance(
        level=level, cells=tuple(int(c) for c in cells), weights=tuple(float(w) for w in weights),
        particles=tuple(int(c) for c in counts), speeds=tuple(float(s) for s in rank_speeds(ranks, mic, mic_speed)),
        contiguous=contiguous, name=f"{distribution}-{len(pos)}-L{level}-P{ranks}-s{seed}",
        provenance=f"optsched {distribution} particles ({len(pos)}), seed {seed}, work n + {pp_factor} n^2, "
                   f"{mic} ranks of speed {mic_speed} first")


def tiny_instances(seed: int) -> DomainDecompositionInstance:
    """Level 1 (at most 8 cells), 2-3 ranks; contiguous on even seeds, free assignment on odd ones."""
    return generate(seed, particles=200, level=1, ranks=2 + seed % 2, contiguous=seed % 2 == 0)
