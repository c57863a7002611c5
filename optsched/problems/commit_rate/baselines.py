"""Baselines of ``commit-rate``: BSP, SSP(s) and fixed local steps [ours, after ADSP's baselines
in joapolarbear/adsp (``ssp_PS.py`` / ``ssp_WK.py``), reimplemented on optsched's simulator]."""

from __future__ import annotations

from optsched.core.registry import Outcome

from .simulate import simulate

__all__ = ["bsp", "ssp", "fixed"]


def _run(instance, scheme, ctx) -> Outcome:
    """One simulation; at the time limit, no solution (status ``time_limit``): a baseline has no
    partial answer."""
    run = simulate(instance, scheme, check=ctx.check_time)
    return Outcome(solution=scheme, objective=run.objective, stats={"reached": run.reached, "updates": run.updates})


def bsp(instance, ctx) -> Outcome:
    """Bulk synchronous: one step per worker per round, barrier at the slowest step + commit."""
    return _run(instance, {"scheme": "bsp"}, ctx)


def ssp(instance, ctx) -> Outcome:
    """Stale synchronous parallel: commit every step, at most ``staleness`` commits ahead."""
    return _run(instance, {"scheme": "ssp", "staleness": ctx.options["staleness"]}, ctx)


def fixed(instance, ctx) -> Outcome:
    """Every worker commits after ``local_steps`` steps (fast workers commit more often)."""
    return _run(instance, {"scheme": "fixed", "local_steps": ctx.options["local_steps"]}, ctx)
