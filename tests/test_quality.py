"""Quality that cannot silently degrade: every approximation, heuristic, online and baseline method
is re-run on the fixed instances of ``instances/quality/<problem>.json`` and must not be worse than
its recorded value beyond the table's tolerance (``optsched.quality.RELATIVE_TOLERANCE``: 1e-6
relative, the core's tolerance between two computations of one objective, because every method
is deterministic for its seed and the test repeats the recorded computation exactly).

Regenerate the tables with ``make instances`` after a deliberate change and review the diff.
``tests/quality_mutations.py`` disables each documented step of the methods one at a time and
shows that this test (or another one) catches it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import optsched
from optsched.quality import load_table, quality_sets, quality_methods, ratio, regressions, worse_than

ROOT = Path(__file__).resolve().parents[1] / "instances" / "quality"


@pytest.mark.parametrize("problem", sorted(quality_sets()))
def test_no_method_worse_than_recorded(problem):
    table = load_table(ROOT, problem)
    assert table["problem"] == problem
    bad = regressions(table)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("problem", sorted(quality_sets()))
def test_table_covers_every_non_exact_method(problem):
    table = load_table(ROOT, problem)
    recorded = set(table["rows"][0]["methods"])
    assert set(quality_methods(optsched.get_problem(problem))) == recorded
    for row in table["rows"]:
        assert row["instance"]["generator"] and row["instance"]["preset"] and "seed" in row["instance"]
        assert row["ref"]["method"] and row["ref"]["status"] in ("optimal", "feasible")
        for name, rec in row["methods"].items():
            if rec.get("ratio") is not None:
                # never better than the exact optimum or the proven bound
                assert rec["ratio"] >= 1 - 1e-6, (problem, name, rec)
    assert "optsched_version" in table["provenance"] and table["tolerance"]["why"]


def test_every_recorded_method_has_a_ratio_somewhere():
    for problem in quality_sets():
        table = load_table(ROOT, problem)
        for name, summary in table["summary"].items():
            assert summary["instances"] >= 2, (problem, name, "measured on fewer than two instances")


def test_worse_than_respects_sense_and_tolerance():
    assert worse_than("min", 10.0 + 1e-4, 10.0)
    assert not worse_than("min", 10.0 + 1e-6, 10.0)
    assert not worse_than("min", 9.0, 10.0)
    assert worse_than("max", 10.0 - 1e-4, 10.0)
    assert not worse_than("max", 11.0, 10.0)
    assert worse_than("max", None, 10.0)
    assert worse_than("min", float("nan"), 10.0)
    assert ratio("min", 12.0, 10.0) == pytest.approx(1.2)
    assert ratio("max", 8.0, 10.0) == pytest.approx(1.25)
    assert ratio("max", 0.0, 10.0) is None


def test_a_worse_method_is_caught(monkeypatch):
    """The harness itself: a method whose objective gets 10% worse is reported."""
    import optsched.quality as q

    table = load_table(ROOT, "mknap")
    real = q.run_method

    def worse(instance, method, seed=0, options=None):
        r = real(instance, method, seed, options)
        if method == "greedy":
            r.objective *= 0.9
        return r

    monkeypatch.setattr(q, "run_method", worse)
    bad = regressions(table, methods=["greedy"])
    assert len(bad) == len(table["rows"])


# Each documented step that a method exposes as an option, switched off: the recorded instances
# must show the difference (a worse value on at least one of them). Steps without an option are
# switched off by source mutations in tests/mutations.py (category "step").
STEP_OPTIONS = [
    # greedy polish of every inner solution, seen on the reconstructed loop alone (the
    # certification that follows it would otherwise hide the difference)
    ("smd", "smd", {"polish": False, "target_gap": float("inf")}),
    ("smd", "lp-round", {"fill": False}),            # greedy fill of the rounded jobs
    ("ps-locality", "rr", {"trials": 1}),            # best of trials
    ("srpt", "a-srpt", {"preemption": False}),       # preemption by the virtual SRPT order
]


@pytest.mark.parametrize("problem,method,options", STEP_OPTIONS, ids=[f"{p}-{m}-{next(iter(o))}" for p, m, o in STEP_OPTIONS])
def test_each_optional_step_changes_a_recorded_result(problem, method, options):
    table = load_table(ROOT, problem)
    assert regressions(table, methods=[method], options=options), \
        f"switching off {options} of {method} changes no recorded value: the instances do not exercise it"


@pytest.mark.parametrize("problem", sorted(quality_sets()))
def test_generator_still_gives_the_stored_instances(problem):
    """The tables store their instances; the generator must still produce them (first row: cheap)."""
    from optsched.quality import make_instance

    row = load_table(ROOT, problem)["rows"][0]["instance"]
    assert make_instance(problem, row["preset"], row["seed"], row["options"]).sha256() == row["sha256"]
