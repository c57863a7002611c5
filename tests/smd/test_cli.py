"""The uniform CLI on smd: generate, solve, check, export; exit statuses 2 and 3."""

from __future__ import annotations

import json

import numpy as np

from optsched.cli import main
from optsched.problems.smd import generate
from optsched.problems.smd.instance import SmdInstance


def test_generate_solve_check_export(tmp_path, capsys):
    inst, res, mps = tmp_path / "i.json", tmp_path / "r.json", tmp_path / "m.mps"
    assert main(["generate", "smd", "--seed", "2", "--preset", "tiny", "--jobs", "4", "-o", str(inst)]) == 0
    assert SmdInstance.load(inst).num_jobs == 4
    for method in ("milp", "smd", "lp-round", "optimus-greedy"):
        assert main(["solve", "smd", str(inst), "--method", method, "-o", str(res)]) == 0
        assert main(["check", "smd", str(inst), str(res)]) == 0
    capsys.readouterr()
    assert main(["solve", "smd", str(inst), "--method", "smd", "--option", "inner=lp-round", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["options"]["inner"] == "lp-round"
    assert main(["export", "smd", str(inst), "-o", str(mps)]) == 0
    assert mps.stat().st_size > 0


def test_infeasible_instance_exits_3(tmp_path, capsys):
    base = generate(0, jobs=2)
    data = base.to_json()
    data["jobs"][0]["deferrable"] = False
    data["capacities"] = (base.smallest_demand[0] - 1).tolist()
    path = tmp_path / "inf.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "smd", str(path), "--method", "smd"]) == 3
    assert "fits in no configuration" in capsys.readouterr().out


def test_non_positive_bandwidth_exits_2(tmp_path, capsys):
    data = generate(0, jobs=2).to_json()
    data["ps_bandwidth"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "smd", str(path)]) == 2
    err = capsys.readouterr().err
    assert "ps_bandwidth" in err and len(err.strip().splitlines()) == 1


def test_violating_solution_exits_1(tmp_path):
    inst = generate(1, jobs=3)
    path, sol = tmp_path / "i.json", tmp_path / "s.json"
    inst.save(path)
    big = [int(j.max_workers) for j in inst.jobs]
    sol.write_text(json.dumps({"workers": big, "parameter_servers": [int(j.max_parameter_servers) for j in inst.jobs]}))
    # every job at its largest configuration needs more than the capacity (tightness 0.5)
    assert np.any(sum(inst.demand(i, w, j.max_parameter_servers) for i, (w, j) in enumerate(zip(big, inst.jobs)))
                  > inst.capacity_array)
    assert main(["check", "smd", str(path), str(sol)]) == 1
