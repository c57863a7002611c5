"""Deterministic simulation of parameter-server training under a commit scheme.

Models [ours]: a synthetic regression set of ``samples`` rows (seeded by ``data_seed``),
shared round-robin among the workers. ``least-squares``: loss ``0.5 mean (x.w - y)^2`` (convex);
``mlp``: ``x -> v . tanh(W x)`` with ``hidden`` units, targets from a random teacher of the same
shape plus noise (non-convex). Local SGD on mini-batches drawn from the worker's shard by the
worker's own seeded generator.

Timeline: event-driven; a worker that starts at ``T`` pulls the PS weights, computes its local
steps (``t_i`` seconds each) and commits at ``T + steps t_i + o_i``; the PS applies commits in
time order (ties by worker index). BSP: rounds of one step each, barrier at the slowest
``t_i + o_i``, all commits applied at the barrier. SSP(s): one step per commit, a worker whose
commit count leads the slowest by more than ``s`` waits. Fixed: every worker commits every
``local_steps`` steps. ADSP: ``p_i = max(min_interval, period / C_k - o_i)``, committing at the first step that
reaches ``p_i`` ([code: joapolarbear/adsp, ``cifar10/strain.py``]).

>>> from optsched.problems.commit_rate import generate
>>> inst = generate(0, workers=4, heterogeneity=4.0)
>>> run = simulate(inst, {"scheme": "adsp", "commits": [2]})
>>> run.reached, run.objective <= inst.horizon
(True, True)
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from optsched.core.rng import make_rng

__all__ = ["simulate", "Run", "Task", "make_task", "adsp_interval", "local_steps"]


@dataclass
class Run:
    objective: float
    reached: bool
    final_loss: float
    initial_loss: float
    updates: int
    times: list = field(default_factory=list)
    losses: list = field(default_factory=list)


class Task:
    """The training task: data, loss, gradients (flat parameter vectors)."""

    def __init__(self, instance):
        rng = make_rng(instance.data_seed, "commit-rate-data")
        d, m, h = instance.features, instance.samples, instance.hidden
        self.X = rng.normal(size=(m, d)) / math.sqrt(d)
        self.kind = instance.model
        self.d, self.h = d, h
        if self.kind == "least-squares":
            w_true = rng.normal(size=d)
            self.y = self.X @ w_true + instance.noise * rng.normal(size=m)
            self.w0 = np.zeros(d)
        else:
            W = rng.normal(size=(h, d)) * 1.5
            v = rng.normal(size=h)
            self.y = np.tanh(self.X @ W.T) @ v + instance.noise * rng.normal(size=m)
            init = make_rng(instance.data_seed, "commit-rate-init")
            self.w0 = np.concatenate([(init.normal(size=(h, d)) * 0.5).ravel(), init.normal(size=h) * 0.1])

    def loss(self, w) -> float:
        r = self.predict(w, self.X) - self.y
        return 0.5 * float(r @ r) / len(self.y)

    def predict(self, w, X):
        if self.kind == "least-squares":
            return X @ w
        W = w[:self.h * self.d].reshape(self.h, self.d)
        return np.tanh(X @ W.T) @ w[self.h * self.d:]

    def grad(self, w, idx):
        X, y = self.X[idx], self.y[idx]
        if self.kind == "least-squares":
            return X.T @ (X @ w - y) / len(idx)
        W = w[:self.h * self.d].reshape(self.h, self.d)
        v = w[self.h * self.d:]
        a = np.tanh(X @ W.T)
        r = a @ v - y
        gv = a.T @ r / len(idx)
        gW = ((r[:, None] * v[None, :]) * (1 - a * a)).T @ X / len(idx)
        return np.concatenate([gW.ravel(), gv])


def make_task(instance) -> Task:
    return Task(instance)


def adsp_interval(instance, worker: int, commits: int) -> float:
    """ADSP's compute time between commits: ``max(min_interval, period / C - o_i)``."""
    return max(instance.min_interval, instance.period / commits - instance.commit_overheads[worker])


