"""The learned multi-agent scheduler [reconstruction of Zhao & Wu, arXiv 2112.13354; details ours].

The paper (abstract) describes several schedulers that learn cooperatively, a hierarchical graph
neural network that encodes the data-centre topology and the servers' architecture, and a learned
interference model. optsched's reconstruction, stated in full (``optsched/problems/interference_online/README.md``,
"The learned multi-agent scheduler"):

* **topology** [ours]: GPU -> server -> rack; a rack is ``servers_per_group`` consecutive servers,
  and each rack is one scheduling agent. GPUs of a server are slots filled in placement order by
  the jobs running there (the simulator counts GPUs per server; the slot order is ours).
* **hierarchical encoder** [reconstruction]: per GPU slot ``x_g`` = (occupied, log remaining
  isolated seconds of its job, the job's mean interference row, its GPU count); message GPU ->
  server ``m_s = mean_g relu(x_g W_g + b_g)``; server embedding ``h_s = relu([m_s, x_s] W_s + b_s)``
  (``x_s``: free share, residents, ...); rack embedding ``h_r = relu([mean_s h_s, max_s h_s] W_r +
  b_r)``; cluster embedding ``h_c = mean_r h_r``. The same weights serve every cluster size.
* **agents** [reconstruction]: one per rack with shared parameters (the rack's embedding is its
  own context); at each decision every agent scores the (waiting job, placement) candidates
  whose first server lies in its rack -- the job is one of the first ``WINDOW`` waiting jobs in
  arrival order, the placement a single server with room, or, when none has room, the fewest
  servers of one rack, or one cluster-wide split. Score
  ``relu([x_job, x_place, mean_{s in p} h_s, h_rack, h_c] W_1 + b_1) w_2 + b_2 + [x_job, x_place] w_lin``.
  The joint action is the argmax (evaluation) or a draw from the softmax over every agent's
  candidates (training): the agents compete for the decision and share one reward. Decisions
  repeat within an event until no waiting job fits (work-conserving, non-preemptive).
* **cooperation** [reconstruction]: a shared (centralized) critic ``V(h_c, queue summary)``
  estimates the return of the joint state; every agent's advantage is taken against it
  (centralized training, decentralized scoring).
* **interference** [ours]: the placement features read the instance's ``beta`` table (the
  problem gives it; ``optsched.workloads.interference`` holds the learned model of unseen pairs):
  the slowdown the job would suffer, the slowdown it would cause (weighted by the co-runners'
  remaining isolated seconds), and least-interference's marginal cost ``log(1 + suffer + gamma
  spread + cause / w)``.

Inference runs in numpy from stored weights (``weights/*.json``); training
(:mod:`.marl_train`) needs jax. The forward pass is written once for both array modules.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from .instance import OnlineInstance
from .policies import InterferencePolicy

__all__ = ["WINDOW", "FG", "FS", "FJ", "FP", "FQ", "H", "HS", "MarlPolicy", "init_params", "load_weights",
           "save_weights", "WEIGHTS_DIR", "default_weights_path", "scores", "encode", "value", "FEATURE_NAMES"]

WINDOW = 32          # waiting jobs (arrival order) the agents choose among per decision [ours]
FG, FS, FR, FJ, FP, FQ = 4, 4, 0, 6, 8, 4
H, HS = 16, 32
#: the placement features, in order (the index of "suffer" is used by the sign test)
FEATURE_NAMES = {
    "job": ("log iso", "gpus/32", "log wait", "queue position", "iso rank in window", "log iso / median"),
    "place": ("suffer", "log(1+cause/w)", "servers-1", "racks-1", "leftover free", "rack free after",
              "co-runners", "li cost"),
}
WEIGHTS_DIR = Path(__file__).with_name("weights")
PARAM_SHAPES = {
    "Wg": (FG, H), "bg": (H,), "Ws": (H + FS, H), "bs": (H,), "Wr": (2 * H, H), "br": (H,),
    "W1": (FJ + FP + 3 * H, HS), "b1": (HS,), "w2": (HS,), "b2": (), "lin": (FJ + FP,),
    "V1": (H + FQ, HS), "c1": (HS,), "v2": (HS,), "c2": (),
}


def default_weights_path(seed: int = 0) -> Path:
    return WEIGHTS_DIR / f"marl-seed{seed}.json"


def init_params(seed: int) -> dict:
    """Untrained parameters (Glorot-scaled normal draws; biases and the linear skip at zero)."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, shape in PARAM_SHAPES.items():
        if k.startswith(("b", "c")) or k == "lin":
            out[k] = np.zeros(shape)
        else:
            fan = shape[0] + (shape[1] if len(shape) > 1 else 1)
            out[k] = rng.standard_normal(shape) * math.sqrt(2.0 / fan)
    return out


