"""The "add a problem in 30 minutes" walk-through of docs/architecture.md, followed step by step.

A toy problem -- assign jobs to two machines, minimizing the makespan -- is registered here with an
instance type, a checker, a generator, an exact MILP, a brute force and a greedy baseline, and
gets the whole conformance battery by being registered. A broken variant shows that the battery
catches what it promises to catch."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest

import optsched
from optsched.core.conformance import run_battery
from optsched.core.instance import Instance
from optsched.core.linear import ModelBuilder
from optsched.core.registry import (CheckReport, Guarantee, Outcome, Problem, register_problem, size_limit,
                                    unregister_problem)
from optsched.core.rng import make_rng
from optsched.core.solving import model_outcome


# 1. the instance: a frozen dataclass with validate()
@dataclass(frozen=True)
class TwoMachines(Instance):
    problem = "toy-two-machines"
    durations: tuple[float, ...]

    def validate(self):
        self.require(len(self.durations) >= 1, "durations", "must list at least one job")
        self.require_nonnegative("durations", self.durations)


# 2. the checker: the authoritative objective, every violation
def check(instance: TwoMachines, solution) -> CheckReport:
    machine = solution.get("machine") if isinstance(solution, dict) else None
    if not isinstance(machine, list) or len(machine) != len(instance.durations):
        return CheckReport(False, None, ["machine must list one machine (0 or 1) per job"])
    bad = [j for j, m in enumerate(machine) if m not in (0, 1)]
    loads = [sum(d for d, m in zip(instance.durations, machine) if m == k) for k in (0, 1)]
    return CheckReport.from_violations([f"job {j}: machine {machine[j]!r} is not 0 or 1" for j in bad], max(loads))


# 3. a seeded generator and the conformance suite's tiny instances
def generate(seed: int, *, jobs: int = 6) -> TwoMachines:
    rng = make_rng(seed, "toy-two-machines")
    return TwoMachines(durations=tuple(float(x) for x in rng.integers(1, 10, size=jobs)))


def make_problem(broken_greedy: bool = False, name: str = "toy-two-machines") -> Problem:
    # 4. register the problem and its methods
    problem = Problem(name=name, title="two identical machines, min makespan", sense="min",
                      instance_type=TwoMachines, check=check, objective="minimize max(load_0, load_1)",
                      solution_schema='{"machine": [0 or 1 per job]}', spec="(test)", generate=generate,
                      presets={"tiny": {"jobs": 6}}, reference_method=("milp", "brute"),
                      tiny_instances=lambda seed: generate(seed, jobs=6))

    @problem.method("milp", kind="exact", fidelity="ours", uses_backend=True, summary="assignment MILP")
    def milp(instance, ctx):
        n = len(instance.durations)
        b = ModelBuilder("two-machines", "min")
        x = b.add_block("x", n, upper=1, integer=True)        # x_j = 1: job j on machine 1
        t = b.add_block("makespan", 1, cost=1.0)
        d = np.asarray(instance.durations)
        b.add_rows("load1", [np.r_[d, -1.0]], upper=[0.0], cols=[x, t])
        b.add_rows("load0", [np.r_[-d, -1.0]], upper=[-d.sum()], cols=[x, t])
        model = b.build()
        return model_outcome(ctx, model, lambda v: {"machine": [int(round(a)) for a in model.block_values(v, "x")]})

    @problem.method("brute", kind="exact", fidelity="ours", summary="every assignment",
                    applicable=size_limit(lambda inst: len(inst.durations), 14, "jobs", "brute"))
    def brute(instance, ctx):
        d = np.asarray(instance.durations)
        best = min(itertools.product((0, 1), repeat=len(d)),
                   key=lambda a: max(d[np.array(a) == 0].sum(), d[np.array(a) == 1].sum()))
        value = max(d[np.array(best) == 0].sum(), d[np.array(best) == 1].sum())
        return Outcome(solution={"machine": list(best)}, objective=float(value), bound=float(value), status="optimal")

    @problem.method("lpt", kind="approximation", fidelity="ours", summary="longest processing time first",
                    guarantee=Guarantee(form="multiplicative", sense="<=", value=lambda inst: 7 / 6,
                                                 reference="OPT", statement="ALG <= 7/6 OPT (Graham 1969, m = 2)",
                                                 source="classical", proof="docs/architecture.md"))
    def lpt(instance, ctx):
        loads, machine = [0.0, 0.0], [0] * len(instance.durations)
        for j in sorted(range(len(instance.durations)), key=lambda j: -instance.durations[j]):
            k = 1 if broken_greedy else int(loads[1] < loads[0])
            machine[j] = k
            loads[k] += instance.durations[j]
        return Outcome(solution={"machine": machine}, objective=max(loads))

    return problem


@pytest.fixture
def toy():
    problem = register_problem(make_problem())
    yield problem
    unregister_problem(problem.name)


def test_a_registered_toy_problem_gets_the_whole_battery(toy):
    outcome = run_battery(toy)
    failed = {k: v for k, v in outcome.items() if v.startswith("failed")}
    assert not failed, failed
    passed = {k for k, v in outcome.items() if v == "passed"}
    # every promise ran on the toy's methods, the guarantee included
    for check_name in ("result_record", "checker_agrees", "never_beats_reference", "deterministic", "typed_errors"):
        assert f"toy-two-machines/lpt::{check_name}" in passed
    assert "toy-two-machines/lpt::guarantee_holds" in passed
    assert "toy-two-machines/milp::time_limit_honesty[highs]" in passed
    assert "toy-two-machines::instance_round_trip" in passed
    # the solve, check and CLI-facing API work on it too
    inst = toy.tiny_instances(0)
    assert optsched.solve(inst, "milp").objective == optsched.solve(inst, "brute").objective


def test_the_battery_catches_a_worse_answer():
    broken = register_problem(make_problem(broken_greedy=True))
    try:
        outcome = run_battery(broken)
    finally:
        unregister_problem(broken.name)
    assert outcome["toy-two-machines/lpt::guarantee_holds"].startswith("failed")
    assert outcome["toy-two-machines/milp::checker_agrees"] == "passed"


# -- the one-folder promise, end to end --------------------------------------------------------------
#
# A copy of the package gets one new folder, ``optsched/problems/toy_two_machines/``, and nothing
# else; a fresh interpreter on that copy then meets the problem in the command line, the
# conformance battery, the docs (the guarantee table and the site's problem page), the picture, the
# quality sets and ``optsched repro``. Generated docs committed to the repository
# (``docs/guarantees.md``, ``docs/img/``) are regenerated by their commands (``python -m
# optsched.docs_build``, ``make figures``); the copy is not regenerated: the rendering is shown instead.

TOY_FOLDER = {
    "__init__.py": '''
"""``toy-two-machines``: jobs on two identical machines, minimum makespan (a folder a test adds)."""
from . import methods  # noqa: F401  (registers the methods)
from .problem import PROBLEM
''',
    "instance.py": '''
from __future__ import annotations

from dataclasses import dataclass

from optsched.core.instance import Instance
from optsched.core.registry import CheckReport


@dataclass(frozen=True)
class TwoMachines(Instance):
    problem = "toy-two-machines"
    durations: tuple[float, ...]

    def validate(self):
        self.require(len(self.durations) >= 1, "durations", "must list at least one job")
        self.require_nonnegative("durations", self.durations)


def check(instance, solution) -> CheckReport:
    machine = solution.get("machine") if isinstance(solution, dict) else None
    if not isinstance(machine, list) or len(machine) != len(instance.durations):
        return CheckReport(False, None, ["machine must list one machine (0 or 1) per job"])
    bad = [j for j, m in enumerate(machine) if m not in (0, 1)]
    loads = [sum(d for d, m in zip(instance.durations, machine) if m == k) for k in (0, 1)]
    return CheckReport.from_violations([f"job {j}: machine {machine[j]!r} is not 0 or 1" for j in bad], max(loads))
''',
    "generate.py": '''
from optsched.core.rng import make_rng

from .instance import TwoMachines

PRESETS = {"tiny": {"jobs": 6}}


def generate(seed, *, jobs=6):
    rng = make_rng(seed, "toy-two-machines")
    return TwoMachines(durations=tuple(float(x) for x in rng.integers(1, 10, size=jobs)))
''',
    "problem.py": '''
from optsched.core.params import Interval
from optsched.core.quality_sets import QualitySet, quality_cases
from optsched.core.registry import Option, Problem, register_problem

from .generate import PRESETS, generate
from .instance import TwoMachines, check

PROBLEM = register_problem(Problem(
    name="toy-two-machines", title="two identical machines, min makespan", sense="min",
    instance_type=TwoMachines, check=check, objective="minimize max(load_0, load_1)",
    solution_schema='{"machine": [0 or 1 per job]}', spec="docs/architecture.md",
    generate=generate, presets=PRESETS,
    generator_options={"jobs": Option(int, 6, "number of jobs", bounds=Interval(1, 1000))},
    default_method="lpt", reference_method="brute", tiny_instances=lambda seed: generate(seed),
    quality=QualitySet(("brute",), quality_cases([("tiny", range(2))])),
))
''',
    "methods.py": '''
import itertools

from optsched.core.registry import Guarantee, Outcome, size_limit

from .problem import PROBLEM


def _makespan(durations, machine):
    return max(sum(d for d, m in zip(durations, machine) if m == k) for k in (0, 1))


@PROBLEM.method("brute", kind="exact", fidelity="ours", summary="every assignment",
                applicable=size_limit(lambda inst: len(inst.durations), 14, "jobs", "brute"))
def brute(instance, ctx):
    best = min(itertools.product((0, 1), repeat=len(instance.durations)),
               key=lambda a: _makespan(instance.durations, a))
    value = float(_makespan(instance.durations, best))
    return Outcome(solution={"machine": list(best)}, objective=value, bound=value, status="optimal")


@PROBLEM.method("lpt", kind="approximation", fidelity="ours", summary="longest processing time first",
                guarantee=Guarantee(form="multiplicative", sense="<=", value=lambda inst: 7 / 6, reference="OPT",
                                    statement="ALG <= 7/6 OPT (Graham 1969, m = 2)", source="classical",
                                    proof="docs/architecture.md"))
def lpt(instance, ctx):
    loads, machine = [0.0, 0.0], [0] * len(instance.durations)
    for j in sorted(range(len(instance.durations)), key=lambda j: -instance.durations[j]):
        k = int(loads[1] < loads[0])
        machine[j] = k
        loads[k] += instance.durations[j]
    return Outcome(solution={"machine": machine}, objective=max(loads))
''',
    "plot.py": '''
from optsched.plotting.style import color_for, legend, new_figure

EXAMPLE = {"seed": 1, "preset": "tiny", "method": "lpt"}


def draw(instance, result):
    fig, ax = new_figure()
    starts = [0.0, 0.0]
    for j, (d, m) in enumerate(zip(instance.durations, result.solution["machine"])):
        ax.barh(m, d, left=starts[m], color=color_for(j), edgecolor="black")
        starts[m] += d
    ax.set_yticks([0, 1], ["machine 0", "machine 1"])
    ax.set_xlabel("time (s)")
    ax.set_title(f"{result.method}: makespan {result.objective:g} s")
    legend(ax, [(f"job {j}", color_for(j)) for j in range(len(instance.durations))])
    fig.optsched = {"bars": len(instance.durations)}
    return fig
''',
    "repro.py": '''
"""The toy's own experiment: lpt against brute force on a few seeds."""
from optsched.core.solving import solve
from optsched.problems.toy_two_machines.generate import generate