def local_steps(instance, worker: int, commits: int) -> int:
    """Local steps per commit: the worker checks the elapsed time after each step and commits at
    the first step that reaches the interval [code: ``STRAIN_WK.run``], so ``ceil(p_i / t_i)``."""
    ratio = adsp_interval(instance, worker, commits) / instance.step_times[worker]
    return max(1, math.ceil(ratio - 1e-9))


def _censored(instance, l0, last) -> float:
    gap = l0 - instance.target_loss
    frac = (last - instance.target_loss) / gap if math.isfinite(last) and gap > 0 else 9.0
    return instance.horizon * (1.0 + min(9.0, max(0.0, frac)))


def simulate(instance, scheme: dict, until: float | None = None, task: Task | None = None,
             record: bool = False, check=None) -> Run:
    """Simulate ``scheme`` up to the target loss, ``horizon`` or ``until`` (for online search).

    ``check`` (a method's ``ctx.check_time``) is called before every round or commit, so a method
    stops at its time limit inside one simulation (it raises
    :class:`~optsched.core.errors.TimeLimitReached`).

    Complexity: O(total local steps x batch x parameters + updates x samples x parameters).
    """
    task = task or Task(instance)
    n = instance.num_workers
    stop = instance.horizon if until is None else min(until, instance.horizon)
    shards = [np.arange(i, instance.samples, n) for i in range(n)]
    rngs = [make_rng(instance.data_seed, "commit-rate-worker", i) for i in range(n)]
    w = task.w0.copy()
    vel = np.zeros_like(w)
    l0 = task.loss(w)
    run = Run(objective=0.0, reached=l0 <= instance.target_loss, final_loss=l0, initial_loss=l0, updates=0)
    if record:
        run.times.append(0.0), run.losses.append(l0)
    if run.reached:
        return run
    kind = scheme["scheme"]

    def local(i, start_w, steps):
        wl = start_w.copy()
        shard = shards[i]
        for _ in range(steps):
            idx = shard[rngs[i].integers(len(shard), size=min(instance.batch, len(shard)))]
            wl -= instance.local_lr * task.grad(wl, idx)
        return wl - start_w

    def apply(delta, t):
        nonlocal w, vel
        vel = instance.momentum * vel + instance.server_lr * delta
        w = w + vel
        run.updates += 1
        loss = task.loss(w)
        run.final_loss = loss
        if record:
            run.times.append(t), run.losses.append(loss)
        if loss <= instance.target_loss:
            run.reached, run.objective = True, t
            return True
        return not math.isfinite(loss)

    if kind == "bsp":
        t = 0.0
        rnd = max(instance.step_times[i] + instance.commit_overheads[i] for i in range(n))
        while t + rnd <= stop:
            if check is not None:
                check()
            t += rnd
            deltas = [local(i, w, 1) for i in range(n)]
            for dlt in deltas:
                if apply(dlt, t):
                    break
            if run.reached or not math.isfinite(run.final_loss):
                break
    else:
        if kind == "adsp":
            cs = scheme["commits"]

            def steps_for(i, t):
                return local_steps(instance, i, cs[min(int(t // instance.period), len(cs) - 1)])
        elif kind == "fixed":
            def steps_for(i, t):
                return scheme["local_steps"]
        else:  # ssp: one step per commit
            def steps_for(i, t):
                return 1
        stale = scheme.get("staleness")
        clock = [0] * n
        heap, waiting = [], []

        def launch(i, t):
            k = steps_for(i, t)
            heapq.heappush(heap, (t + k * instance.step_times[i] + instance.commit_overheads[i], i, k, w.copy()))

        for i in range(n):
            launch(i, 0.0)
        while heap:
            if check is not None:
                check()
            t, i, k, start_w = heapq.heappop(heap)
            if t > stop:
                break
            if apply(local(i, start_w, k), t):
                break
            clock[i] += 1
            if stale is not None:
                slow = min(clock)
                ready = [j for j in waiting if clock[j] - slow <= stale]
                waiting = [j for j in waiting if clock[j] - slow > stale]
                for j in sorted(ready):
                    launch(j, t)
                if clock[i] - slow > stale:
                    waiting.append(i)
                    continue
            launch(i, t)
    if not run.reached:
        run.objective = _censored(instance, l0, run.final_loss)
    return run
