"""The commit-rate checker's constraints (the scheme's schema: commits per period in 1..max_commits,
staleness >= 0, local steps >= 1, exactly the scheme's keys), each violated alone by a minimal
change of a valid scheme of the tiny instance (docs/checkers.md)."""

import pytest

import optsched
from tests.checker_helpers import assert_feasible, assert_only

P = "commit-rate"


@pytest.fixture(scope="module")
def inst():
    return optsched.get_problem(P).tiny_instances(0)


def test_valid_schemes(inst):
    for scheme in ({"scheme": "adsp", "commits": [1, inst.max_commits]}, {"scheme": "bsp"},
                   {"scheme": "ssp", "staleness": 0}, {"scheme": "fixed", "local_steps": 1}):
        assert_feasible(P, inst, scheme)


@pytest.mark.parametrize("scheme,pattern", [
    ({"scheme": "adsp", "commits": [0]}, r"^commits per period must be in 1\.\."),
    ({"scheme": "adsp", "commits": ["max"]}, r"^commits must be a non-empty list of integers$"),
    ({"scheme": "adsp", "commits": []}, r"^commits must be a non-empty list of integers$"),
    ({"scheme": "ssp", "staleness": -1}, r"^staleness must be an integer >= 0$"),
    ({"scheme": "fixed", "local_steps": 0}, r"^local_steps must be an integer >= 1$"),
    ({"scheme": "bsp", "staleness": 1}, r"^scheme 'bsp' takes exactly the keys"),
    ({"scheme": "async"}, r"^scheme must be one of"),
    ({"scheme": ["adsp"]}, r"^scheme must be a string"),
])
def test_each_rule_alone(inst, scheme, pattern):
    assert_only(P, inst, scheme, pattern)


def test_commits_above_the_bandwidth_cap(inst):
    assert_only(P, inst, {"scheme": "adsp", "commits": [inst.max_commits + 1]},
                rf"^commits per period must be in 1\.\.{inst.max_commits} \(bandwidth cap\), got {inst.max_commits + 1}$")
