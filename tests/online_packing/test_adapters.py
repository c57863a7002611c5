"""The adversary adapter of online-packing."""

import numpy as np

from optsched.online.adversary import search
from optsched.problems.online_packing.adversary import PackingAdversary


def test_decoded_inputs_are_valid_and_encode_round_trips():
    adapter = PackingAdversary("threshold", resources=3, requests=6)
    rng = np.random.default_rng(0)
    for _ in range(3):
        inst = adapter.decode(rng.random(len(adapter.bounds)))
        again = adapter.decode(adapter.encode(inst))
        # the same input up to float rounding of the encoding (logs and powers: ~1e-15 relative)
        assert np.allclose(adapter.encode(again), adapter.encode(inst), rtol=0, atol=1e-9)
        assert type(again) is type(inst)


def test_packing_adapter_finds_a_bad_input_for_greedy():
    # greedy fills with cheap requests: even a short search finds OPT / ALG > 2 with U/L = 16
    # (30 requests of up to 0.1: enough supply to exceed the capacities)
    found = search(PackingAdversary("greedy", resources=2, requests=30, family="increasing"),
                   strategy="local", budget=60, seed=0)
    assert found.worst_ratio > 2.0
