"""Regenerate the committed MARL weights: ``python -m optsched.problems.interference_online.train``.

The committed ``marl_weights.json`` is this script's output with its defaults (seed 0, 200
iterations of 8 rollouts, Adam lr 0.05, 30-job generated streams at load 1.2 on 8 x 4 GPUs in
groups of 2, Gavel's v100 table); about 5 minutes on one shared core.

Trains on generated streams over Gavel's measured v100 interference table when the data
directory is available (``OPTSCHED_DATA_DIR``), else over a synthetic table; seeded; writes
``marl_weights.json`` beside this file (or ``--out``).
"""

from __future__ import annotations

import argparse
import sys
import time

from .marl import WEIGHTS_PATH, save_weights, train


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--preset", default="train-short", help="generator preset of the training streams")
    ap.add_argument("--out", default=str(WEIGHTS_PATH))
    args = ap.parse_args(argv)
    table = None
    try:
        from .generate import gavel_table

        table = gavel_table()[:3]
    except Exception as exc:  # noqa: BLE001 - no data: train on a synthetic table, and say so
        print(f"training on a synthetic interference table ({exc})", file=sys.stderr)
    t0 = time.perf_counter()
    w = train(args.seed, args.iterations, args.rollouts, lr=args.lr, table=table, preset=args.preset,
              progress=lambda it, j: print(f"iteration {it}: mean JCT {j:.1f} s", file=sys.stderr))
    w["config"]["table"] = "gavel-v100" if table is not None else "synthetic"
    save_weights(w, args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
