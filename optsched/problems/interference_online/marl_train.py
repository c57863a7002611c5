"""Training of the learned multi-agent scheduler (:mod:`.marl`) in jax [reconstruction; ours in detail].

Two phases, both on rollouts of the numpy policy in the simulator that draw every joint action
from the softmax over all agents' candidates and record each decision's inputs; the learner
recomputes the same forward pass in jax over the whole batch (padded, a segment-wise softmax per
decision) and takes one Adam step per iteration (hand-written Adam; no optimizer library).

1. **Imitation warm start** [ours], the first ``imitation`` iterations: cross-entropy of the
   teacher's choice at every visited state (DAgger-style: the states are the learner's own). The
   teacher is the duration-aware reference ``sjf-least-interference`` expressed on the agents'
   candidates: the shortest isolated job of the window, on its least-interference candidate
   (least ``log(1 + suffer + gamma spread + cause / w)``).
2. **Actor-critic with a shared critic** [reconstruction]: one loss for every agent,

       - mean_d A_d log pi(a_d | s_d) - c_ent mean_d H(pi(. | s_d)) + c_v mean_d (V(s_d) - G_d)^2,

   ``G_d`` = minus the jobs in the system after the decision's instant ``t_d``, discounted in time
   (``tau`` = the stream's mean isolated seconds): ``-sum_j int_{max(a_j, t_d)}^{C_j}
   exp(-(u - t_d) / tau) du / tau``, minus the mean of the same quantity in the other rollouts of
   the stream at ``t_d`` (a leave-one-out, action-independent baseline); ``A_d = G_d - V(s_d)``,
   standardized over the batch. The centralized critic reads the encoder's cluster embedding
   without moving it (only the actor's loss trains the encoder) and a queue summary.

Training streams are generated (:func:`.generate.generate`, preset ``train-rack``: 80 jobs on
8 servers x 8 GPUs in racks of 4, offered load drawn uniformly in [0.6, 1.2] per iteration) over
Gavel's measured v100 interference table when the data directory is available, else a synthetic
table; never a trace. Seeded: parameters, streams, loads and action draws (numpy); jax on CPU in
float32.
"""

from __future__ import annotations

import time

import numpy as np

from .generate import PRESETS, generate
from .marl import FG, FJ, FP, FQ, FS, PARAM_SHAPES, MarlPolicy, init_params
from .policies import simulate

__all__ = ["train", "collate", "returns"]


def discounted_sojourn(arrival: np.ndarray, completion: np.ndarray, t: np.ndarray, tau: float) -> np.ndarray:
    """``sum_j int_{max(a_j, t)}^{C_j} exp(-(u - t) / tau) du / tau`` per instant ``t``: the jobs in
    the system after ``t``, discounted in time (``tau`` seconds)."""
    x = np.maximum(arrival[None, :], t[:, None]) - t[:, None]
    c = completion[None, :] - t[:, None]
    return np.where(c > x, np.exp(-x / tau) - np.exp(-np.maximum(c, 0.0) / tau), 0.0).sum(1)


def returns(inst, completions: list[np.ndarray], traces: list[list[dict]]) -> list[np.ndarray]:
    """``G_d - b(t_d)`` per decision of each rollout (see the module doc): minus the rollout's own
    discounted sojourn after ``t_d``, plus the mean of the other rollouts' at the same instant."""
    a = np.array([j.arrival for j in inst.jobs])
    tau = float(np.mean([j.isolated_time for j in inst.jobs]))
    out = []
    for r, tr in enumerate(traces):
        t = np.array([d["time"] for d in tr])
        own = discounted_sojourn(a, completions[r], t, tau)
        others = [discounted_sojourn(a, completions[q], t, tau) for q in range(len(traces)) if q != r]
        base = np.mean(others, 0) if others else np.zeros_like(own)
        out.append(-(own - base))
    return out


def _bucket(n: int, lo: int = 64) -> int:
    return max(lo, 1 << (max(1, n) - 1).bit_length())


