"""Device specifications and Gavel throughputs the hetero-sharding generator cannot mean: an empty
count (``v100:``), a throughput that is NaN, infinite, true/false or past the largest magnitude."""

from __future__ import annotations

import json

import pytest

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.problems.hetero_sharding.generate import gavel_device_flops, parse_devices


@pytest.mark.parametrize("spec", ["v100:", "v100:2,k80:", "v100:0", "v100:x", ",v100"])
def test_a_device_spec_without_a_count_is_refused(spec):
    with pytest.raises(InvalidOptionError) as err:
        parse_devices(spec)
    assert err.value.field == "devices"


def test_a_device_without_a_colon_counts_once():
    assert parse_devices("v100:2,k80") == ["v100", "v100", "k80"]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "true", "1e308"])
def test_a_gavel_throughput_it_cannot_mean_is_refused(tmp_path, value):
    key = str(("Transformer (batch size 64)", 1))
    text = json.dumps({"v100": {key: {"null": 1.0}}, "k80": {key: {"null": "X"}}}).replace('"X"', value)
    path = tmp_path / "throughputs.json"
    path.write_text(text)
    with pytest.raises(InvalidInstanceError) as err:
        gavel_device_flops(["k80"], path=path)
    assert err.value.field == "job"
