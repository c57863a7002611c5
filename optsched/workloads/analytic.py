"""An analytic per-layer profile calculator and the architectures behind ``models/`` [ours].

For each layer: parameters, forward FLOPs, output activation bytes and stashed activation bytes
per sample, from the architecture alone; times from FLOPs at a stated device throughput:

    forward_s = batch * forward FLOPs / (peak_flops * utilization),  backward_s = 2 * forward_s

(backward = 2 x forward: the two matrix products per forward product, the usual estimate).
Bytes: parameters in fp32 (4 bytes each, PipeDream's convention); activations in the dtype of
the model family (fp16 = 2 bytes for the Transformers, fp32 for the CNNs). The default device is
an NVIDIA V100: 125 TFLOP/s fp16 tensor-core peak for Transformers, 15.7 TFLOP/s fp32 for CNNs,
both at 40% utilization (an assumption stated in every file's ``device`` field).

Formulas (h hidden size, s sequence length, a heads, v vocabulary, f = 4h feed-forward size):

* Transformer block: parameters 12 h^2 + 13 h; forward FLOPs per sequence 24 s h^2 + 4 s^2 h;
  output s h values; stash s h (34 + 5 a s / h) bytes (Korthikanti et al. 2022, 16-bit
  activations, no recomputation).
* Embedding: parameters (v + s) h; FLOPs 2 s h (the position add); output s h.
* LM head (untied [ours]): parameters v h; FLOPs 2 s h v; output s v (the logits).
* Convolution k x k, c_in -> c_out, output H x W: parameters k^2 c_in c_out (+ c_out bias when
  the network has biases); FLOPs 2 k^2 c_in c_out H W; output c_out H W.
  Batch norm adds 2 c_out parameters and 4 c_out H W FLOPs. Linear n_in -> n_out: n_in n_out +
  n_out parameters, 2 n_in n_out FLOPs. Stash of a layer = the sum of its operations' outputs.

>>> p = profile("bert-large")
>>> p.num_layers, p.batch_size
(26, 8.0)
>>> round(sum(p.parameter_bytes) / 4 / 1e6)  # BERT-large: about 335 M parameters (+ untied head)
365
"""

from __future__ import annotations

from dataclasses import dataclass

from optsched.core.errors import UnknownNameError

from .profiles import Profile

__all__ = ["Layer", "ARCHITECTURES", "profile", "transformer", "resnet50", "vgg16"]

PARAM_BYTES = 4


@dataclass(frozen=True)
class Layer:
    """One layer's cost per sample."""

    name: str
    parameters: float
    forward_flops: float
    activation_values: float  # output values crossing a cut after the layer
    stash_bytes: float


def transformer(layers: int, hidden: int, heads: int, seq: int, vocab: int, act_bytes: int = 2) -> list[Layer]:
    h, s, a = float(hidden), float(seq), float(heads)
    out = [Layer("embedding", (vocab + s) * h, 2 * s * h, s * h, s * h * act_bytes)]
    for i in range(layers):
        out.append(Layer(f"block{i}", 12 * h * h + 13 * h, 24 * s * h * h + 4 * s * s * h, s * h,
                         s * h * (34 + 5 * a * s / h)))
    out.append(Layer("lm_head", vocab * h, 2 * s * h * vocab, s * vocab, s * (h + vocab) * act_bytes))
    return out


def _conv(cin, cout, k, hw, bias=False):
    return k * k * cin * cout + (cout if bias else 0), 2.0 * k * k * cin * cout * hw * hw, cout * hw * hw


