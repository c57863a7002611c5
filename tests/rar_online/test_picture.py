"""The picture of rar-online's solutions: it renders."""

from __future__ import annotations

import optsched
from tests.picture_checks import close_figures, renders_in_every_format  # noqa: F401 (autouse fixture)


def test_picture_renders_in_every_format(tmp_path):
    inst = optsched.generate("rar-online", seed=1, preset="tiny")
    renders_in_every_format(inst, optsched.solve(inst, "gadget"), tmp_path)
