"""An instance drawn from DNN profiles is the same bytes wherever the profiles directory lies: the
draws and the provenance depend on which profiles, not on their path (another checkout, another
machine)."""

import shutil
from pathlib import Path

import pytest

from optsched.problems.smd.generate import generate

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.skipif(not any(MODELS.glob("*.json")), reason="the repository's models/*.json profiles are absent")
@pytest.mark.parametrize("seed", [0, 3])
def test_same_profiles_elsewhere_give_the_same_instance(tmp_path, seed):
    elsewhere = tmp_path / "deep" / "copy"
    shutil.copytree(MODELS, elsewhere)
    here, there = generate(seed, profiles=str(MODELS)), generate(seed, profiles=str(elsewhere))
    here.save(tmp_path / "a.json")
    there.save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert str(MODELS) not in here.provenance and "resnet50" in here.provenance


def test_other_profiles_give_other_draws(tmp_path):
    """The profile set is part of the seed: one profile alone draws differently from the directory."""
    one = sorted(MODELS.glob("*.json"))[:1]
    if not one:
        pytest.skip("the repository's models/*.json profiles are absent")
    assert generate(0, profiles=str(one[0])) != generate(0, profiles=str(MODELS))