def collate(traces, G) -> dict:
    """Pad the decisions of one cluster shape into arrays (flat candidates with their decision)."""
    D = len(traces)
    Dp = _bucket(D)
    Sp, Gm = traces[0]["gpu_x"].shape[:2]
    N = sum(len(d["jobf"]) for d in traces)
    Np = _bucket(N, 256)
    mmax = max(len(p) for d in traces for p in d["members"])
    M = 1 << (mmax - 1).bit_length()
    b = dict(gpu_x=np.zeros((Dp, Sp, Gm, FG), np.float32), gpu_m=np.zeros((Dp, Sp, Gm), np.float32),
             srv_x=np.zeros((Dp, Sp, FS), np.float32), qf=np.zeros((Dp, FQ), np.float32),
             G=np.zeros(Dp, np.float32), dmask=np.zeros(Dp, np.float32), chosen=np.zeros(Dp, np.int32),
             jobf=np.zeros((Np, FJ), np.float32), placef=np.zeros((Np, FP), np.float32),
             cdec=np.full(Np, Dp - 1, np.int32), crack=np.zeros(Np, np.int32), valid=np.zeros(Np, bool),
             sidx=np.zeros((Np, M), np.int32), swt=np.zeros((Np, M), np.float32))
    k = 0
    for i, d in enumerate(traces):
        b["gpu_x"][i], b["gpu_m"][i], b["srv_x"][i], b["qf"][i] = d["gpu_x"], d["gpu_m"], d["srv_x"], d["qf"]
        b["G"][i], b["dmask"][i] = G[i], 1.0
        n = len(d["jobf"])
        b["jobf"][k:k + n], b["placef"][k:k + n] = d["jobf"], d["placef"]
        b["cdec"][k:k + n], b["crack"][k:k + n], b["valid"][k:k + n] = i, d["racks"], True
        for c, p in enumerate(d["members"]):
            ss = list(p)
            b["sidx"][k + c, :len(ss)] = ss
            b["swt"][k + c, :len(ss)] = 1.0 / len(ss)
        b["chosen"][i] = k + d["chosen"]
        k += n
    return b


def _loss_builder(spr: int, ent_coef: float, vf_coef: float):
    import jax
    import jax.numpy as jnp

    from .marl import encode, scores, value

    def loss(P, b):
        D = b["G"].shape[0]
        hs, hr, hc = encode(P, b["gpu_x"], b["gpu_m"], b["srv_x"], spr, jnp)
        hsel = (hs[b["cdec"][:, None], b["sidx"]] * b["swt"][..., None]).sum(1)
        sc = scores(P, b["jobf"], b["placef"], hsel, hr[b["cdec"], b["crack"]], hc[b["cdec"]], jnp)
        sc = jnp.where(b["valid"], sc, -1e9)
        mx = jax.ops.segment_max(sc, b["cdec"], num_segments=D)
        mx = jnp.where(jnp.isfinite(mx), mx, 0.0)
        z = sc - mx[b["cdec"]]
        ez = jnp.where(b["valid"], jnp.exp(z), 0.0)
        lse = jnp.log(jnp.maximum(jax.ops.segment_sum(ez, b["cdec"], num_segments=D), 1e-30))
        logp_all = z - lse[b["cdec"]]
        logp = logp_all[b["chosen"]]
        p = jnp.where(b["valid"], jnp.exp(logp_all), 0.0)
        ent = -jax.ops.segment_sum(p * jnp.where(b["valid"], logp_all, 0.0), b["cdec"], num_segments=D)
        v = value(P, jax.lax.stop_gradient(hc), b["qf"], jnp)
        m = b["dmask"]
        n = jnp.maximum(m.sum(), 1.0)
        adv = jax.lax.stop_gradient(b["G"] - v)
        mu = (adv * m).sum() / n
        sd = jnp.sqrt((((adv - mu) * m) ** 2).sum() / n) + 1e-6
        adv = (adv - mu) / sd
        pg = -(m * adv * logp).sum() / n
        return pg - ent_coef * (m * ent).sum() / n + vf_coef * (m * (v - b["G"]) ** 2).sum() / n

    def imitation(P, b):
        """Cross-entropy of the teacher's choice (``chosen`` holds the teacher's index)."""
        D = b["G"].shape[0]
        hs, hr, hc = encode(P, b["gpu_x"], b["gpu_m"], b["srv_x"], spr, jnp)
        hsel = (hs[b["cdec"][:, None], b["sidx"]] * b["swt"][..., None]).sum(1)
        sc = scores(P, b["jobf"], b["placef"], hsel, hr[b["cdec"], b["crack"]], hc[b["cdec"]], jnp)
        sc = jnp.where(b["valid"], sc, -1e9)
        mx = jax.ops.segment_max(sc, b["cdec"], num_segments=D)
        mx = jnp.where(jnp.isfinite(mx), mx, 0.0)
        ez = jnp.where(b["valid"], jnp.exp(sc - mx[b["cdec"]]), 0.0)
        lse = jnp.log(jnp.maximum(jax.ops.segment_sum(ez, b["cdec"], num_segments=D), 1e-30)) + mx
        m = b["dmask"]
        v = value(P, jax.lax.stop_gradient(hc), b["qf"], jnp)
        return -(m * (sc[b["chosen"]] - lse)).sum() / jnp.maximum(m.sum(), 1.0) + 0.0 * v.sum()

    return jax.jit(jax.value_and_grad(loss)), jax.jit(jax.value_and_grad(imitation))


