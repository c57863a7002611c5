"""The one JSON reader (``optsched.core.jsonfile.load_json_file``) refuses a key given twice in any
object, naming the key: instances (through the API and the command line) and result records alike;
JSON parsers keep the last value without a word."""

from __future__ import annotations

import json

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.core.jsonfile import _parsed_keys, load_json_file

PROBLEMS = sorted(optsched.core.registry.problems())


def _tiny(problem: str):
    prob = optsched.get_problem(problem)
    return optsched.generate(problem, seed=0, preset="tiny" if "tiny" in prob.presets else None)


def _with_duplicate(text: str, key: str, value) -> str:
    """``text`` (a JSON object) with ``key`` given a second time at its end."""
    body = text.rstrip()
    assert body.endswith("}")
    return body[:-1].rstrip() + f", {json.dumps(key)}: {json.dumps(value)}}}\n"


@pytest.mark.parametrize("problem", PROBLEMS)
def test_an_instance_with_a_key_twice_is_refused_naming_it(problem, tmp_path, capsys):
    inst = _tiny(problem)
    data = inst.to_json()
    key = next(k for k in data if k not in ("format_version", "problem"))
    path = tmp_path / "instance.json"
    path.write_text(_with_duplicate(inst.dumps(), key, data[key]))   # even the same value twice
    with pytest.raises(InvalidInstanceError) as err:
        optsched.load_instance(path)
    assert f"duplicate key {key!r}" in str(err.value)
    assert main(["solve", problem, str(path), "--quiet"]) == 2
    err_text = capsys.readouterr().err.strip()
    assert f"duplicate key {key!r}" in err_text and len(err_text.splitlines()) == 1


def test_a_result_record_with_a_key_twice_is_refused_naming_it(tmp_path, capsys):
    problem = PROBLEMS[0]
    inst = _tiny(problem)
    method = next(m.name for m in optsched.get_problem(problem).methods.values() if not m.uses_backend)
    result = optsched.solve(inst, method)
    path = tmp_path / "result.json"
    path.write_text(_with_duplicate(result.dumps(), "status", "optimal"))
    with pytest.raises(InvalidInstanceError) as err:
        optsched.load_result(path)
    assert "duplicate key 'status'" in str(err.value)
    inst_path = tmp_path / "instance.json"
    inst_path.write_text(inst.dumps())
    assert main(["check", problem, str(inst_path), str(path)]) == 2
    assert "duplicate key 'status'" in capsys.readouterr().err


@pytest.mark.parametrize("text,key", [
    ('{"a": {"b": 1, "b": 2}}', "b"),
    ('[1, 2, [[{"c": 1, "d": 2, "c": 3}]]]', "c"),
    ('{"a": 1, "\\u0061": 2}', "a"),              # the same key, escaped
    ('[{"k": 1}, {"k": 2}, {"x": {"k": 1, "k": 1}}]', "k"),
])
def test_a_nested_or_escaped_duplicate_is_found(tmp_path, text, key):
    path = tmp_path / "d.json"
    path.write_text(text)
    with pytest.raises(InvalidInstanceError) as err:
        load_json_file(path, "demo")
    assert f"duplicate key {key!r}" in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("text", [
    '{"a": "x\\": 1, \\"a\\": ", "b": 1}',     # a key's text inside a string value is no key
    '[{"k": 1}, {"k": 2}, [[{"k": 3}]], 4, "k"]',
    '{"a": [1.5, 2, null, true, "s"], "b": {"a": {}}}',
])
def test_repeated_key_texts_in_different_objects_are_fine(tmp_path, text):
    path = tmp_path / "d.json"
    path.write_text(text)
    assert load_json_file(path, "demo") == json.loads(text)


def test_the_parsed_key_count_counts_every_object():
    assert _parsed_keys({"a": [{"b": 1, "c": [{"d": 2}]}, 3], "e": {"f": {}}}) == 6
    assert _parsed_keys([[1, 2], [3, [{"x": 1}]]]) == 1
    assert _parsed_keys(5) == 0
