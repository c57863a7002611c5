"""Checks shared by the picture tests of the plotting layer and of each problem's folder."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def close_figures():
    """Close every figure a test opened (import it into a test module: it applies to each test there)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def not_blank(path) -> bool:
    import matplotlib.image as mpimg

    img = mpimg.imread(path)
    return img.shape[0] > 100 and img.shape[1] > 100 and float(np.std(img[..., :3])) > 0.01


def renders_in_every_format(instance, result, tmp_path, stem: str = "picture") -> None:
    """The picture of ``result`` saves as PNG, SVG and PDF (each over 1 kB) and the PNG is not blank."""
    from optsched.plot import plot

    assert result.solution is not None
    for suffix in (".png", ".svg", ".pdf"):
        path = tmp_path / f"{stem}{suffix}"
        plot(instance, result, path)
        assert path.stat().st_size > 1000
    assert not_blank(tmp_path / f"{stem}.png")
