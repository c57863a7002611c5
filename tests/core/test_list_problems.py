"""``optsched.list_problems()``: the registry as a table for people (a pandas DataFrame, one row
per problem), beside the dict of records shared code reads (``optsched.core.registry.problems()``)."""

from __future__ import annotations

import pandas as pd

import optsched
from optsched.core.registry import problems


def test_list_problems_is_a_documented_table_of_every_problem():
    table = optsched.list_problems()
    assert isinstance(table, pd.DataFrame) and optsched.list_problems.__doc__
    registry = problems()
    assert list(table["name"]) == sorted(registry)           # one row per problem, in name order
    assert len(table[:3]) == 3 and list(table[:3]["name"]) == sorted(registry)[:3]
    for row in table.itertuples(index=False):
        p = registry[row.name]
        assert (row.title, row.sense, row.objective) == (p.title, p.sense, p.objective)
        assert row.methods == len(p.methods) and row.reference == ", ".join(p.reference_methods)
        assert set(row.kinds.split(", ")) == {m.kind for m in p.methods.values()}
        assert row.presets.split(", ") == list(p.presets) if p.presets else row.presets == ""


def test_the_registry_stays_a_dict_of_records():
    records = problems()
    assert isinstance(records, dict) and all(name == p.name for name, p in records.items())
    assert optsched.get_problem(next(iter(records))) is records[next(iter(records))]
