"""``optsched.compare`` on rar-makespan: the default reference is the first of its reference methods that applies."""

from __future__ import annotations

import optsched


def test_default_reference_takes_the_first_method_that_applies():
    """rar-makespan's reference is ('brute', 'milp'): brute does not apply to the small preset,
    so the MILP's optimum is the reference."""
    problem = optsched.get_problem("rar-makespan")
    inst = optsched.generate("rar-makespan", seed=1, preset="small")
    assert not problem.get_method("brute").applicable(inst)[0]
    frame = optsched.compare(inst, ["ff"], time_limit=60)
    assert frame.loc[0, "reference_kind"] in ("optimum", "bound")
