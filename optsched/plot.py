"""Pictures of solutions: the figures papers in this field explain themselves with.

:func:`plot` draws a result of a problem that has a picture, with matplotlib (Agg, no screen):

* ``pipeline-schedule``: a Gantt chart, stages x time, one bar per forward (light) and backward
  (dark) of each microbatch, numbered, the all-reduce after the last backward, idle time as gaps,
  the lower bound as a dashed line;
* ``srpt`` and ``rar-online`` (cluster schedules of simulated online methods): servers x time,
  one bar per job and segment (srpt) or per job and slot (rar-online), coloured by job; a job
  that returns after a gap was preempted;
* ``pipeline-partition``: the layer chain cut into stages (bar heights = per-position compute
  time), each stage labelled with its devices, and the device graph with each device coloured by
  its stage;
* ``intra-op``: the memory profile of the plan over time against the limit, and the strategies
  chosen per node.

Every drawing function returns the matplotlib ``Figure`` and records what it drew in
``figure.optsched`` (e.g. ``{"bars": 24}``) so tests can check drawn facts; :func:`plot` saves it
when given a path (``.png``, ``.svg`` or ``.pdf``). Colours are stable per method and per job
across figures (:func:`color_for`).

>>> import optsched
>>> inst = optsched.generate("pipeline-schedule", seed=1, preset="hetero-small")
>>> fig = plot(inst, optsched.solve(inst, "1f1b"))
>>> fig.optsched["bars"] == 2 * inst.stages * inst.microbatches
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from .core.errors import InvalidInstanceError
from .core.result import Result

__all__ = ["plot", "color_for", "method_color", "METHOD_COLORS", "log_scale_if_wide", "save_figure",
           "PLOTTERS", "FORMATS"]

FORMATS = (".png", ".svg", ".pdf")
_PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#000000",
            "#ee8866", "#44bb99", "#99ddff", "#ffaabb")


def color_for(index: int) -> str:
    """A colour-blind-safe colour, the same for the same index in every figure."""
    return _PALETTE[int(index) % len(_PALETTE)]


#: fixed colours of the methods that appear in many figures (exact optima and bounds in black and
#: grey; a method keeps its colour in every figure of every experiment)
METHOD_COLORS = {
    "milp": "#000000", "opt": "#000000", "brute": "#000000", "lp": "#777777", "lb": "#777777",
    "bound": "#777777",
    "threshold": "#4477aa", "fixed-price": "#ee6677", "greedy": "#228833", "lp-round": "#ccbb44",
    "learned": "#aa3377", "a-srpt": "#4477aa", "fifo": "#ee6677", "sjf-oracle": "#228833",
    "tiresias-las": "#ccbb44", "1f1b": "#4477aa", "gpipe": "#ee6677",
}


def method_color(name: str) -> str:
    """The colour of a method in every figure: :data:`METHOD_COLORS` for the common names (the
    part after ``problem/`` counts), else a palette colour chosen by a stable digest of the name
    (the same in every run and process, unlike ``hash``).

    >>> method_color("threshold") == method_color("online-knapsack/threshold") == "#4477aa"
    True
    >>> method_color("some-new-method") == method_color("some-new-method")
    True
    """
    import hashlib

    short = name.rsplit("/", 1)[-1]
    if short in METHOD_COLORS:
        return METHOD_COLORS[short]
    digest = int(hashlib.sha256(short.encode()).hexdigest(), 16)
    return _PALETTE[digest % len(_PALETTE)]


def log_scale_if_wide(ax, values, axis: str = "y", decades: float = 1.0) -> bool:
    """Put ``axis`` of ``ax`` on a log scale when the positive finite ``values`` span more than
    ``decades`` powers of ten (so small and huge series both stay readable); returns whether it did.

    >>> import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> log_scale_if_wide(ax, [1.2, 3.0, 600.0]), ax.get_yscale()
    (True, 'log')
    >>> fig, ax = plt.subplots()
    >>> log_scale_if_wide(ax, [1.2, 3.0, 9.0]), ax.get_yscale()
    (False, 'linear')
    """
    vals = np.asarray([v for v in values if v is not None], float)
    vals = vals[np.isfinite(vals) & (vals > 0)]
    if vals.size < 2 or np.log10(vals.max() / vals.min()) <= decades:
        return False
    from matplotlib.ticker import FuncFormatter

    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")  # 30, not 3 x 10^1
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(plain)
    target.set_minor_formatter(plain if np.log10(vals.max() / vals.min()) < 2 else FuncFormatter(lambda v, _: ""))
    return True


def save_figure(out, name: str, fig, *, caption: str, vector: tuple[str, ...] = (".svg",)) -> list[str]:
    """Save a repro figure as PNG through the artifact writer ``out`` (``out.figure``) and, beside
    it, as vector graphics (``vector`` suffixes: ``.svg``, ``.pdf``) for print; returns the vector
    files' names. Vector files carry no date, so reruns write the same bytes."""
    import matplotlib

    names = []
    base = Path(out.out_dir) / f"{out.experiment.id}_{name}"
    for suffix in vector:
        if suffix not in (".svg", ".pdf"):
            raise InvalidInstanceError("repro", "figure", "vector formats are .svg and .pdf", suffix)
        path = base.with_suffix(suffix)
        metadata = {"Date": None} if suffix == ".svg" else {"CreationDate": None, "ModDate": None}
        with matplotlib.rc_context({"svg.hashsalt": "optsched", "svg.fonttype": "none"}):
            fig.savefig(path, metadata={**metadata, "Creator": None} if suffix == ".svg" else
                        {**metadata, "Creator": None, "Producer": None})
        names.append(path.name)
    out.figure(name, fig, caption=caption)
    for file_name in names:
        out.artifacts.append((file_name, f"the same figure as vector graphics ({file_name.rsplit('.', 1)[1].upper()})"))
    return names


