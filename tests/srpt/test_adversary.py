"""The adversary adapter of srpt: a search against the lower bound."""

from __future__ import annotations

import pytest

import optsched
from optsched.online.adversary import search


def test_srpt_adapter_searches_against_the_lower_bound():
    from optsched.problems.srpt.adversary import SrptAdversary

    a = SrptAdversary("fifo", jobs=3, servers=1, gpus_per_server=4)
    found = search(a, strategy="random", budget=12, seed=2)
    assert found.reference == "lower bound" and found.zero_alg == 0
    inst = found.worst_instance
    lb = optsched.solve(inst, "lb").objective
    assert found.worst_ratio == pytest.approx(optsched.solve(inst, "fifo").objective / lb, rel=1e-12)  # replayed
    assert found.worst_ratio >= 1.0 - 1e-9  # LB is a proven lower bound: flow / LB >= 1 up to float sums
    for job in inst.jobs:
        assert 0.5 - 1e-12 <= job.predicted_iterations / job.iterations <= 2.0 + 1e-12  # the input class
    again = a.decode(a.encode(inst))
    def shape(stream):
        return [(j.arrival, j.iterations, j.gpus) for j in stream.jobs]
    assert shape(again) == shape(inst)


def test_srpt_adapter_against_opt():
    # reference "opt": the exact milp per input (2-job streams: it proves OPT on each, without a
    # wall-clock dependence in the outcome); the ratio is ALG / OPT, replayed
    from optsched.problems.srpt.adversary import SrptAdversary

    a = SrptAdversary("fifo", jobs=2, servers=1, gpus_per_server=4, reference="opt", opt_time_limit=60.0)
    found = search(a, strategy="random", budget=6, seed=1)
    assert found.reference.startswith("OPT") and a.proven + a.unproven == found.evaluations
    inst = found.worst_instance
    opt = optsched.solve(inst, "milp")
    assert opt.status == "optimal"
    assert found.worst_ratio == pytest.approx(optsched.solve(inst, "fifo").objective / opt.objective, rel=1e-6)
    assert found.worst_ratio >= 1.0 - 1e-6   # OPT <= ALG (1e-6: the checker's and the solver's tolerances)
    with pytest.raises(ValueError, match="reference"):
        SrptAdversary("fifo", reference="best")
