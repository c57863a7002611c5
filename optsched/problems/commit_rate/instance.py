"""The commit-rate control instance (ADSP; ``optsched/problems/commit_rate/README.md``) and its checker.

optsched's formulation [code: joapolarbear/adsp, ``cifar10/strain.py`` (no licence: read and
cited, not copied); the training model is ours]:

* ``n`` workers with seconds per local step ``step_times[i]`` and commit overheads
  ``commit_overheads[i]`` (upload + download, seconds); one parameter server (PS);
* ADSP's commit rule: in check period ``k`` (length ``period``, Gamma) the PS asks for ``C_k``
  commits per period; a worker that starts an interval computes for
  ``p_i = max(min_interval, period / C_k - o_i)`` seconds (``floor(p_i / t_i)`` local steps,
  at least one), then commits (``o_i`` seconds);
* the model trained is ``model`` (``least-squares``: convex; ``mlp``: one tanh hidden layer,
  non-convex) on a seeded synthetic regression set (``data_seed``), local SGD with ``local_lr``
  and mini-batch ``batch``; the PS applies each commit ``Delta`` as ``v = momentum v +
  server_lr Delta; w = w + v``.

Objective (authoritative): the simulated time to target loss -- the first PS update instant at
which the full-data loss is ``<= target_loss``; if the target is not reached by ``horizon``, the
censored value ``horizon (1 + min(9, (l_end - target) / (l_0 - target)))`` [ours] (non-finite
losses count as 9).

Solution schema (one of): ``{"scheme": "adsp", "commits": [C_0, C_1, ...]}`` (per check period,
the last value holds afterwards), ``{"scheme": "bsp"}``, ``{"scheme": "ssp", "staleness": s}``,
``{"scheme": "fixed", "local_steps": tau}``. The checker re-runs the deterministic simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport

__all__ = ["CommitRateInstance", "check", "OBJECTIVE", "SOLUTION_SCHEMA", "parse_scheme"]

OBJECTIVE = ("minimize the simulated time until the PS loss <= target_loss "
             "(censored at horizon: horizon (1 + min(9, remaining fraction of the loss gap)))")
#: the objective's unit, printed after its value by ``optsched solve`` (simulated seconds to the target loss
#: (censored runs: a multiple of the horizon))
OBJECTIVE_UNIT = "s"
SOLUTION_SCHEMA = ('{"scheme": "adsp", "commits": [C per check period]} | {"scheme": "bsp"} | '
                   '{"scheme": "ssp", "staleness": s} | {"scheme": "fixed", "local_steps": tau}')


@dataclass(frozen=True)
class CommitRateInstance(Instance):
    """Heterogeneous workers, ADSP's commit-rule constants and the simulated training task."""

    problem = "commit-rate"
    step_times: tuple[float, ...]
    commit_overheads: tuple[float, ...]
    period: float
    min_interval: float
    max_commits: int
    model: Literal["least-squares", "mlp"]
    features: int
    samples: int
    hidden: int
    noise: float
    data_seed: int
    local_lr: float
    batch: int
    momentum: float
    server_lr: float
    target_loss: float
    horizon: float
    name: str = ""
    provenance: str = ""

    def validate(self) -> None:
        n = len(self.step_times)
        self.require(n >= 1, "step_times", "must list at least one worker")
        self.require(len(self.commit_overheads) == n, "commit_overheads", f"must have {n} entries (one per worker)",
                     len(self.commit_overheads))
        self.require_nonnegative("step_times", self.step_times, strict=True)
        self.require_nonnegative("commit_overheads", self.commit_overheads)
        for f in ("period", "min_interval", "noise", "local_lr", "server_lr", "horizon"):
            v = getattr(self, f)
            strict = f not in ("noise",)
            self.require(math.isfinite(v) and (v > 0 if strict else v >= 0), f,
                         "must be finite and > 0" if strict else "must be finite and >= 0", v)
        self.require(self.min_interval <= self.period, "min_interval", "must be <= period", self.min_interval)
        # [ours] exhaustive simulates every C in 1..max_commits (it stops at the time limit)
        self.require(1 <= self.max_commits <= 10_000, "max_commits", "must be in 1..10000", self.max_commits)
        self.require(self.features >= 1, "features", "must be >= 1", self.features)
        self.require(self.samples >= self.batch >= 1, "batch", "must be in 1..samples", self.batch)
        self.require(self.hidden >= 1, "hidden", "must be >= 1", self.hidden)
        self.require(0 <= self.momentum < 1, "momentum", "must be in [0, 1)", self.momentum)
        self.require(math.isfinite(self.target_loss) and self.target_loss >= 0, "target_loss",
                     "must be finite and >= 0", self.target_loss)

    @property
    def num_workers(self) -> int:
        return len(self.step_times)


def parse_scheme(instance: CommitRateInstance, solution) -> tuple[dict | None, list[str]]:
    """The scheme record, or the schema violations."""
    if not isinstance(solution, dict) or "scheme" not in solution:
        return None, ['solution must be an object with "scheme"']
    kind = solution["scheme"]
    if not isinstance(kind, str):
        return None, [f"scheme must be a string, got {kind!r}"]
    want = {"adsp": {"scheme", "commits"}, "bsp": {"scheme"}, "ssp": {"scheme", "staleness"},
            "fixed": {"scheme", "local_steps"}}
    if kind not in want:
        return None, [f"scheme must be one of {sorted(want)}, got {kind!r}"]
    if set(solution) != want[kind]:
        return None, [f"scheme {kind!r} takes exactly the keys {sorted(want[kind])}"]

    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "adsp":
        cs = solution["commits"]
        if not isinstance(cs, list) or not cs or not all(is_int(c) for c in cs):
            return None, ["commits must be a non-empty list of integers"]
        bad = [c for c in cs if not 1 <= c <= instance.max_commits]
        if bad:
            return None, [f"commits per period must be in 1..{instance.max_commits} (bandwidth cap), got {bad[0]}"]
    if kind == "ssp" and not (is_int(solution["staleness"]) and solution["staleness"] >= 0):
        return None, ["staleness must be an integer >= 0"]
    if kind == "fixed" and not (is_int(solution["local_steps"]) and solution["local_steps"] >= 1):
        return None, ["local_steps must be an integer >= 1"]
    return dict(solution), []


def check(instance: CommitRateInstance, solution) -> CheckReport:
    """Validate the scheme and re-run the simulation; the objective is its time to target."""
    from .simulate import simulate

    scheme, errors = parse_scheme(instance, solution)
    if errors:
        return CheckReport(False, None, errors)
    run = simulate(instance, scheme)
    return CheckReport(True, run.objective, [], {"reached": run.reached, "final_loss": run.final_loss,
                                                 "updates": run.updates})
