"""Values the pipeline-adaptive format cannot mean are refused when the file is read: an infinite
switch cost or period (JSON's ``Infinity`` extension) loaded and then crashed ``solve -o`` while
writing the record."""

from __future__ import annotations

import json

import pytest

import optsched
from optsched.cli import main
from optsched.core.errors import InvalidInstanceError


@pytest.mark.parametrize("field,text", [("switch_cost", "Infinity"), ("switch_cost", "-1"),
                                        ("period", "Infinity"), ("period", "0")])
def test_an_infinite_switch_cost_or_period_is_refused(tmp_path, capsys, field, text):
    data = optsched.generate("pipeline-adaptive", seed=0, preset="tiny").to_json()
    body = json.dumps(data).replace(f'"{field}": {json.dumps(data[field])}', f'"{field}": {text}')
    assert f'"{field}": {text}' in body
    path = tmp_path / "instance.json"
    path.write_text(body)
    with pytest.raises(InvalidInstanceError) as err:
        optsched.load_instance(path)
    assert err.value.field == field
    out = tmp_path / "result.json"
    assert main(["solve", "pipeline-adaptive", str(path), "--quiet", "-o", str(out)]) == 2
    err_text = capsys.readouterr().err.strip()
    assert field in err_text and len(err_text.splitlines()) == 1 and "Traceback" not in err_text
    assert not out.exists()
