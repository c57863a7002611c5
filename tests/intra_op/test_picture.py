"""The picture of intra-op's solutions: it renders, and a sharding plan counts nodes per strategy name or index."""

from __future__ import annotations

import optsched
from optsched.plot import plot
from tests.picture_checks import close_figures, renders_in_every_format  # noqa: F401 (autouse fixture)


def test_picture_renders_in_every_format(tmp_path):
    inst = optsched.generate("intra-op", seed=1, preset="tiny")
    renders_in_every_format(inst, optsched.solve(inst, "milp"), tmp_path)


def test_sharding_plan_counts_nodes_per_strategy_name_or_index():
    from optsched.problems.intra_op.instance import IntraOpInstance

    inst = IntraOpInstance(num_strategies=[2, 2, 3], cost=[1, 3, 2, 1, 0, 0, 0], usage=[1] * 7,
                           start=[0, 0, 0], end=[1, 1, 1], edge_u=[0], edge_v=[1], edge_cost=[0, 5, 5, 0])
    result = optsched.solve(inst, "milp")
    fig = plot(inst, result)
    assert fig.optsched["bars"] == max(result.solution["strategy"]) + 1   # unnamed: one bar per index
    named = optsched.generate("intra-op", seed=0, preset="tiny")
    r = optsched.solve(named, "milp")
    chosen = {named.labels[int(o) + int(k)] for o, k in zip(named.offsets[:-1], r.solution["strategy"])}
    assert plot(named, r).optsched["bars"] == len(chosen)                # named: one bar per distinct name
