"""Values the intra-op format cannot mean: costs and usages past the core's largest magnitude (a
plan's cost and peak memory are sums of them: 1e308 overflows), integers past 2^53 or given as 1e308
(named with the value given, not the int64 the cast made of it), a limit past the float range."""

from __future__ import annotations

import json
import warnings

import pytest

import optsched
from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import MAX_INTEGER, MAX_MAGNITUDE


def _data():
    return optsched.generate("intra-op", seed=0, preset="tiny").to_json()


def _load(tmp_path, data):
    path = tmp_path / "instance.json"
    path.write_text(json.dumps(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no RuntimeWarning of a cast on the way
        return optsched.load_instance(path)


@pytest.mark.parametrize("field", ["cost", "usage", "edge_cost"])
@pytest.mark.parametrize("value", [1e308, MAX_MAGNITUDE * 2])
def test_a_cost_or_usage_past_the_largest_magnitude_is_refused(tmp_path, field, value):
    data = _data()
    data[field][1] = value
    with pytest.raises(InvalidInstanceError) as err:
        _load(tmp_path, data)
    assert err.value.field == f"{field}[1]" and err.value.got == value


def test_a_cost_at_the_largest_magnitude_is_accepted(tmp_path):
    data = _data()
    data["cost"][0] = MAX_MAGNITUDE
    assert _load(tmp_path, data).cost[0] == MAX_MAGNITUDE


@pytest.mark.parametrize("field", ["edge_u", "edge_v", "start", "end", "num_strategies"])
@pytest.mark.parametrize("value", [1e308, float(2 ** 60), MAX_INTEGER + 1, 2 ** 64 - 1, 2 ** 70])
def test_an_integer_entry_past_2_53_names_the_value_given(tmp_path, field, value):
    data = _data()
    data[field][0] = value
    with pytest.raises(InvalidInstanceError) as err:
        _load(tmp_path, data)
    assert err.value.field == f"{field}[0]" and err.value.got == value
    assert "-9223372036854775808" not in str(err.value)


@pytest.mark.parametrize("value", [10 ** 400, 1e308, -1.0])
def test_a_usage_limit_out_of_range_is_refused(tmp_path, value):
    data = _data()
    data["usage_limit"] = value
    with pytest.raises(InvalidInstanceError) as err:
        _load(tmp_path, data)
    assert err.value.field == "usage_limit"
