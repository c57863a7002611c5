"""Method registrations of ``commit-rate`` (thin wrappers)."""

from __future__ import annotations

from optsched.core.registry import Option

from . import algorithms, baselines
from .problem import PROBLEM

PROBLEM.method("adsp-search", color="#4477aa", kind="online", fidelity="reconstruction",
               summary="hill-climb C from 1, one check period each, loss-curve-fit reward (onlineSearch1Min)",
               )(algorithms.adsp_search)
PROBLEM.method("exhaustive", kind="heuristic", fidelity="ours",
               summary="simulate every constant C in 1..max_commits: the optimum over constant C (not over schedules)",
               )(algorithms.exhaustive)
PROBLEM.method("bsp", kind="baseline", fidelity="ours", summary="bulk synchronous, barrier every step")(baselines.bsp)
PROBLEM.method("ssp", kind="baseline", fidelity="ours", summary="stale synchronous parallel",
               options={"staleness": Option(int, 3, "commits a worker may lead the slowest by")})(baselines.ssp)
PROBLEM.method("fixed", kind="baseline", fidelity="ours", summary="fixed local steps per commit",
               options={"local_steps": Option(int, 10, "local steps between commits")})(baselines.fixed)
