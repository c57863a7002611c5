"""Quality that cannot silently degrade: every approximation, heuristic, online and baseline method
is re-run on the fixed instances of ``instances/quality/<problem>.json`` and must not be worse than
its recorded value beyond the table's tolerance (``optsched.quality.RELATIVE_TOLERANCE``: 1e-6
relative, the core's tolerance between two computations of one objective, because every method
is deterministic for its seed and the test repeats the recorded computation exactly).

Regenerate the tables with ``make instances`` after a deliberate change and review the diff.
``tests/mutations.py`` (category ``step``) disables each documented step of the methods one at a
time and shows that this test (or another one) catches it; a step that a method exposes as an
option is switched off in the problem's own ``tests/<folder>/test_quality.py``.
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


@pytest.mark.parametrize("sense", ["max", "min"])
def test_a_worse_method_is_caught(monkeypatch, sense):
    """The harness itself: a method whose objective gets 10% worse (by 10% of its size, at least
    0.1) is reported on every row (the first recorded method of the first quality table of that
    sense)."""
    import optsched.quality as q

    problem = next((p for p in sorted(quality_sets()) if optsched.get_problem(p).sense == sense), None)
    if problem is None:
        pytest.skip(f"no quality table of a {sense}imization")
    table = load_table(ROOT, problem)
    method = next(iter(table["rows"][0]["methods"]))
    real = q.run_method

    def worse(instance, name, seed=0, options=None):
        r = real(instance, name, seed, options)
        if name == method and r.objective is not None:
            step = 0.1 * max(1.0, abs(r.objective))
            r.objective += -step if sense == "max" else step
        return r

    monkeypatch.setattr(q, "run_method", worse)
    bad = regressions(table, methods=[method])
    assert len(bad) == len(table["rows"]), (problem, method, bad)


@pytest.mark.parametrize("problem", sorted(quality_sets()))
def test_generator_still_gives_the_stored_instances(problem):
    """The tables store their instances; the generator must still produce them (first row: cheap)."""
    from optsched.quality import make_instance

    row = load_table(ROOT, problem)["rows"][0]["instance"]
    assert make_instance(problem, row["preset"], row["seed"], row["options"]).sha256() == row["sha256"]