# ---------------------------------------------------------------- forward pass (numpy or jax)
def _relu(xp, x):
    return xp.maximum(x, 0.0)


def encode(P, gpu_x, gpu_m, srv_x, spr: int, xp=np):
    """Hierarchical encoder. ``gpu_x (..., S, G, FG)``, ``gpu_m (..., S, G)``, ``srv_x (..., S, FS)``
    with ``S`` a multiple of ``spr`` (padding servers have an all-zero mask and features).
    Returns ``(h_s (..., S, H), h_r (..., R, H), h_c (..., H))``."""
    phi = _relu(xp, gpu_x @ P["Wg"] + P["bg"]) * gpu_m[..., None]
    cnt = xp.maximum(gpu_m.sum(-1), 1.0)[..., None]
    m = phi.sum(-2) / cnt
    hs = _relu(xp, xp.concatenate([m, srv_x], -1) @ P["Ws"] + P["bs"])
    smask = (gpu_m.sum(-1) > 0)[..., None]
    hs = hs * smask
    lead = hs.shape[:-2]
    S = hs.shape[-2]
    R = S // spr
    g = hs.reshape(lead + (R, spr, H))
    gm = smask.reshape(lead + (R, spr, 1))
    mean = g.sum(-2) / xp.maximum(gm.sum(-2), 1.0)
    mx = g.max(-2)
    hr = _relu(xp, xp.concatenate([mean, mx], -1) @ P["Wr"] + P["br"])
    rmask = (gm.sum(-2) > 0)
    hc = (hr * rmask).sum(-2) / xp.maximum(rmask.sum(-2), 1.0)
    return hs, hr, hc


def scores(P, jobf, placef, hsel, hrack, hc, xp=np):
    """Candidate scores from features and the embeddings gathered per candidate."""
    x = xp.concatenate([jobf, placef, hsel, hrack, hc], -1)
    h = _relu(xp, x @ P["W1"] + P["b1"])
    return h @ P["w2"] + P["b2"] + xp.concatenate([jobf, placef], -1) @ P["lin"]


def value(P, hc, qf, xp=np):
    h = _relu(xp, xp.concatenate([hc, qf], -1) @ P["V1"] + P["c1"])
    return h @ P["v2"] + P["c2"]


