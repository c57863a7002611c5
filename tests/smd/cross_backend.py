"""This problem's part of the cross-back-end table (``tests/core/crossbackend.py``)."""

#: the preset beyond the tiny instances that ``--small`` adds (solved by highs in about a second)
SMALL_PRESET = "tiny"
