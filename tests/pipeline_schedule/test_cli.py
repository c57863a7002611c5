"""The uniform CLI on pipeline-schedule: exit statuses 0 / 1 / 2 / 3 as docs/cli.md fixes them."""

from __future__ import annotations

import json

from optsched.cli import main


def write(path, data):
    path.write_text(json.dumps(data))
    return str(path)


def test_generate_solve_check_round_trip(tmp_path, capsys):
    inst = str(tmp_path / "inst.json")
    assert main(["generate", "pipeline-schedule", "--seed", "1", "--preset", "hetero-small", "-o", inst]) == 0
    res = str(tmp_path / "res.json")
    assert main(["solve", "pipeline-schedule", inst, "--method", "list", "-o", res]) == 0
    assert main(["check", "pipeline-schedule", inst, res]) == 0
    assert main(["solve", "pipeline-schedule", inst, "--method", "kfkb", "--option", "group_size=1"]) == 0
    assert "feasible" in capsys.readouterr().out


def test_generator_options_on_the_command_line(tmp_path):
    inst = tmp_path / "inst.json"
    assert main(["generate", "pipeline-schedule", "--stages", "5", "--microbatches", "6", "--cap", "3",
                 "-o", str(inst)]) == 0
    data = json.loads(inst.read_text())
    assert len(data["forward"]) == 5 and data["microbatches"] == 6 and data["inflight_cap"] == [3] * 5


def test_schedule_above_cap_is_not_applicable_exit_2(tmp_path, capsys):
    # the instance is feasible (list solves it): exit 2 "does not apply", not 3 "infeasible"
    inst = str(tmp_path / "inst.json")
    main(["generate", "pipeline-schedule", "--preset", "hetero-small", "-o", inst])
    assert main(["solve", "pipeline-schedule", inst, "--method", "gpipe"]) == 2
    assert "does not apply" in capsys.readouterr().err
    assert main(["solve", "pipeline-schedule", inst, "--method", "list"]) == 0


def test_invalid_instances_exit_2(tmp_path, capsys):
    inst = tmp_path / "inst.json"
    main(["generate", "pipeline-schedule", "--stages", "2", "--microbatches", "2", "-o", str(inst)])
    data = json.loads(inst.read_text())
    for change in ({"backward": [1.0, -0.5]}, {"inflight_cap": [0, 1]}):
        bad = write(tmp_path / "bad.json", {**data, **change})
        assert main(["solve", "pipeline-schedule", bad, "--method", "list"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("backward[1]" in err or "inflight_cap[0]" in err)
    assert main(["generate", "pipeline-schedule", "--cap", "0"]) == 2
    assert main(["solve", "pipeline-schedule", str(inst), "--method", "kfkb", "--option", "group_size=0"]) == 2


def test_check_cycle_and_cap_violation_exit_1(tmp_path, capsys):
    inst = str(tmp_path / "inst.json")
    main(["generate", "pipeline-schedule", "--stages", "2", "--microbatches", "2", "--cap", "1", "-o", inst])
    cycle = write(tmp_path / "cycle.json", {"order": [[["F", 0], ["B", 0], ["F", 1], ["B", 1]],
                                                      [["F", 1], ["F", 0], ["B", 0], ["B", 1]]]})
    assert main(["check", "pipeline-schedule", inst, cycle]) == 1  # infeasible, well-formed: 1 as everywhere
    assert "precedence cycle" in capsys.readouterr().out
    over = write(tmp_path / "over.json", {"order": [[["F", 0], ["F", 1], ["B", 0], ["B", 1]],
                                                    [["F", 0], ["B", 0], ["F", 1], ["B", 1]]]})
    assert main(["check", "pipeline-schedule", inst, over]) == 1
    assert "cap 1" in capsys.readouterr().out
