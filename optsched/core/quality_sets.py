"""What a problem declares about its recorded quality: the fixed instances on which every
approximation, heuristic, online and baseline method is measured against a reference.

A problem passes a :class:`QualitySet` as ``Problem(..., quality=QualitySet(...))`` in its own
folder; :mod:`optsched.quality` (``make instances``, ``tests/test_quality.py``) finds every
registered problem that declares one. Nothing here names a problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["QualitySet", "quality_cases"]


@dataclass(frozen=True)
class QualitySet:
    """The fixed instances of one problem and the reference that each method is measured against."""

    reference: tuple                    # method names, first applicable: exact, else a proven bound
    cases: tuple                        # (preset, seed, options dict)
    skip_methods: tuple = ()            # methods not recorded (with the reason in ``notes``)
    notes: str = ""
    method_options: dict = field(default_factory=dict)   # method -> options for the recorded run


def quality_cases(presets_seeds, **options) -> tuple:
    """``(preset, seed, options)`` for every seed of every ``(preset, seeds)`` pair.

    >>> quality_cases([("tiny", range(2))], cap="none")
    (('tiny', 0, {'cap': 'none'}), ('tiny', 1, {'cap': 'none'}))
    """
    return tuple((preset, seed, dict(options)) for preset, seeds in presets_seeds for seed in seeds)
