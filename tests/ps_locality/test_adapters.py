"""The adversary adapter of ps-locality."""

import numpy as np

from optsched.problems.ps_locality.adversary import PsLocalityAdversary


def test_decoded_inputs_are_valid_and_encode_round_trips():
    adapter = PsLocalityAdversary("online-rr")
    rng = np.random.default_rng(0)
    for _ in range(3):
        inst = adapter.decode(rng.random(len(adapter.bounds)))
        again = adapter.decode(adapter.encode(inst))
        # the same input up to float rounding of the encoding (logs and powers: ~1e-15 relative)
        assert np.allclose(adapter.encode(again), adapter.encode(inst), rtol=0, atol=1e-9)
        assert type(again) is type(inst)
