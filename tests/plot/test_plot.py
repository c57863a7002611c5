"""Pictures of solutions: each kind renders, is not blank, and draws what the solution says."""

from __future__ import annotations

import numpy as np
import pytest

import optsched
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.plot import plot


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _not_blank(path) -> bool:
    import matplotlib.image as mpimg

    img = mpimg.imread(path)
    return img.shape[0] > 100 and img.shape[1] > 100 and float(np.std(img[..., :3])) > 0.01


CASES = {
    "pipeline-schedule": ("hetero-small", "1f1b"),
    "srpt": ("tiny", "a-srpt"),
    "rar-online": ("tiny", "gadget"),
    "pipeline-partition": ("tiny", "dp"),
    "intra-op": ("tiny", "milp"),
}


@pytest.mark.parametrize("problem", sorted(CASES))
def test_every_picture_renders_in_every_format(problem, tmp_path):
    preset, method = CASES[problem]
    inst = optsched.generate(problem, seed=1, preset=preset)
    res = optsched.solve(inst, method)
    assert res.solution is not None
    for suffix in (".png", ".svg", ".pdf"):
        path = tmp_path / f"{problem}{suffix}"
        plot(inst, res, path)
        assert path.stat().st_size > 1000
    assert _not_blank(tmp_path / f"{problem}.png")


def test_pipeline_gantt_draws_one_bar_per_operation_and_the_bound():
    inst = optsched.generate("pipeline-schedule", seed=3, preset="hetero-small")
    res = optsched.solve(inst, "list")
    fig = plot(inst, res)
    assert fig.optsched["bars"] == 2 * inst.stages * inst.microbatches
    assert fig.optsched["makespan"] == pytest.approx(res.objective)
    assert fig.optsched["lower_bound"] <= res.objective
    drawn = [p for p in fig.axes[0].patches if p.get_height() == pytest.approx(0.8)]
    assert len(drawn) == 2 * inst.stages * inst.microbatches


def test_cluster_gantt_has_a_bar_per_segment_and_gpu():
    inst = optsched.generate("srpt", seed=2, preset="tiny")
    res = optsched.solve(inst, "a-srpt")
    expected = sum(len(seg["servers"]) for job in res.solution["jobs"] for seg in job["segments"])  # GPUs
    assert plot(inst, res).optsched["bars"] == expected


def test_partition_picture_names_every_stage():
    inst = optsched.generate("pipeline-partition", seed=2, preset="tiny")
    res = optsched.solve(inst, "dp")
    fig = plot(inst, res)
    assert fig.optsched["stages"] == len(res.solution["replicas"])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("stage ") for t in texts) == len(res.solution["replicas"])


def test_errors_are_typed():
    inst = optsched.generate("mknap", seed=1, preset="tiny")
    other = optsched.generate("stage-cores", seed=1, preset="tiny")
    with pytest.raises(InvalidInstanceError, match="result of 'stage-cores'"):
        plot(inst, optsched.solve(other, "greedy"))
    pinst = optsched.generate("pipeline-schedule", seed=1, preset="hetero-small")
    with pytest.raises(InvalidOptionError, match="-o"):
        plot(pinst, optsched.solve(pinst, "1f1b"), "out.jpg")


def test_cli_plot_verb(tmp_path):
    from optsched.cli import main

    inst, res, out = tmp_path / "i.json", tmp_path / "r.json", tmp_path / "g.svg"
    assert main(["generate", "pipeline-schedule", "--preset", "hetero-small", "-o", str(inst)]) == 0
    assert main(["solve", "pipeline-schedule", str(inst), "--method", "list", "-o", str(res)]) == 0
    assert main(["plot", "pipeline-schedule", str(inst), str(res), "-o", str(out)]) == 0
    assert out.stat().st_size > 1000 and out.read_text().lstrip().startswith("<?xml")
    assert main(["plot", "pipeline-schedule", str(inst), str(inst), "-o", str(out)]) == 2   # not a result
    assert main(["plot", "mknap", str(inst), str(res), "-o", str(out)]) == 2      # another problem's files


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