def cells(quick):
    return [{"seed": s} for s in range(2 if quick else 4)]


def run_cell(params, seed):
    inst = generate(params["seed"])
    return {"seed": params["seed"], "lpt": solve(inst, "lpt").objective, "opt": solve(inst, "brute").objective}


def report(rows, out):
    out.table("ratios", [dict(r, ratio=r["lpt"] / r["opt"]) for r in rows], caption="lpt / OPT")


EXPERIMENT = dict(id="TOY", title="toy: lpt against brute force", paper="Graham 1969", formulation="[ours]",
                  cells=cells, run_cell=run_cell, report=report, methods=("toy-two-machines/lpt",))
''',
}

#: runs in a fresh interpreter on the copy (cwd: a work folder with an empty paper_repro/)
TOY_CHECKS = '''
import json, sys
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import optsched
from optsched.cli import main
from optsched.core.conformance import run_battery
from optsched.docs_build import guarantee_table
from optsched.quality import quality_sets
from optsched.repro.discovery import load_script


if __name__ == "__main__":  # the repro workers (spawned) import this file
    assert optsched.get_problem("toy-two-machines").package == "optsched.problems.toy_two_machines"
    codes = {
        "generate": main(["generate", "toy-two-machines", "--preset", "tiny", "--seed", "1", "-o", "i.json"]),
        "solve": main(["solve", "toy-two-machines", "i.json", "--method", "lpt", "-o", "r.json"]),
        "check": main(["check", "toy-two-machines", "i.json", "r.json"]),
        "plot": main(["plot", "toy-two-machines", "i.json", "r.json", "-o", "toy.svg"]),
        "repro": main(["repro", "--only", "TOY", "--quick", "--jobs", "1", "--out", "results"]),
    }
    site = load_script(sys.argv[1])
    page = site.problem_page(optsched.get_problem("toy-two-machines"), Path(sys.argv[2]))
    print(json.dumps({"codes": codes, "battery": run_battery(optsched.get_problem("toy-two-machines")),
                      "guarantees": guarantee_table(), "page": page, "quality": sorted(quality_sets()),
                      "tables": sorted(p.name for p in Path("results").rglob("*.md"))}))
