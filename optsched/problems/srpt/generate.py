"""Seeded job streams for ``srpt``: generated recurring jobs, and streams from Gavel's Philly traces.

Generated streams [ours]. ``recurrences`` recurring job kinds are drawn first: a model of the
job-type table (:mod:`optsched.workloads.job_types`; its mini-batch and compute time per
iteration), a GPU demand (1, 2, 4, 8 or 16, capped at the cluster), a parallel plan (``plans``:
``mixed`` draws data / pipeline / tensor, the last two only for >= 2 GPUs) and a base length
(log-uniform in [200, 5000] iterations). Each kind has ``history_runs`` past runs and the stream
draws ``jobs`` new runs, run lengths ``base * exp(noise * N(0, 1))``. The random forest
(:mod:`.predictor`) is trained on the history and predicts the stream's iteration counts
(``predictor="oracle"`` stores the truth instead). Arrivals are Poisson with rate
``load * G / mean(g_j n_j tau_est_j)`` (``tau_est`` = iteration time of the greedy+KL placement on
the empty cluster), so ``load`` is the offered GPU utilization.

Communication per iteration [ours]: ring edges ``2 (g - 1) / g * model_bytes`` (ring
all-reduce), chain edges ``model_bytes / 4`` (activations and their gradients between stages),
grid edges ``model_bytes / g``.

Trace streams (:func:`load_gavel_stream`): jobs of a Gavel/Philly ``.trace`` sorted by arrival;
the first ``history_fraction`` of them train the forest (recurrence = job type + GPU count), the
rest form the stream (arrivals shifted to start at 0), as data-parallel rings (Gavel's jobs are
data parallel), ``iterations = total_steps``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core import portable
from optsched.core.rng import make_rng

from .graphs import PLAN_GRAPH, make_job_edges
from .instance import SrptInstance, SrptJob
from .policies import estimated_iteration_times
from .predictor import IterationPredictor, log_normal_iterations, prediction_errors

__all__ = ["generate", "load_gavel_stream", "PRESETS", "GENERATED_MODELS", "edge_bytes"]

#: models of the job-type table used by generated streams (the Gavel trace's models)
GENERATED_MODELS = ("ResNet-18", "ResNet-50", "Transformer", "LM", "Recommendation", "A3C", "CycleGAN")
PLANS = ("data", "pipeline", "tensor")

PRESETS: dict[str, dict] = {
    "tiny": {"jobs": 6, "servers": 2, "gpus_per_server": 4, "recurrences": 3, "history_runs": 6, "load": 0.9},
    "small": {"jobs": 40, "servers": 4, "gpus_per_server": 8, "recurrences": 10, "history_runs": 8, "load": 0.8},
    "bench": {"jobs": 10000, "servers": 64, "gpus_per_server": 8, "recurrences": 50, "history_runs": 10,
              "load": 0.8},
}


def edge_bytes(plan: str, gpus: int, model_bytes: float) -> float:
    if plan == "data":
        return 2 * (gpus - 1) / gpus * model_bytes
    if plan == "pipeline":
        return model_bytes / 4
    return model_bytes / gpus


def _job(jid, arrival, kind, iterations, predicted) -> SrptJob:
    return SrptJob(id=jid, arrival=arrival, gpus=kind["gpus"], plan=kind["plan"], graph=PLAN_GRAPH[kind["plan"]],
                   edges=make_job_edges(PLAN_GRAPH[kind["plan"]], kind["gpus"],
                                        edge_bytes(kind["plan"], kind["gpus"], kind["model_bytes"])),
                   compute_s=kind["compute_s"], iterations=int(iterations), predicted_iterations=float(predicted),
                   model=kind["model"], batch_size=kind["batch_size"], recurrence=kind["recurrence"])


def _stream(kinds, picks, arrivals, iterations, predicted) -> tuple[SrptJob, ...]:
    """The jobs from columns: one edges tuple per kind, shared by its jobs (no per-job graph)."""
    shared = [_job(r, 0.0, kind, 1, 1.0) for r, kind in enumerate(kinds)]
    fields = [(kind["gpus"], kind["plan"], PLAN_GRAPH[kind["plan"]], proto.edges, proto.compute_s, proto.model,
               proto.batch_size, proto.recurrence) for kind, proto in zip(kinds, shared)]
    trusted = SrptJob.trusted
    out = []
    for j, (k, a, n, p) in enumerate(zip(picks.tolist(), arrivals.tolist(), iterations.tolist(), predicted.tolist())):
        g, plan, graph, edges, compute_s, model, batch, recurrence = fields[k]
        out.append(trusted(id=j, arrival=a, gpus=g, plan=plan, graph=graph, edges=edges, compute_s=compute_s,
                           iterations=n, predicted_iterations=p, model=model, batch_size=batch,
                           recurrence=recurrence))
    return tuple(out)


def generate(seed: int, *, jobs: int = 40, servers: int = 4, gpus_per_server: int = 8, load: float = 0.8,
             recurrences: int = 10, history_runs: int = 8, noise: float = 0.3, plans: str = "mixed",
             predictor: str = "forest", restart_overhead: float = 30.0, intra_bandwidth: float = 1e11,
             inter_bandwidth: float = 1.25e9) -> SrptInstance:
    """A generated stream; the same seed and options give the same instance.

    >>> inst = generate(0, jobs=5, servers=2, gpus_per_server=4, recurrences=2, history_runs=4)
    >>> inst.num_jobs, inst.total_gpus, inst.jobs[0].arrival
    (5, 8, 0.0)
    """
    from optsched.workloads.job_types import job_type

    if jobs < 1:
        raise InvalidOptionError("srpt", "jobs", "the job stream is empty: must be >= 1", jobs)
    for name, value in (("servers", servers), ("gpus_per_server", gpus_per_server), ("recurrences", recurrences),
                        ("history_runs", history_runs)):
        if value < 1:
            raise InvalidOptionError("srpt", name, "must be >= 1", value)
    if not 0 < load:
        raise InvalidOptionError("srpt", "load", "must be > 0", load)
    if plans not in ("mixed",) + PLANS:
        raise InvalidOptionError("srpt", "plans", "must be mixed, data, pipeline or tensor", plans)
    if predictor not in ("forest", "oracle"):
        raise InvalidOptionError("srpt", "predictor", "must be forest or oracle", predictor)
    rng = make_rng(seed, "srpt", jobs, servers, gpus_per_server, load, recurrences, history_runs, noise, plans)
    total = servers * gpus_per_server
    demands = [g for g in (1, 2, 4, 8, 16) if g <= total]
    kinds = []
    for r in range(recurrences):
        jt = job_type(GENERATED_MODELS[int(rng.integers(len(GENERATED_MODELS)))])
        gpus = int(rng.choice(demands, p=np.linspace(2, 1, len(demands)) / np.linspace(2, 1, len(demands)).sum()))
        plan = plans if plans != "mixed" else ("data" if gpus == 1 else PLANS[int(rng.integers(3))])
        kinds.append({"model": jt.model, "batch_size": jt.mini_batch, "model_bytes": float(jt.model_bytes),
                      "compute_s": jt.compute_s(), "gpus": gpus, "plan": plan, "recurrence": f"r{r}",
                      "base": portable.exp(rng.uniform(portable.log(200.0), portable.log(5000.0)))})
    history = []
    for kind in kinds:
        for n in log_normal_iterations(rng, kind["base"], noise, history_runs):
            history.append({**kind, "iterations": int(n)})
    picks = rng.integers(recurrences, size=jobs)
    # one standard normal per job, drawn in one call (the same stream as one draw per job)
    base = np.asarray([kind["base"] for kind in kinds])
    iterations = np.maximum(1, np.round(base[picks] * portable.exp(noise * portable.standard_normal(rng, jobs)))).astype(np.int64)
    if predictor == "forest":
        # the forest's features are the kind's (model, batch, GPUs, plan, recurrence): one prediction per kind
        per_kind = IterationPredictor(seed=seed).fit(history).predict([{**kind, "iterations": 0} for kind in kinds])
        predicted = per_kind[picks]
    else:
        predicted = iterations.astype(float)
    cluster = SrptInstance(gpus_per_server=(gpus_per_server,) * servers, intra_bandwidth=intra_bandwidth,
                           inter_bandwidth=inter_bandwidth, restart_overhead=restart_overhead,
                           jobs=[_job(r, 0.0, kind, 1, 1.0) for r, kind in enumerate(kinds)])
    tau = estimated_iteration_times(cluster)
    gpus_of = np.asarray([kind["gpus"] for kind in kinds], np.int64)
    sizes = gpus_of[picks] * iterations * np.asarray([tau[r] for r in range(recurrences)])[picks]
    rate = load * total / float(np.mean(sizes))
    arrivals = np.concatenate([[0.0], np.cumsum(portable.exponential(rng, 1.0 / rate, jobs - 1))])
    stream = _stream(kinds, picks, arrivals, iterations, predicted)
    err = prediction_errors(iterations, predicted)
    return SrptInstance.trusted(gpus_per_server=(gpus_per_server,) * servers, intra_bandwidth=float(intra_bandwidth),
                        inter_bandwidth=float(inter_bandwidth), restart_overhead=float(restart_overhead), jobs=stream,
                        name=f"gen-{jobs}j-{servers}x{gpus_per_server}-load{load:g}-s{seed}",
                        provenance=f"optsched srpt generator, seed {seed}, predictor {predictor} "
                                   f"(held-out MAE {err['mae']:.4g} iterations, MAPE {err['mape']:.4g})")


def load_gavel_stream(path: str | Path, index: int = 0, *, servers: int = 16, gpus_per_server: int = 8,
                      history_fraction: float = 0.5, max_jobs: int | None = None, restart_overhead: float = 30.0,
                      intra_bandwidth: float = 1e11, inter_bandwidth: float = 1.25e9, seed: int = 0) -> SrptInstance:
    """A trace-derived stream (see the module docstring); the cluster is ``servers x gpus_per_server``
    [ours: Gavel's traces name no cluster]. Stream jobs larger than the cluster raise
    ``InvalidInstanceError`` through the instance's validation."""
    from optsched.core.data import sha256_file
    from optsched.workloads.job_types import trace_job_type
    from optsched.workloads.traces import load_gavel_trace

    if index != 0:
        raise InvalidOptionError("srpt", "index", "must be 0 (a trace is one stream)", index)
    if not 0 < history_fraction < 1:
        raise InvalidOptionError("srpt", "history_fraction", "must be in (0, 1)", history_fraction)
    trace = sorted(load_gavel_trace(path), key=lambda t: (t.arrival_s, t.index))
    split = max(1, int(round(history_fraction * len(trace))))
    if split >= len(trace):
        raise InvalidInstanceError("srpt", "(file)", "the trace leaves no job for the stream after the history",
                                   len(trace))
    stream_jobs = trace[split:split + max_jobs] if max_jobs else trace[split:]

    def record(t):
        jt = trace_job_type(t.job_type, "srpt", f"{Path(path).name} line {t.line} job_type")
        return {"model": jt.model, "batch_size": jt.mini_batch, "gpus": t.gpus, "plan": "data",
                "recurrence": f"{t.job_type}|{t.gpus}", "iterations": t.total_steps,
                "model_bytes": float(jt.model_bytes), "compute_s": jt.compute_s()}

    forest = IterationPredictor(seed=seed).fit([record(t) for t in trace[:split]])
    records = [record(t) for t in stream_jobs]
    predicted = forest.predict(records)
    start = stream_jobs[0].arrival_s
    jobs = tuple(_job(k, t.arrival_s - start, rec, rec["iterations"], p)
                 for k, (t, rec, p) in enumerate(zip(stream_jobs, records, predicted)))
    err = prediction_errors([r["iterations"] for r in records], predicted)
    name = Path(path).name
    return SrptInstance(gpus_per_server=(gpus_per_server,) * servers, intra_bandwidth=intra_bandwidth,
                        inter_bandwidth=inter_bandwidth, restart_overhead=restart_overhead, jobs=jobs,
                        name=f"gavel-{Path(path).stem}",
                        provenance=f"Gavel/Philly trace {name} (sha256 {sha256_file(path)}); history = first "
                                   f"{split} jobs by arrival, stream = next {len(jobs)}; random forest held-out "
                                   f"MAE {err['mae']:.4g} iterations, MAPE {err['mape']:.4g}")
