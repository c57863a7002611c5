"""``optsched.compare`` and ``optsched compare`` on mknap: ratios known by hand (a knapsack trap),
the frame's columns, seeds, progress, plot, file output, the time-limit column and the MILP's
anytime curve."""

from __future__ import annotations

import pandas as pd
import pytest

import optsched
from optsched.compare import COLUMNS
from optsched.core.errors import InvalidInstanceError, UnknownNameError
from optsched.plotting import figure_problems


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def knapsack_trap():
    """A tiny efficient item (profit 1.1, weight 1) blocks a large one (10, 10) in a knapsack of
    10: greedy by profit per weight takes the small one only (1.1); OPT takes the large (10)."""
    from optsched.problems.mknap.instance import MknapInstance

    return MknapInstance(profits=[1.1, 10.0], weights=[[1.0, 10.0]], capacities=[10.0], name="trap")


def test_known_ratios():
    frame = optsched.compare(knapsack_trap(), ["greedy", "milp"], reference="milp")
    by = frame.set_index("method")
    assert by.loc["greedy", "objective"] == pytest.approx(1.1)
    assert by.loc["greedy", "reference"] == pytest.approx(10.0)
    assert by.loc["greedy", "ratio"] == pytest.approx(10.0 / 1.1)      # max problem: OPT / ALG
    assert by.loc["milp", "ratio"] == pytest.approx(1.0)
    assert frame.result("greedy").solution == {"selected": [0]}
    assert frame[frame["method"] == "greedy"].result("greedy").objective == pytest.approx(1.1)  # kept on slices
    assert set(frame["reference_kind"]) == {"optimum"}


def test_columns_instances_seeds_and_given_references():
    a = optsched.generate("mknap", seed=1, preset="tiny")
    b = optsched.generate("mknap", seed=2, preset="tiny")
    frame = optsched.compare({"a": a, "b": b}, ["greedy"], reference={"a": 1e9, "b": None}, seeds=[0, 1])
    assert tuple(frame.columns) == COLUMNS and isinstance(frame, pd.DataFrame)
    assert list(frame["instance"]) == ["a", "a", "b", "b"] and list(frame["seed"]) == [0, 1, 0, 1]
    assert list(frame["reference_kind"]) == ["given"] * 4
    assert frame.loc[0, "ratio"] == pytest.approx(1e9 / frame.loc[0, "objective"])
    assert frame.loc[2:, "ratio"].isna().all()                           # no reference: no ratio
    assert (frame["time"] >= 0).all() and set(frame["status"]) == {"feasible"}


def test_progress_callback_and_typed_errors():
    inst = optsched.generate("mknap", seed=1, preset="tiny")
    seen = []
    optsched.compare([inst, inst], ["greedy", "lp-round"], progress=lambda d, t, row: seen.append((d, t, row["method"])))
    assert seen == [(1, 4, "greedy"), (2, 4, "lp-round"), (3, 4, "greedy"), (4, 4, "lp-round")]
    with pytest.raises(UnknownNameError, match="nope"):
        optsched.compare(inst, ["nope"])


def test_frame_plot_draws_paper_ready_ratios(tmp_path):
    frame = optsched.compare([optsched.generate("mknap", seed=s, preset="tiny") for s in (1, 2, 3)],
                             ["greedy", "lp-round"])
    fig = frame.plot(path=tmp_path / "ratios.pdf")
    assert figure_problems(fig) == [] and (tmp_path / "ratios.pdf").stat().st_size > 1000
    assert optsched.plot_ratios(frame).optsched == {"panels": 1, "skipped": []}   # every method has a ratio
    assert frame[frame["method"] == "greedy"].plot.bar is not None      # pandas' own plot accessor stays


def test_load_instance_reads_the_problem_from_the_file(tmp_path):
    inst = optsched.generate("mknap", seed=1, preset="tiny")
    path = tmp_path / "i.json"
    inst.save(path)
    assert optsched.load_instance(path) == inst
    assert optsched.load_instance("mknap", path) == inst                 # the older form
    other = next(name for name in optsched.core.registry.problems() if name != "mknap")
    with pytest.raises(InvalidInstanceError, match="instance of 'mknap'"):
        optsched.load_instance(path, problem=other)
    res = tmp_path / "r.json"
    optsched.solve(inst, "greedy").save(res)
    with pytest.raises(InvalidInstanceError, match="result record"):
        optsched.load_instance(res)


def test_cli_compare_writes_csv_and_refuses_bad_output(tmp_path, capsys):
    from optsched.cli import main

    files = []
    for seed in (1, 2):
        path = tmp_path / f"m{seed}.json"
        assert main(["generate", "mknap", "--preset", "tiny", "--seed", str(seed), "-o", str(path)]) == 0
        files.append(str(path))
    out = tmp_path / "out.csv"
    assert main(["compare", "mknap", *files, "--methods", "greedy", "lp-round", "--quiet", "-o", str(out)]) == 0
    frame = pd.read_csv(out)
    assert tuple(frame.columns) == COLUMNS and len(frame) == 4 and (frame["ratio"] >= 1 - 1e-12).all()
    assert "mean ratio" in capsys.readouterr().out
    assert main(["compare", "mknap", *files, "--methods", "greedy", "-o", str(tmp_path / "x.txt")]) == 2
    assert main(["compare", "mknap", *files, "--methods", "nope", "-o", str(tmp_path / "y.csv")]) == 2
    assert not (tmp_path / "x.txt").exists() and not (tmp_path / "y.csv").exists()


def test_time_limit_column_records_the_budget():
    inst = optsched.generate("mknap", seed=1, preset="tiny")
    frame = optsched.compare(inst, ["greedy"], time_limit=5.0)
    assert list(frame["time_limit"]) == [5.0]


def test_methods_default_to_every_method_but_the_reference():
    """With methods=None every other method runs, and a reference given as a dict leaves the method
    list alone."""
    small = optsched.generate("mknap", seed=1, preset="tiny")
    everything = optsched.compare(small, None, reference={"x": 1.0})
    assert set(everything["method"]) == set(optsched.get_problem("mknap").methods) - {"milp", "brute"}


def test_trace_records_the_anytime_curve_of_a_milp():
    """With ``trace=True`` the HiGHS incumbents of the MILP run are kept: each improves on the last
    (a maximization: the incumbent never falls, so its ratio to the LP bound never rises), the
    last equals the run's objective, and the anytime plot draws them."""
    import numpy as np

    from optsched.plotting import plot_anytime

    inst = optsched.generate("mknap", seed=1, preset="small")
    frame = optsched.compare(inst, ["milp", "greedy"], reference="lp", trace=True)
    trace = frame.trace_frame()
    milp = trace[(trace["method"] == "milp") & trace["incumbent"].notna()]
    assert milp["incumbent"].nunique() >= 2                       # more than the final value
    incumbents = milp["incumbent"].to_numpy(float)
    assert (np.diff(incumbents) >= -1e-9).all()
    assert incumbents[-1] == pytest.approx(frame.set_index("method").loc["milp", "objective"])
    assert len(trace[trace["method"] == "greedy"]) == 1           # no solver: only its final point
    fig = plot_anytime(trace)
    assert figure_problems(fig) == [] and fig.optsched["points"] >= 3