'''


def test_a_new_folder_alone_puts_the_problem_everywhere(tmp_path):
    import filecmp
    import json
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    copy = tmp_path / "src"
    shutil.copytree(root / "optsched", copy / "optsched", ignore=shutil.ignore_patterns("__pycache__"))
    folder = copy / "optsched" / "problems" / "toy_two_machines"
    folder.mkdir()
    for name, text in TOY_FOLDER.items():
        (folder / name).write_text(text.lstrip())
    # the copy differs from the package by the new folder only
    diff = filecmp.dircmp(root / "optsched" / "problems", copy / "optsched" / "problems",
                          ignore=["__pycache__"])
    assert diff.right_only == ["toy_two_machines"] and not diff.left_only and not diff.diff_files
    work = tmp_path / "work"
    (work / "paper_repro").mkdir(parents=True)
    (work / "checks.py").write_text(TOY_CHECKS)
    env = {**os.environ, "PYTHONPATH": str(copy), "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, "-m", "optsched.cli", "problems"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "toy-two-machines" in proc.stdout
    proc = subprocess.run([sys.executable, "checks.py", str(root / "docs" / "_ext" / "optsched_site.py"),
                           str(root / "docs")], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["codes"] == {"generate": 0, "solve": 0, "check": 0, "plot": 0, "repro": 0}, proc.stderr[-3000:]
    assert (work / "toy.svg").stat().st_size > 0
    battery = out["battery"]
    assert not [k for k, v in battery.items() if v.startswith("failed")], battery
    assert battery["toy-two-machines/lpt::guarantee_holds"] == "passed"
    assert battery["toy-two-machines/lpt::never_beats_reference"] == "passed"
    assert "| `toy-two-machines` / `lpt` | ALG <= 7/6 OPT" in out["guarantees"]
    assert out["page"].startswith("# `toy-two-machines`") and "[architecture](../../architecture.md)" in out["page"]
    assert "toy-two-machines" in out["quality"]
    assert "TOY_ratios.md" in out["tables"]
    index = next((work / "results").rglob("index.md")).read_text()
    assert "optsched/problems/toy_two_machines/repro.py" in index
