"""The learned multi-agent placement policy [reconstruction of Zhao & Wu, arXiv 2112.13354].

The paper (abstract only) has several schedulers that cooperatively learn placement with a
learned interference model for rewards, and hierarchical GNNs over the topology. optsched's
reconstruction, smaller and stated here in full:

* **agents**: one per server group (``servers_per_group`` consecutive servers); agent ``i``
  owns a two-layer MLP (``FEATURES -> HIDDEN -> 1``, tanh) that scores the candidate placements
  whose first server lies in its group (candidates: every single server with room, or one split,
  as in :func:`optsched.workloads.colocation.candidates`);
* **joint action**: the waiting jobs are taken in arrival order (with backfilling); the job goes
  to a candidate drawn from the softmax over every agent's scores (training) or to the best one
  (evaluation); the agents thus compete for the job and share one reward;
* **features** of (job, candidate): log isolated run time, GPU share of a server, servers used
  minus one, free GPUs left on the candidate's servers, the interference the job would suffer
  (sum of ``beta`` with the co-runners), the slowdown it would cause (weighted by the co-runners'
  remaining time, relative to its own), the number of co-runners, the free share of the agent's
  group;
* **training**: REINFORCE with a per-trace baseline: ``rollouts`` sampled runs of the simulator on
  one generated stream, advantage = standardized negative average JCT, Adam; seeded
  (``torch.manual_seed`` and the stream seeds), CPU, one thread.

A cluster with more groups than trained agents maps group ``g`` to agent ``g mod agents``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from optsched.workloads.colocation import candidates

from .generate import PRESETS, generate
from .instance import OnlineInstance
from .policies import InterferencePolicy, simulate

__all__ = ["FEATURES", "HIDDEN", "MarlPolicy", "train", "load_weights", "save_weights", "WEIGHTS_PATH"]

FEATURES = 8
HIDDEN = 16
#: weights produced by ``python -m optsched.problems.interference_online.train`` (seeded)
WEIGHTS_PATH = Path(__file__).with_name("marl_weights.json")


def _features(snap, j, p, free, placed, group_free) -> list[float]:
    w = snap.job_weight[j]
    tj = snap.job_types[j]
    suffer, cause, mates = 0.0, 0.0, 0
    for r, servers in enumerate(snap.res_servers):
        if set(p) & set(servers):
            suffer += snap.beta[tj][snap.res_types[r]]
            cause += snap.res_weight[r] * snap.beta[snap.res_types[r]][tj]
            mates += 1
    for k, pk in placed.items():
        if pk is not None and set(p) & set(pk):
            suffer += snap.beta[tj][snap.job_types[k]]
            cause += snap.job_weight[k] * snap.beta[snap.job_types[k]][tj]
            mates += 1
    left = sum(free[s] - p[s] for s in p) / max(1, len(p))
    return [math.log1p(w) / 12.0, snap.job_gpus[j] / 8.0, len(p) - 1.0, left / 8.0, suffer,
            math.log1p(cause / max(w, 1e-9)), mates / 4.0, group_free]


class MarlPolicy(InterferencePolicy):
    """Placement by the agents' networks (``weights``: dict of numpy arrays ``W1 b1 W2 b2``)."""

    def __init__(self, instance: OnlineInstance, weights: dict, sample: bool = False, rng=None, torch_params=None):
        super().__init__(instance)
        self.w = weights
        self.agents = int(weights["W1"].shape[0])
        self.sample, self.rng, self.torch_params = sample, rng, torch_params
        self.logps = []
        self.decisions = 0

    def _scores(self, feats: np.ndarray, agents: np.ndarray):
        if self.torch_params is not None:
            import torch

            W1, b1, W2, b2 = self.torch_params
            x = torch.as_tensor(feats, dtype=torch.float32)
            a = torch.as_tensor(agents)
            h = torch.tanh(torch.einsum("cf,cfh->ch", x, W1[a]) + b1[a])
            return (h * W2[a]).sum(1) + b2[a]
        h = np.tanh(np.einsum("cf,cfh->ch", feats, self.w["W1"][agents]) + self.w["b1"][agents])
        return (h * self.w["W2"][agents]).sum(1) + self.w["b2"][agents]

    def choose(self, sim, waiting, now):
        snap = self.snapshot(sim, waiting, reject_cost=float("inf"))
        free, placed, out = list(snap.free), {}, []
        spg, G = self.inst.servers_per_group, self.inst.num_groups
        for j, job in enumerate(waiting):
            cands = candidates(snap, j, free, placed)
            if not cands:
                continue
            gfree = []
            for g in range(G):
                servers = range(g * spg, min((g + 1) * spg, snap.num_servers))
                gfree.append(sum(free[s] for s in servers) / max(1, sum(self.inst.gpus_per_server[s] for s in servers)))
            feats = np.array([_features(snap, j, p, free, placed, gfree[min(p) // spg]) for p in cands], float)
            agents = np.array([(min(p) // spg) % self.agents for p in cands])
            scores = self._scores(feats, agents)
            if self.torch_params is not None:
                import torch

                logp = torch.log_softmax(scores, 0)
                k = int(torch.multinomial(logp.exp().detach(), 1, generator=self.rng).item()) if self.sample \
                    else int(torch.argmax(logp).item())
                self.logps.append(logp[k])
            else:
                k = int(np.argmax(scores))
            p = cands[k]
            self.decisions += 1
            placed[j] = p
            for s, g in p.items():
                free[s] -= g
            out.append((job.id, p))
        return out


def _init(agents: int, seed: int):
    import torch

    gen = torch.Generator().manual_seed(seed)
    W1 = (torch.randn(agents, FEATURES, HIDDEN, generator=gen) * 0.3).requires_grad_()
    b1 = torch.zeros(agents, HIDDEN, requires_grad=True)
    W2 = (torch.randn(agents, HIDDEN, generator=gen) * 0.3).requires_grad_()
    b2 = torch.zeros(agents, requires_grad=True)
    return [W1, b1, W2, b2]


def _to_numpy(params) -> dict:
    return {k: p.detach().numpy().astype(float).copy() for k, p in zip(("W1", "b1", "W2", "b2"), params)}


def train(seed: int = 0, iterations: int = 60, rollouts: int = 4, agents: int = 4, lr: float = 0.02,
          table: tuple | None = None, preset: str = "train", progress=None) -> dict:
    """Train the agents by REINFORCE on generated streams; returns weights (numpy) and a history.

    Deterministic for a seed on one thread. ``table = (names, beta, forbidden)`` chooses the
    interference table of the generated streams (Gavel's measured one in the committed weights).
    """
    import torch

    torch.set_num_threads(1)
    params = _init(agents, seed)
    opt = torch.optim.Adam(params, lr=lr)
    gen = torch.Generator().manual_seed(seed + 1)
    cfg = dict(PRESETS[preset])
    history = []
    for it in range(iterations):
        inst = generate(seed * 100003 + it, table=table, **cfg)
        jcts, logps = [], []
        for _ in range(rollouts):
            pol = MarlPolicy(inst, _to_numpy(params), sample=True, rng=gen, torch_params=params)
            res = simulate(inst, pol)
            jcts.append(np.mean([res.completion[j.id] - j.arrival for j in inst.jobs]))
            logps.append(torch.stack(pol.logps).sum() if pol.logps else torch.zeros(()))
        jcts = np.array(jcts)
        adv = (jcts.mean() - jcts) / (jcts.std() + 1e-9 * max(1.0, jcts.mean()))
        loss = -sum(float(a) * lp for a, lp in zip(adv, logps)) / rollouts
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(float(jcts.mean()))
        if progress:
            progress(it, float(jcts.mean()))
    out = _to_numpy(params)
    out["history"] = history
    out["config"] = {"seed": seed, "iterations": iterations, "rollouts": rollouts, "agents": agents, "lr": lr,
                     "preset": preset, "table": "given" if table is not None else "synthetic"}
    return out


def save_weights(weights: dict, path=WEIGHTS_PATH) -> None:
    data = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in weights.items()}
    Path(path).write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")


def load_weights(path=WEIGHTS_PATH) -> dict:
    data = json.loads(Path(path).read_text())
    for k in ("W1", "b1", "W2", "b2"):
        data[k] = np.asarray(data[k], float)
    return data
