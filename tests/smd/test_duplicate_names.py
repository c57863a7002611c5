"""smd's instances refuse duplicate names, naming the duplicate (the core's bulk validation)."""

from __future__ import annotations

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError


def test_duplicate_names_are_rejected_naming_the_duplicate():
    for field in ("jobs",):
        inst = optsched.generate("smd", seed=0, preset="tiny")
        data = inst.to_json()
        entries = data[field]
        assert len(entries) >= 2 and entries[0]["name"] and entries[1]["name"]
        entries[1] = {**entries[1], "name": entries[0]["name"]}
        with pytest.raises(InvalidInstanceError) as err:
            type(inst).from_json(data)
        assert err.value.field == f"{field}[1].name"
