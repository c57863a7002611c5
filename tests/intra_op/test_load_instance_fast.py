"""``optsched.load_instance(path)`` (the problem found in the file) reads a stored intra-op instance
through the type's own reader (``IntraOpInstance.load_fast``: arrays, not Python lists of 10^8
numbers), gives the instance the generic reader gives, and leaves every other file to it."""

from __future__ import annotations

import json

import pytest

import optsched
from optsched.core.errors import InvalidInputError, InvalidInstanceError
from optsched.core.jsonfile import head_problem
from optsched.problems.intra_op import IntraOpInstance, generate


@pytest.fixture
def calls(monkeypatch):
    seen = []
    original = IntraOpInstance.load_fast.__func__

    def spy(cls, path):
        inst = original(cls, path)
        seen.append(inst is not None)
        return inst

    monkeypatch.setattr(IntraOpInstance, "load_fast", classmethod(spy))
    return seen


def test_load_instance_takes_the_fast_reader(tmp_path, calls):
    inst = generate(2, graph="random", nodes=12, strategies=3, memory_ratio=1.1)
    path = tmp_path / "i.json"
    inst.save(path)
    assert head_problem(path) == "intra-op"
    got = optsched.load_instance(path)
    assert calls == [True] and got == inst and got.sha256() == inst.sha256()
    assert optsched.load_instance(path, problem="intra-op") == inst and calls == [True, True]


def test_other_files_take_the_generic_reader(tmp_path, calls):
    inst = generate(2, graph="random", nodes=12, strategies=3, memory_ratio=1.1)
    path = tmp_path / "i.json"
    inst.save(path)
    # another problem insisted on (a name no problem has: this folder names no other problem):
    # the generic reader's error naming both
    with pytest.raises(InvalidInstanceError, match="is an instance of 'intra-op'"):
        optsched.load_instance(path, problem="another-problem")
    # another key order (not optsched's head): the generic reader gives the same instance
    data = json.loads(path.read_text())
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"problem": data.pop("problem"), **data}))
    assert head_problem(other) is None and optsched.load_instance(other) == inst
    # a file naming an unknown problem: the generic reader's typed error
    odd = tmp_path / "odd.json"
    odd.write_text('{"format_version": 1, "problem": "no-such-problem", "x": [1]}')
    assert head_problem(odd) == "no-such-problem"
    with pytest.raises(InvalidInputError, match="no-such-problem"):
        optsched.load_instance(odd)
    assert calls == []
