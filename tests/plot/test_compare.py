"""``optsched.compare`` and ``optsched compare``: ratios to the reference, on instances whose
ratios are known by hand, and the frame's columns, plot and file output."""

from __future__ import annotations

import pandas as pd
import pytest

import optsched
from optsched.compare import COLUMNS
from optsched.core.errors import InvalidInstanceError, InvalidOptionError, UnknownNameError
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


def cores_case():
    """Two stages with 1 and 3 items/s per core, 4 cores: the equal split (2, 2) gives
    min(2, 6) = 2 items/s, the best split (3, 1) gives min(3, 3) = 3: ratio OPT/ALG = 1.5."""
    from optsched.problems.stage_cores.instance import StageCoresInstance

    return StageCoresInstance(stages=["sample", "fetch"], rate_per_core=[1.0, 3.0], cores=4, name="two-stages")


def test_known_ratios_on_two_problems():
    frame = optsched.compare(knapsack_trap(), ["greedy", "milp"], reference="milp")
    by = frame.set_index("method")
    assert by.loc["greedy", "objective"] == pytest.approx(1.1)
    assert by.loc["greedy", "reference"] == pytest.approx(10.0)
    assert by.loc["greedy", "ratio"] == pytest.approx(10.0 / 1.1)      # max problem: OPT / ALG
    assert by.loc["milp", "ratio"] == pytest.approx(1.0)
    assert frame.result("greedy").solution == {"selected": [0]}
    assert frame[frame["method"] == "greedy"].result("greedy").objective == pytest.approx(1.1)  # kept on slices
    assert set(frame["reference_kind"]) == {"optimum"}
    cores = optsched.compare(cores_case(), ["equal", "greedy"])         # default reference: milp
    by = cores.set_index("method")
    assert by.loc["equal", "objective"] == pytest.approx(2.0)
    assert by.loc["equal", "ratio"] == pytest.approx(1.5)
    assert by.loc["greedy", "ratio"] >= 1.0 - 1e-12


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


def test_a_bound_reference_is_marked_as_a_bound():
    inst = optsched.generate("srpt", seed=1, preset="tiny")
    frame = optsched.compare(inst, ["fifo"])                              # srpt's reference: lb
    assert frame.loc[0, "reference_kind"] == "bound" and frame.loc[0, "ratio"] >= 1.0


def test_progress_callback_and_typed_errors():
    inst = optsched.generate("mknap", seed=1, preset="tiny")
    seen = []
    optsched.compare([inst, inst], ["greedy", "lp-round"], progress=lambda d, t, row: seen.append((d, t, row["method"])))
    assert seen == [(1, 4, "greedy"), (2, 4, "lp-round"), (3, 4, "greedy"), (4, 4, "lp-round")]
    with pytest.raises(UnknownNameError, match="nope"):
        optsched.compare(inst, ["nope"])
    with pytest.raises(InvalidOptionError, match="one problem"):
        optsched.compare([inst, cores_case()], ["greedy"])


def test_frame_plot_draws_paper_ready_ratios(tmp_path):
    frame = optsched.compare([optsched.generate("mknap", seed=s, preset="tiny") for s in (1, 2, 3)],
                             ["greedy", "lp-round"])
    fig = frame.plot(path=tmp_path / "ratios.pdf")
    assert figure_problems(fig) == [] and (tmp_path / "ratios.pdf").stat().st_size > 1000
    assert optsched.plot_ratios(frame).optsched == {"panels": 1}
    assert frame[frame["method"] == "greedy"].plot.bar is not None      # pandas' own plot accessor stays


def test_load_instance_reads_the_problem_from_the_file(tmp_path):
    inst = optsched.generate("mknap", seed=1, preset="tiny")
    path = tmp_path / "i.json"
    inst.save(path)
    assert optsched.load_instance(path) == inst
    assert optsched.load_instance("mknap", path) == inst                 # the older form
    with pytest.raises(InvalidInstanceError, match="instance of 'mknap'"):
        optsched.load_instance(path, problem="stage-cores")
    res = tmp_path / "r.json"
    optsched.solve(inst, "greedy").save(res)
    with pytest.raises(InvalidInstanceError, match="result record"):
        optsched.load_instance(res)


def test_a_method_that_does_not_apply_gets_a_row_saying_why():
    inst = optsched.generate("pipeline-schedule", seed=0, preset="hetero-small")
    frame = optsched.compare(inst, ["gpipe", "1f1b"], reference=1.0)
    gpipe = frame.set_index("method").loc["gpipe"]
    assert gpipe["status"] == "not_applicable" and "in flight" in gpipe["reason"] and gpipe["ratio"] != gpipe["ratio"]
    assert frame.set_index("method").loc["1f1b", "status"] == "feasible"


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


def test_cross_cutting_plots_are_paper_ready():
    """Ratio against time (one compare per budget, concatenated) and competitive ratio against
    U/L (a column the caller adds), on frames built by hand so the drawn values are known."""
    from optsched.plotting import plot_anytime, plot_competitive

    rows = [{"problem": "p", "instance": "a", "method": m, "ratio": r, "time_limit": t}
            for m, series in (("milp", (1.5, 1.1, 1.0)), ("greedy", (1.3, 1.3, 1.3)))
            for t, r in zip((0.01, 0.1, 10.0), series)]
    fig = plot_anytime(pd.DataFrame(rows))
    assert figure_problems(fig) == [] and fig.axes[0].get_xscale() == "log"      # 0.01 .. 10 s
    assert [list(line.get_ydata()) for line in fig.axes[0].get_lines()[:2]] == [[1.5, 1.1, 1.0], [1.3, 1.3, 1.3]]
    import math

    rows = [{"method": m, "U/L": x, "ratio": r} for m, k in (("threshold", 1.0), ("greedy", 3.0))
            for x in (4.0, 16.0, 64.0) for r in (k * (1 + math.log(x)), 1.0)]
    fig = plot_competitive(pd.DataFrame(rows), theory=lambda x: 1 + math.log(x))
    assert figure_problems(fig) == [] and fig.axes[0].get_xscale() == "log"
    worst = list(fig.axes[0].get_lines()[0].get_ydata())
    assert worst == pytest.approx([1 + math.log(x) for x in (4.0, 16.0, 64.0)])   # max over instances


def test_time_limit_column_records_the_budget():
    inst = optsched.generate("mknap", seed=1, preset="tiny")
    frame = optsched.compare(inst, ["greedy"], time_limit=5.0)
    assert list(frame["time_limit"]) == [5.0]


def test_default_reference_takes_the_first_method_that_applies_and_methods_default_to_the_rest():
    """rar-makespan's reference is ('brute', 'milp'): brute does not apply to the small preset,
    so the MILP's optimum is the reference; with methods=None every other method runs, and a
    reference given as a dict leaves the method list alone."""
    problem = optsched.get_problem("rar-makespan")
    inst = optsched.generate("rar-makespan", seed=1, preset="small")
    assert not problem.get_method("brute").applicable(inst)[0]
    frame = optsched.compare(inst, ["ff"], time_limit=60)
    assert frame.loc[0, "reference_kind"] in ("optimum", "bound")
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
