"""The adversary adapter of rar-online, and the guarantee watch on it."""

import numpy as np

from optsched.online.guarantees import attack
from optsched.problems.rar_online.adversary import THEOREM_G_TEMPLATE, RarOnlineAdversary


def test_decoded_inputs_are_valid_and_encode_round_trips():
    adapter = RarOnlineAdversary("gadget")
    rng = np.random.default_rng(0)
    for _ in range(3):
        inst = adapter.decode(rng.random(len(adapter.bounds)))
        again = adapter.decode(adapter.encode(inst))
        # the same input up to float rounding of the encoding (logs and powers: ~1e-15 relative)
        assert np.allclose(adapter.encode(again), adapter.encode(inst), rtol=0, atol=1e-9)
        assert type(again) is type(inst)


def test_gadget_exact_theorem_checked_on_the_theorem_template():
    report = attack(RarOnlineAdversary("gadget-exact", preset=THEOREM_G_TEMPLATE), strategies=("random",),
                    budget=3, seed=0)
    assert report["unchecked_because"] is None
    assert report["checked"] == 3 and report["violations"] == []