def resnet50() -> list[Layer]:
    """Stem, 16 bottleneck blocks (one layer each), pooling + classifier; 224 x 224 input."""
    act = 4
    layers = []
    p, f, o = _conv(3, 64, 7, 112)
    p += 2 * 64
    f += 4 * o
    layers.append(Layer("stem", p, f, 64 * 56 * 56, (2 * o + 64 * 56 * 56) * act))  # conv+bn, relu, maxpool
    cin, hw = 64, 56
    for stage, (mid, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)]):
        for b in range(blocks):
            stride = 2 if (b == 0 and stage > 0) else 1
            out_hw = hw // stride
            parts = [_conv(cin, mid, 1, hw), _conv(mid, mid, 3, out_hw), _conv(mid, 4 * mid, 1, out_hw)]
            if b == 0:
                parts.append(_conv(cin, 4 * mid, 1, out_hw))
            p = sum(x[0] for x in parts) + sum(2 * c for c in (mid, mid, 4 * mid) + ((4 * mid,) if b == 0 else ()))  # + BN
            f = sum(x[1] + 4 * x[2] for x in parts)
            stash = sum(2 * x[2] for x in parts) * act
            layers.append(Layer(f"layer{stage + 1}.{b}", p, f, 4 * mid * out_hw * out_hw, stash))
            cin, hw = 4 * mid, out_hw
    layers.append(Layer("pool+fc", 2048 * 1000 + 1000, 2.0 * 2048 * 1000 + 2048 * 49, 1000, (2048 + 1000) * act))
    return layers


def vgg16() -> list[Layer]:
    """13 convolutions (with ReLU), 5 max-pools folded into the preceding convolution, 3 linear
    layers; 224 x 224 input, biases."""
    act = 4
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
    layers, cin, hw, i = [], 3, 224, 0
    for j, c in enumerate(cfg):
        if c == "M":
            continue
        p, f, o = _conv(cin, c, 3, hw, bias=True)
        pooled = j + 1 < len(cfg) and cfg[j + 1] == "M"
        out = o / 4 if pooled else o
        layers.append(Layer(f"conv{i}" + ("+pool" if pooled else ""), p, f, out, (2 * o + (out if pooled else 0)) * act))
        cin, i = c, i + 1
        if pooled:
            hw //= 2
    for k, (a, b) in enumerate([(512 * 7 * 7, 4096), (4096, 4096), (4096, 1000)]):
        layers.append(Layer(f"fc{k}", a * b + b, 2.0 * a * b, b, 2 * b * act))
    return layers


@dataclass(frozen=True)
class Architecture:
    title: str
    build: object
    batch_size: int
    act_bytes: int
    peak_flops: float
    device: str


V100_FP16 = 125e12
V100_FP32 = 15.7e12
UTILIZATION = 0.4

ARCHITECTURES: dict[str, Architecture] = {
    "bert-large": Architecture("BERT-large (24 x 1024, 16 heads, seq 512)",
                               lambda: transformer(24, 1024, 16, 512, 30522), 8, 2, V100_FP16, "V100 fp16"),
    "gpt2-xl": Architecture("GPT-2 XL (48 x 1600, 25 heads, seq 1024)",
                            lambda: transformer(48, 1600, 25, 1024, 50257), 8, 2, V100_FP16, "V100 fp16"),
    "gpt3-13b": Architecture("GPT-3-style 13B (40 x 5120, 40 heads, seq 2048)",
                             lambda: transformer(40, 5120, 40, 2048, 50257), 1, 2, V100_FP16, "V100 fp16"),
    "resnet50": Architecture("ResNet-50 (224 x 224)", resnet50, 128, 4, V100_FP32, "V100 fp32"),
    "vgg16": Architecture("VGG-16 (224 x 224)", vgg16, 128, 4, V100_FP32, "V100 fp32"),
}


def profile(name: str, utilization: float = UTILIZATION) -> Profile:
    """The analytic :class:`~optsched.workloads.profiles.Profile` of architecture ``name``."""
    if name not in ARCHITECTURES:
        raise UnknownNameError("architecture", name, list(ARCHITECTURES))
    arch = ARCHITECTURES[name]
    layers = arch.build()
    rate = arch.peak_flops * utilization
    b = arch.batch_size
    return Profile(
        name=name, batch_size=float(b), layer_names=tuple(l.name for l in layers),
        forward_s=tuple(b * l.forward_flops / rate for l in layers),
        backward_s=tuple(2 * b * l.forward_flops / rate for l in layers),
        parameter_bytes=tuple(PARAM_BYTES * l.parameters for l in layers),
        activation_bytes=tuple(b * l.activation_values * arch.act_bytes for l in layers),
        stash_bytes=tuple(b * l.stash_bytes for l in layers),
        device=f"{arch.device}: {arch.peak_flops / 1e12:g} TFLOP/s peak at {utilization:.0%} utilization",
        provenance=f"optsched analytic calculator (optsched.workloads.analytic): {arch.title}, batch {b}")