def train(seed: int = 0, iterations: int = 120, rollouts: int = 6, lr: float = 2e-3, table: tuple | None = None,
          preset: str = "train-rack", loads: tuple = (0.6, 1.2), ent_coef: float = 0.0, vf_coef: float = 0.5,
          imitation: int = 60, imitation_lr: float = 1e-2, progress=None) -> dict:
    """Train from :func:`.marl.init_params` ``(seed)``; returns numpy weights, history and config.

    Deterministic for a seed (numpy draws; jax on CPU in float32 with a fixed reduction order).
    """
    import jax
    import jax.numpy as jnp

    cfg = dict(PRESETS[preset])
    cfg.pop("load", None)
    spr = cfg["servers_per_group"]
    P = {k: jnp.asarray(v, jnp.float32) for k, v in init_params(seed).items()}
    mom = {k: jnp.zeros_like(v) for k, v in P.items()}
    sec = {k: jnp.zeros_like(v) for k, v in P.items()}
    step, imitate = _loss_builder(spr, ent_coef, vf_coef)
    rng = np.random.default_rng([seed, 7])
    history, t0 = [], time.perf_counter()
    b1, b2, eps = 0.9, 0.999, 1e-8
    for it in range(iterations):
        load = float(rng.uniform(*loads))
        inst = generate(seed * 100003 + it, table=table, load=load, **cfg)
        Pn = {k: np.asarray(v, float) for k, v in P.items()}
        traces, comps, jcts = [], [], []
        for _ in range(rollouts):
            pol = MarlPolicy(inst, Pn, sample=True, rng=rng)
            res = simulate(inst, pol)
            traces.append(pol.trace)
            comps.append(np.array([res.completion[j.id] for j in inst.jobs]))
            jcts.append(float(np.mean([res.completion[j.id] - j.arrival for j in inst.jobs])))
        Gs = returns(inst, comps, traces)
        flat = [d for tr in traces for d in tr]
        if it < imitation:
            flat = [dict(d, chosen=d["teacher"]) for d in flat]
        batch = {k: jnp.asarray(v) for k, v in collate(flat, np.concatenate(Gs)).items()}
        lval, grads = (imitate if it < imitation else step)(P, batch)
        rate = imitation_lr if it < imitation else lr
        if it == imitation:   # a fresh optimizer state for the reinforcement phase
            mom = {k: jnp.zeros_like(v) for k, v in P.items()}
            sec = {k: jnp.zeros_like(v) for k, v in P.items()}
        t = it + 1 - (imitation if it >= imitation else 0)
        for k in P:
            mom[k] = b1 * mom[k] + (1 - b1) * grads[k]
            sec[k] = b2 * sec[k] + (1 - b2) * grads[k] ** 2
            mh = mom[k] / (1 - b1 ** t)
            vh = sec[k] / (1 - b2 ** t)
            P[k] = P[k] - rate * mh / (jnp.sqrt(vh) + eps)
        lb = float(np.mean([j.isolated_time for j in inst.jobs]))
        history.append(round(float(np.mean(jcts)) / lb, 6))
        if progress:
            progress(it, history[-1], float(lval), time.perf_counter() - t0)
    out = {k: np.asarray(v, float) for k, v in P.items()}
    out["history"] = history
    out["config"] = {"seed": seed, "iterations": iterations, "rollouts": rollouts, "lr": lr, "preset": preset,
                     "loads": list(loads), "ent_coef": ent_coef, "vf_coef": vf_coef,
                     "imitation": imitation, "imitation_lr": imitation_lr,
                     "table": "given" if table is not None else "synthetic",
                     "train_s": round(time.perf_counter() - t0, 1)}
    assert set(PARAM_SHAPES) <= set(out)
    return out
