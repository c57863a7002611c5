"""Drawing primitives the problems' pictures share (no problem is named here)."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from .style import color_for, legend

__all__ = ["gantt", "key_legend", "draw_graph", "stacked_bars", "load_bars", "request_stream"]


def gantt(ax, rows: Iterable[tuple], *, height: float = 0.8, text: bool = False) -> int:
    """Bars ``(row, start, duration, key)`` coloured by ``key`` (job, microbatch, ...); returns how
    many were drawn. With ``text`` the key is written in the bar."""
    n = 0
    for row, start, dur, key in rows:
        ax.barh(row, dur, left=start, height=height, color=color_for(key), edgecolor="black", linewidth=0.3)
        if text:
            ax.text(start + dur / 2, row, str(key), ha="center", va="center", fontsize=6)
        n += 1
    return n


def key_legend(ax, keys: Sequence, name: str, *, max_entries: int = 10, **kw):
    """A legend ``name k`` -> the colour of ``k`` for the distinct ``keys`` (first ``max_entries``)."""
    keys = list(dict.fromkeys(int(k) for k in keys))
    kw.setdefault("loc", "upper left")
    kw.setdefault("bbox_to_anchor", (1.0, 1.0))
    return legend(ax, [(f"{name} {k}", color_for(k)) for k in keys], max_entries=max_entries, **kw)


def draw_graph(ax, num_nodes: int, edges, part, *, part_name: str = "part", pos=None, layered: bool = False,
               labels: bool | None = None, seed: int = 0):
    """A graph with node ``v`` coloured by ``part[v]`` (-1: white), edges in grey, and a legend
    of the parts; ``layered`` lays a DAG out by topological generation (left to right)."""
    import networkx as nx

    g = nx.DiGraph() if layered else nx.Graph()
    g.add_nodes_from(range(num_nodes))
    g.add_edges_from((int(u), int(v)) for u, v in edges)
    if pos is None:
        if layered:
            for layer, nodes in enumerate(nx.topological_generations(g)):
                for v in nodes:
                    g.nodes[v]["layer"] = layer
            pos = nx.multipartite_layout(g, subset_key="layer")
        else:
            pos = nx.spring_layout(g, seed=seed)
    colours = [color_for(part[v]) if part[v] >= 0 else "#ffffff" for v in range(num_nodes)]
    labels = num_nodes <= 40 if labels is None else labels
    nx.draw_networkx_edges(g, pos, ax=ax, edge_color="#999999", width=0.6, node_size=120 if labels else 40,
                           **({"arrows": True, "arrowsize": 6} if layered else {"arrows": False}))
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colours, edgecolors="black", linewidths=0.4,
                           node_size=120 if labels else 40)
    if labels:
        nx.draw_networkx_labels(g, pos, ax=ax, font_size=5)
    ax.set_axis_off()
    parts = sorted({int(p) for p in part if p >= 0})
    legend(ax, [(f"{part_name} {p}", color_for(p)) for p in parts], loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return pos


def stacked_bars(ax, values: np.ndarray, series: Sequence[str], *, colors: Sequence[str] | None = None,
                 x=None, width: float = 0.8):
    """Bars stacked per column of ``values`` (rows: positions, columns: series), with a legend."""
    values = np.asarray(values, float)
    x = np.arange(values.shape[0]) if x is None else np.asarray(x)
    bottom = np.zeros(values.shape[0])
    for j, name in enumerate(series):
        ax.bar(x, values[:, j], bottom=bottom, width=width, label=name,
               color=(colors[j] if colors else color_for(j)), edgecolor="black", linewidth=0.3)
        bottom += values[:, j]
    legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return bottom


def load_bars(ax, loads: Sequence[float], *, colors: Sequence[str] | None = None, limit: float | None = None,
              limit_label: str = "capacity", bottleneck: bool = True):
    """One bar per unit (stage, rank, part) with its load; a dashed line at ``limit`` and the
    largest bar outlined (the bottleneck)."""
    loads = np.asarray(loads, float)
    x = np.arange(loads.size)
    bars = ax.bar(x, loads, color=colors if colors is not None else [color_for(i) for i in x], edgecolor="black",
                  linewidth=0.3)
    if bottleneck and loads.size:
        k = int(np.argmax(loads))
        bars[k].set_linewidth(1.6)
        ax.axhline(loads[k], color="black", linestyle=":", linewidth=0.8, label=f"bottleneck {loads[k]:.4g}")
    if limit is not None:
        ax.axhline(limit, color="#777777", linestyle="--", linewidth=1.0, label=f"{limit_label} {limit:.4g}")
    if bottleneck or limit is not None:
        legend(ax, loc="best")
    ax.set_xticks(x)
    return bars


def request_stream(ax, density: np.ndarray, accepted: Iterable[int], *, lower: float | None = None,
                   upper: float | None = None):
    """An online stream: value per unit of demand of each request in arrival order, accepted
    (filled) and rejected (open), the value range [L, U] dashed; log axis when it spans decades."""
    from .style import log_scale_if_wide, method_color

    density = np.asarray(density, float)
    take = np.zeros(density.size, bool)
    take[list(accepted)] = True
    idx = np.arange(density.size)
    ax.scatter(idx[take], density[take], s=10, color=method_color("threshold"), label="accepted", zorder=3)
    ax.scatter(idx[~take], density[~take], s=10, facecolors="none", edgecolors="#ee6677", linewidths=0.6,
               label="rejected", zorder=2)
    for value, name in ((lower, "L"), (upper, "U")):
        if value is not None:
            ax.axhline(value, color="#777777", linestyle="--", linewidth=0.8)
            ax.text(density.size, value, f" {name}", va="center", fontsize=6, color="#555555")
    log_scale_if_wide(ax, list(density) + [v for v in (lower, upper) if v])
    ax.set_xlabel("arrival (request index)")
    ax.set_ylabel("value per unit demand (value/unit)")
    legend(ax, loc="best")
    return take