def _figure(*shape, **kw):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(*shape, **kw)


def _pipeline_schedule(instance, result: Result):
    from .simulation.pipeline import order_from_json, simulate_order

    kind, mb = order_from_json(result.solution["order"], instance.stages, instance.microbatches)
    sim = simulate_order(instance.timing, instance.microbatches, kind, mb)
    t = instance.timing
    K, M = instance.stages, instance.microbatches
    fig, ax = _figure(figsize=(max(6.0, 0.35 * M * K), 0.6 * K + 1.6))
    bars = 0
    for k in range(K):
        for task, dur, alpha in ((0, t.forward[k], 0.55), (1, t.backward[k], 1.0)):
            for m in range(M):
                start = sim.task_start[k, task, m]
                ax.barh(k, dur, left=start, height=0.8, color=color_for(m), alpha=alpha, edgecolor="black",
                        linewidth=0.4)
                ax.text(start + dur / 2, k, str(m), ha="center", va="center", fontsize=7)
                bars += 1
        if t.allreduce[k] > 0:
            ax.barh(k, t.allreduce[k], left=sim.stage_end[k], height=0.4, color="#777777", hatch="//")
    ax.axvline(sim.lower_bound, color="black", linestyle="--", linewidth=1.0, label=f"lower bound {sim.lower_bound:.3g}")
    ax.set_yticks(range(K), [f"stage {k}" for k in range(K)])
    ax.invert_yaxis()
    ax.set_xlabel("time (s); forward light, backward dark, number = microbatch, hatched = all-reduce")
    ax.set_title(f"{result.method}: makespan {sim.makespan:.4g}")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.optsched = {"bars": bars, "makespan": float(sim.makespan), "lower_bound": float(sim.lower_bound)}
    return fig


def _srpt(instance, result: Result):
    """GPUs x time: server s is a band of ``gpus_per_server[s]`` lanes; each segment of a job takes
    as many lanes on a server as it has graph nodes there (first free lanes)."""
    gpus = list(instance.gpus_per_server)
    servers = len(gpus)
    fig, ax = _figure(figsize=(10, 0.5 * servers + 1.8))
    lanes = [np.zeros(g) for g in gpus]             # end time of the last bar in each lane
    bars = 0
    segments = sorted(((seg["start"], seg["end"], job["id"], seg["servers"]) for job in result.solution["jobs"]
                       for seg in job["segments"]), key=lambda s: (s[0], s[2]))
    for start, end, job_id, placed in segments:
        for s in sorted(set(placed)):
            need = placed.count(s)
            free = np.flatnonzero(lanes[s] <= start + 1e-9)[:need]
            for lane in free:
                ax.barh(s + (lane + 0.5) / gpus[s] - 0.5, end - start, left=start, height=0.9 / gpus[s],
                        color=color_for(job_id), edgecolor="black", linewidth=0.2)
                lanes[s][lane] = end
                bars += 1
    ax.set_yticks(range(servers), [f"server {s}" for s in range(servers)])
    ax.set_ylim(servers - 0.5, -0.5)
    ax.set_xlabel("time (s); one lane per GPU, colour = job; a job that returns after a gap was preempted")
    ax.set_title(f"{result.method}: total flow time {result.objective:.4g}")
    fig.tight_layout()
    fig.optsched = {"bars": bars}
    return fig


def _rar_online(instance, result: Result):
    servers = len(instance.servers)
    fig, ax = _figure(figsize=(10, 0.45 * servers + 1.8))
    bars = 0
    for job, slot, parts in result.solution["allocations"]:
        for server, workers in parts:
            ax.barh(server, 1.0, left=slot, height=0.8 * min(1.0, workers / max(1, instance.servers[server])),
                    color=color_for(job), edgecolor="black", linewidth=0.3)
            bars += 1
    ax.set_yticks(range(servers), [f"server {s}" for s in range(servers)])
    ax.invert_yaxis()
    ax.set_xlabel("slot")
    ax.set_title(f"{result.method}: objective {result.objective:.4g} (colour = job; bar height = share of GPUs)")
    fig.tight_layout()
    fig.optsched = {"bars": bars}
    return fig


