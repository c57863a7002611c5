"""The analytic calculator and ``optsched models``: known parameter counts, determinism."""

from __future__ import annotations

import pytest

from optsched.cli import main
from optsched.workloads.analytic import ARCHITECTURES, profile, resnet50, transformer, vgg16
from optsched.workloads.profiles import load_profile


@pytest.mark.parametrize("name,params,rel", [
    # published parameter counts; tolerance: biases/layer norms the calculator simplifies (BN
    # running statistics are not parameters) and the untied LM head added to the Transformers
    ("resnet50", 25.56e6, 0.01), ("vgg16", 138.36e6, 0.01)])
def test_cnn_parameter_counts(name, params, rel):
    p = profile(name)
    assert sum(p.parameter_bytes) / 4 == pytest.approx(params, rel=rel)


def test_transformer_block_formula():
    (emb, block, head) = transformer(1, 8, 2, 4, 10)
    assert block.parameters == 12 * 64 + 13 * 8
    assert block.forward_flops == 24 * 4 * 64 + 4 * 16 * 8
    assert emb.parameters == (10 + 4) * 8 and head.parameters == 10 * 8


def test_gpt_sizes():
    # GPT-2 XL has 1.56 B parameters with a tied head; optsched adds an untied 50257 x 1600 head
    gpt2 = sum(profile("gpt2-xl").parameter_bytes) / 4
    assert gpt2 == pytest.approx(1.558e9 + 50257 * 1600, rel=0.01)
    assert sum(profile("gpt3-13b").parameter_bytes) / 4 == pytest.approx(13.1e9, rel=0.02)


def test_time_from_flops():
    p = profile("resnet50")
    arch = ARCHITECTURES["resnet50"]
    flops = sum(l.forward_flops for l in resnet50())
    assert sum(p.forward_s) == pytest.approx(128 * flops / (arch.peak_flops * 0.4), rel=1e-12)
    assert p.backward_s[3] == pytest.approx(2 * p.forward_s[3], rel=1e-12)
    assert len(vgg16()) == 16


def test_models_command_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["models", "--out", str(a)]) == 0
    assert main(["models", "--out", str(b)]) == 0
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(f"{n}.json" for n in ARCHITECTURES)
    for n in names:
        assert (a / n).read_bytes() == (b / n).read_bytes()
        assert load_profile(a / n).name == n[:-5]
