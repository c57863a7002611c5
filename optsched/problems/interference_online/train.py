"""Regenerate the committed weights of the learned scheduler (needs jax, the ``learn`` extra)::

    python -m optsched.problems.interference_online.train --seed K      # K = 0..4

writes ``weights/marl-seedK.json`` beside this module (or ``--out``). The defaults are the
committed weights' settings (:func:`.marl_train.train`: generated ``train-rack`` streams over
Gavel's measured v100 interference table when the data directory is available, else a synthetic
table; seeded). Training never sees a trace.
"""

from __future__ import annotations

import argparse
import sys

from .marl import default_weights_path, save_weights

ITERATIONS, IMITATION, ROLLOUTS, LR = 120, 60, 6, 2e-3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=ITERATIONS)
    ap.add_argument("--imitation", type=int, default=IMITATION, help="first iterations imitate the teacher")
    ap.add_argument("--rollouts", type=int, default=ROLLOUTS)
    ap.add_argument("--lr", type=float, default=LR)
    ap.add_argument("--preset", default="train-rack", help="generator preset of the training streams")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    try:
        from .marl_train import train
        import jax  # noqa: F401
    except ImportError as exc:
        print(f"training needs jax (the learn extra): {exc}", file=sys.stderr)
        return 2
    table = None
    try:
        from .generate import gavel_table

        table = gavel_table()[:3]
    except Exception as exc:  # noqa: BLE001 - no data: train on a synthetic table, and say so
        print(f"training on a synthetic interference table ({exc})", file=sys.stderr)
    w = train(args.seed, args.iterations, args.rollouts, lr=args.lr, table=table, preset=args.preset,
              imitation=args.imitation,
              progress=lambda it, j, loss, s: print(f"iteration {it}: mean JCT / mean isolated {j:.3f} "
                                                    f"({s:.0f} s)", file=sys.stderr))
    w["config"]["table"] = "gavel-v100" if table is not None else "synthetic"
    out = args.out or default_weights_path(args.seed)
    save_weights(w, out)
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
