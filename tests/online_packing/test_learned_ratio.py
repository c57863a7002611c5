"""online-packing's learned method serves the U/L its bundled policy was trained for only (the same
rule as the one-resource knapsack's learned method): any other U/L is refused with a typed error."""

import json

import pytest

import optsched
from optsched.core.errors import NotApplicable
from optsched.problems.online_packing import OnlinePackingInstance
from optsched.problems.online_packing import learned as pk


def _stream(lower, upper):
    return OnlinePackingInstance(resources=2, lower=lower, upper=upper, eps=0.25,
                                 demands=[[0.25, 0.0], [0.0, 0.25], [0.25, 0.25], [0.1, 0.2]] * 2,
                                 values=[lower, lower, upper, upper, lower, upper, upper, upper])


def test_learned_refuses_an_untrained_ratio():
    with pytest.raises(NotApplicable, match=r"U/L = 2 is not the trained ratio.*U/L = 16 only"):
        optsched.solve(_stream(1.0, 2.0), "learned")
    with pytest.raises(NotApplicable, match=r"U/L = 4 "):
        optsched.solve(optsched.generate("online-packing", seed=0, preset="tiny"), "learned")
    with pytest.raises(NotApplicable, match=r"U/L = 32 "):
        optsched.solve(_stream(0.5, 16.0), "learned")


def test_learned_serves_the_trained_ratio_on_any_scale(tmp_path):
    # 1.6 / 0.1 = 16.000000000000004: the rounding of U/L is not a different ratio
    r = optsched.solve(_stream(0.1, 1.6), "learned")
    assert r.status == "feasible" and r.stats["policy"] == "bundled (m = 2, U/L = 16)"
    # a policy file given as option weights is the user's choice for any U/L
    r = optsched.solve(_stream(1.0, 2.0), "learned", options={"weights": str(pk.WEIGHTS_PATH)})
    assert r.status == "feasible" and r.stats["policy"] == str(pk.WEIGHTS_PATH)


def test_the_trained_ratio_is_the_stored_policys():
    config = json.loads(pk.WEIGHTS_PATH.read_text())["config"]
    assert config["upper"] / config["lower"] == pk.TRAINED_RATIO


def test_cli_refuses_an_untrained_ratio_in_one_line(tmp_path, capsys):
    from optsched.cli import main

    path = tmp_path / "i.json"
    path.write_text(_stream(1.0, 2.0).dumps())
    assert main(["solve", "online-packing", str(path), "--method", "learned"]) == 2
    err = capsys.readouterr().err.strip()
    assert "U/L = 2" in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_why_the_untrained_ratio_is_refused():
    # the bundled U/L = 16 policy forced onto U/L = 2 (option weights) concedes more than accepting
    # everything on the certified staircase: reusing it silently would report a worse-than-greedy method
    from optsched.problems.online_packing.certified import certify

    forced = certify("learned", 2, 1.0, 2.0, grids=(20,), copies=(16,), tracking=False, resource=1, milp_max=0,
                     options={"weights": str(pk.WEIGHTS_PATH)})
    greedy = certify("greedy", 2, 1.0, 2.0, grids=(20,), copies=(16,), tracking=False, resource=1, milp_max=0)
    assert forced["found"] > greedy["found"], (forced["found"], greedy["found"])