# ---------------------------------------------------------------- the policy (numpy)
class _State:
    """Per-event arrays: free GPUs, resident type counts and weights per server, GPU slots."""

    def __init__(self, pol, sim):
        inst = pol.inst
        self.S, self.spr = inst.num_servers, inst.servers_per_group
        self.R = -(-self.S // self.spr)
        self.Sp = self.R * self.spr
        self.G = max(inst.gpus_per_server)
        self.cap = np.zeros(self.Sp)
        self.cap[:self.S] = inst.gpus_per_server
        self.free = np.zeros(self.Sp)
        self.free[:self.S] = sim.free_gpus()
        T = len(inst.job_types)
        self.N = np.zeros((self.Sp, T))
        self.W = np.zeros((self.Sp, T))
        self.gpu_x = np.zeros((self.Sp, self.G, FG))
        self.gpu_m = np.zeros((self.Sp, self.G))
        for s in range(self.S):
            self.gpu_m[s, :inst.gpus_per_server[s]] = 1.0
        self.fill = np.zeros(self.Sp, int)
        self.mean_beta = pol.mean_beta
        for j in sim.running():
            job = pol.by_id[j.id]
            w = sim.remaining_work(j.id) * job.step_time
            self.add(job, pol.placement[j.id], w)

    def add(self, job, p, w):
        t = job.type
        row = (1.0, math.log1p(w) / 12.0, self.mean_beta[t], job.gpus / 32.0)
        for s, g in p.items():
            self.N[s, t] += 1
            self.W[s, t] += w
            k = self.fill[s]
            self.gpu_x[s, k:k + g] = row
            self.fill[s] = k + g

    def srv_x(self):
        out = np.zeros((self.Sp, FS))
        c = np.maximum(self.cap, 1.0)
        out[:, 0] = self.free / c
        out[:, 1] = self.N.sum(1) / 4.0
        out[:, 2] = (self.free == self.cap) * (self.cap > 0)
        out[:, 3] = self.cap / 8.0
        return out


class MarlPolicy(InterferencePolicy):
    """The agents' placement and ordering (``weights``: dict of numpy arrays, :data:`PARAM_SHAPES`).

    ``sample=True`` draws from the joint softmax with ``rng`` (training) and records every
    decision in ``self.trace`` for the learner; otherwise the argmax (deterministic).
    """

    def __init__(self, instance: OnlineInstance, weights: dict, sample: bool = False, rng=None, record: bool = False):
        super().__init__(instance)
        self.P = {k: np.asarray(weights[k], float) for k in PARAM_SHAPES}
        self.sample, self.rng, self.record = sample, rng, record or sample
        self.trace: list[dict] = []
        self.decisions = 0
        self.decide_seconds = 0.0   # wall time inside choose(): features, encoder, scoring
        beta = np.asarray(instance.beta, float)
        self.beta = beta
        forb = np.asarray(instance.forbidden, bool)
        self.clash = forb | forb.T
        self.mean_beta = beta.mean(1)
        self.agents = instance.num_groups
        self.rack_of = np.arange(instance.num_servers) // instance.servers_per_group

    def choose(self, sim, waiting, now):
        t0 = time.perf_counter()
        try:
            return self._choose(sim, waiting, now)
        finally:
            self.decide_seconds += time.perf_counter() - t0

    def _choose(self, sim, waiting, now):
        st = _State(self, sim)
        window = list(waiting[:WINDOW])
        out = []
        while window:
            cands = self._candidates(st, window, now)
            if cands is None:
                break
            jobf, placef, members, racks, jidx = cands
            hs, hr, hc = encode(self.P, st.gpu_x, st.gpu_m, st.srv_x(), st.spr)
            hsel = np.empty((len(members), H))
            ints = np.array([isinstance(m, int) for m in members])
            if ints.all():
                hsel[:] = hs[np.array(members)]
            else:
                for c, m in enumerate(members):
                    hsel[c] = hs[m] if isinstance(m, int) else hs[list(m)].mean(0)
            sc = scores(self.P, jobf, placef, hsel, hr[racks], np.broadcast_to(hc, (len(members), H)))
            if self.sample:
                z = sc - sc.max()
                pr = np.exp(z)
                pr /= pr.sum()
                k = int(self.rng.choice(len(pr), p=pr))
            else:
                k = int(np.argmax(sc))
            if self.record:
                qf = self._queue_features(st, window, now)
                self.trace.append(dict(time=now, gpu_x=st.gpu_x.copy(), gpu_m=st.gpu_m.copy(), srv_x=st.srv_x(),
                                       jobf=jobf, placef=placef,
                                       members=[{m: 0} if isinstance(m, int) else dict(m) for m in members],
                                       racks=racks, chosen=k, qf=qf,
                                       teacher=int(np.lexsort((placef[:, 7], jobf[:, 0]))[0])))
            job = window.pop(jidx[k])
            p = {members[k]: job.gpus} if isinstance(members[k], int) else members[k]
            st.add(job, p, job.isolated_time)
            for s, g in p.items():
                st.free[s] -= g
            out.append((job.id, dict(p)))
            self.decisions += 1
        return out

    def _queue_features(self, st, window, now):
        iso = np.array([j.isolated_time for j in window]) if window else np.zeros(1)
        return np.array([len(window) / WINDOW, float(np.mean(np.log1p(iso))) / 12.0,
                         sum(j.gpus for j in window) / max(1.0, st.cap.sum()), st.free.sum() / max(1.0, st.cap.sum())])

    def _candidates(self, st, window, now):
        """Every (job, placement) candidate: job features, placement features, the placements
        (an int server for a single-server placement, else a dict), the rack of the first
        server, and the job's index in ``window``. Vectorized over servers for single servers."""
        iso = np.array([j.isolated_time for j in window])
        order = np.argsort(np.argsort(iso, kind="stable"), kind="stable")
        med = float(np.median(iso))
        gamma = self.inst.spread_penalty
        free, spr = st.free, st.spr
        rack_free = free.reshape(st.R, spr).sum(1)
        rack_cap = np.maximum(st.cap.reshape(st.R, spr).sum(1), 1.0)
        mates_s = st.N.sum(1)
        clash_cnt = st.N @ self.clash.T.astype(float)   # (S, T): residents clashing with each type
        suffer_all = st.N @ self.beta.T                   # (S, T): sum beta[t][resident type]
        cause_all = st.W @ self.beta                      # (S, T): sum w_r beta[t_r][t]
        J, Pf, M, Rk, Ji = [], [], [], [], []
        for q, job in enumerate(window):
            t, g, w = job.type, job.gpus, job.isolated_time
            allowed = (clash_cnt[:, t] == 0) & (free > 0)
            jf = [(math.log1p(w) - 9.0) / 2.0, g / 32.0, math.log1p(max(0.0, now - job.arrival)) / 12.0, q / WINDOW,
                  order[q] / WINDOW, math.log(w / med) / 2.0]
            single = np.flatnonzero(allowed & (free >= g))
            if len(single):
                suffer = suffer_all[single, t]
                cause = cause_all[single, t] / max(w, 1e-9)
                rk = single // spr
                pf = np.empty((len(single), FP))
                pf[:, 0] = suffer
                pf[:, 1] = np.log1p(cause)
                pf[:, 2] = 0.0
                pf[:, 3] = 0.0
                pf[:, 4] = (free[single] - g) / 8.0
                pf[:, 5] = (rack_free[rk] - g) / rack_cap[rk]
                pf[:, 6] = mates_s[single] / 4.0
                pf[:, 7] = np.log1p(suffer + cause)
                J.append(np.broadcast_to(np.array(jf), (len(single), FJ)))
                Pf.append(pf)
                M.extend(int(s) for s in single)
                Rk.append(rk)
                Ji.extend([q] * len(single))
                continue
            plist = []
            for r in range(st.R):
                ss = [s for s in range(r * spr, (r + 1) * spr) if allowed[s]]
                if sum(free[s] for s in ss) >= g:
                    plist.append(_fill(ss, free, g))
            if not plist:
                ss = list(np.flatnonzero(allowed))
                if sum(free[s] for s in ss) >= g:
                    plist.append(_fill(ss, free, g))
            for p in plist:
                ss = list(p)
                suffer = float(suffer_all[ss, t].sum())
                cause = float(cause_all[ss, t].sum()) / max(w, 1e-9)
                r0 = min(ss) // spr
                rack_after = (rack_free[r0] - sum(v for s, v in p.items() if s // spr == r0)) / rack_cap[r0]
                left = (sum(free[s] for s in ss) - g) / (8.0 * len(ss))
                J.append(np.array([jf]))
                Pf.append(np.array([[suffer, math.log1p(cause), len(ss) - 1.0, len({s // spr for s in ss}) - 1.0,
                                     left, rack_after, float(mates_s[ss].sum()) / 4.0,
                                     math.log1p(suffer + gamma * (len(ss) - 1) + cause)]]))
                M.append(p)
                Rk.append(np.array([r0]))
                Ji.append(q)
        if not M:
            return None
        return np.concatenate(J), np.concatenate(Pf), M, np.concatenate(Rk), Ji


def _fill(servers, free, g):
    p, need = {}, g
    for s in sorted(servers, key=lambda s: (-free[s], s)):
        take = int(min(need, free[s]))
        if take > 0:
            p[int(s)] = take
            need -= take
        if need == 0:
            break
    return p


def save_weights(weights: dict, path) -> None:
    data = {k: (np.asarray(v).tolist() if k in PARAM_SHAPES else v) for k, v in weights.items()}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, separators=(",", ":")) + "\n")


def load_weights(path=None, field: str = "weights") -> dict:
    """The weights JSON at ``path`` (default: training seed 0's); a missing, unreadable or
    malformed file is an :class:`InvalidInstanceError` naming ``field``."""
    from optsched.core.errors import InvalidInstanceError, InvalidOptionError

    path = Path(path or default_weights_path(0))
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InvalidOptionError("interference-online", field, f"cannot read weights file {path.name}: "
                                   f"{type(exc).__name__}", str(path)) from None
    for k, shape in PARAM_SHAPES.items():
        try:
            data[k] = np.asarray(data[k], float).reshape(shape)
        except (KeyError, TypeError, ValueError):
            raise InvalidOptionError("interference-online", field, f"weights file {path.name} has no "
                                       f"{k} of shape {shape}", str(path)) from None
        if not np.isfinite(data[k]).all():
            raise InvalidOptionError("interference-online", field, f"weights file {path.name}: {k} "
                                       "is not finite", str(path))
    return data
