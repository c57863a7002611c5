"""The gallery: every problem's picture, drawn from the example its folder declares.

``python -m optsched.gallery docs/img`` (``make figures``) redraws ``docs/img/<package>.png``, one
per problem; the documentation site (``make docs``) draws the same pictures into its build at
build time. Nothing here names a problem: the list comes from the registry, each example from the
problem's ``plot.EXAMPLE``.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["render_gallery", "image_name", "main"]


def image_name(problem: str, suffix: str = ".png") -> str:
    """``my-problem`` -> ``my_problem.png`` (the problem's folder name)."""
    return problem.replace("-", "_") + suffix


def render_gallery(folder: str | Path, *, formats: tuple[str, ...] = (".png",), dpi: int = 110,
                   problems: list[str] | None = None) -> list[Path]:
    """Draw every problem's example picture into ``folder`` in each of ``formats``; the paths."""
    import matplotlib.pyplot as plt

    import optsched
    from optsched.plot import example, pictures, plot, savefig

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for problem in problems or pictures():
        ex = example(problem)
        inst = optsched.generate(problem, seed=ex["seed"], preset=ex["preset"])
        fig = plot(inst, optsched.solve(inst, ex["method"]))
        for suffix in formats:
            written.append(savefig(fig, folder / image_name(problem, suffix), style={"savefig.dpi": dpi}))
        plt.close(fig)
    return written


def main(argv: list[str] | None = None) -> int:
    import matplotlib

    matplotlib.use("Agg")
    args = sys.argv[1:] if argv is None else argv
    folder = args[0] if args else str(Path(__file__).resolve().parent.parent / "docs" / "img")
    for path in render_gallery(folder):
        print(f"drew {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