def _pipeline_partition(instance, result: Result):
    import networkx as nx

    sol = result.solution
    n = instance.num_positions
    starts = [0] + list(sol["cuts"])
    ends = list(sol["cuts"]) + [n]
    fig, (top, bottom) = _figure(2, 1, figsize=(10, 7), gridspec_kw={"height_ratios": [1, 1.4]})
    work = np.asarray(instance.forward_s) + np.asarray(instance.backward_s)
    for k, (a, b) in enumerate(zip(starts, ends)):
        top.bar(np.arange(a, b), work[a:b], width=1.0, color=color_for(k), edgecolor="none")
        top.text((a + b - 1) / 2, work.max() * 1.02, f"stage {k}\n{sol['devices'][k]}", ha="center", va="bottom",
                 fontsize=7)
    top.set_xlabel("position in the chain")
    top.set_ylabel("forward + backward (s)")
    top.set_ylim(0, work.max() * 1.35 if work.max() > 0 else 1)
    top.set_title(f"{result.method}: {len(starts)} stages, objective {result.objective:.4g}")
    graph = nx.Graph()
    graph.add_nodes_from(range(instance.num_devices))
    for u, v, bw in instance.links:
        graph.add_edge(u, v, weight=bw)
    stage_of = {d: k for k, devs in enumerate(sol["devices"]) for d in devs}
    pos = nx.circular_layout(graph)
    nx.draw_networkx(graph, pos, ax=bottom, node_color=[color_for(stage_of[d]) if d in stage_of else "#ffffff"
                                                       for d in graph.nodes],
                     edgecolors="black", font_size=8, width=[0.5 + 2.5 * graph[u][v]["weight"] / max(
                         1.0, max(w for _, _, w in graph.edges(data="weight"))) for u, v in graph.edges])
    bottom.set_title("devices coloured by stage (white: idle); edge width = bandwidth")
    bottom.axis("off")
    fig.tight_layout()
    fig.optsched = {"stages": len(starts), "bars": n}
    return fig


def _intra_op(instance, result: Result):
    from .problems.intra_op.instance import solution_vector, usage_profile

    strategy, problems = solution_vector(instance, result.solution)
    if strategy is None:
        raise InvalidInstanceError(instance.problem, "result", "; ".join(problems[:2]))
    fig, (left, right) = _figure(1, 2, figsize=(11, 4))
    profile = usage_profile(instance, strategy)
    left.plot(np.arange(profile.size), profile, color=color_for(0), label="memory in use")
    if instance.usage_limit is not None:
        left.axhline(instance.usage_limit, color="black", linestyle="--", label="limit")
    left.set_xlabel("time step")
    left.set_title("memory profile of the plan")
    left.legend(fontsize=8)
    if len(instance.labels):
        # generated instances name their strategies (SBP signatures): count nodes per name
        chosen = [str(instance.labels[int(o) + int(k)]) for o, k in zip(instance.offsets[:-1], strategy)]
        names, counts = np.unique(np.asarray(chosen, dtype=object), return_counts=True)
        names = [str(n) for n in names]
        right.set_xlabel("chosen strategy (SBP signature)")
    else:
        counts = np.bincount(strategy)
        names = [str(i) for i in range(counts.size)]
        right.set_xlabel("chosen strategy index (imported instances carry no names)")
    right.bar(np.arange(len(names)), counts, color=color_for(1))
    right.set_xticks(np.arange(len(names)), names, rotation=45 if len(names) > 6 else 0, ha="right" if len(names) > 6 else "center")
    right.set_ylabel("nodes")
    right.set_title(f"{result.method}: cost {result.objective:.6g}")
    fig.tight_layout()
    fig.optsched = {"bars": len(names), "peak": float(profile.max()) if profile.size else 0.0}
    return fig


#: problem name -> drawing function (instance, result) -> Figure
PLOTTERS: dict[str, Callable[[Any, Result], Any]] = {
    "pipeline-schedule": _pipeline_schedule,
    "srpt": _srpt,
    "rar-online": _rar_online,
    "pipeline-partition": _pipeline_partition,
    "intra-op": _intra_op,
}


def plot(instance: Any, result: Result, path: str | Path | None = None):
    """Draw ``result`` (a solved :class:`Result` of ``instance``); save it to ``path`` if given.

    Raises :class:`InvalidInstanceError` (CLI exit 2) for a problem without a picture, a result
    without a solution, or an unknown file type.
    """
    problem = instance.problem
    if problem not in PLOTTERS:
        raise InvalidInstanceError(problem, "plot", f"no picture for this problem (pictures: {', '.join(PLOTTERS)})")
    if result.problem != problem:
        raise InvalidInstanceError(problem, "result", f"is a result of {result.problem!r}")
    if result.solution is None:
        raise InvalidInstanceError(problem, "result", f"has no solution to draw (status {result.status})")
    if path is not None and Path(path).suffix not in FORMATS:
        raise InvalidInstanceError(problem, "-o", f"must end in one of {', '.join(FORMATS)}", str(path))
    fig = PLOTTERS[problem](instance, result)
    if path is not None:
        fig.savefig(path, dpi=150)
    return fig
