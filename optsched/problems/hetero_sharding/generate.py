"""Generators and importers for ``hetero-sharding``.

* :func:`transformer_program`: HAP's transformer benchmark as stages (per layer: QKV projection,
  attention, output projection, FFN up, FFN down) with data-parallel, ZeRO-like and
  tensor-parallel options. Sizes default to HAP's config.py [code: alibaba/hap config.py]:
  12 layers, emsize 768, nhid 3072, 12 heads, seqlen 128, batch 32 x world. FLOPs of a linear
  layer: 3 x prod(input shape) x out_features [code: HAP ``hap.stat``, fwd + bwd].
* :func:`operator_graph_program`: the stages of a dnn-partitioning operator/layer graph (one stage
  per node in topological order, optionally coarsened), FLOPs from the node's accelerator latency.
* :func:`gavel_device_flops`: device FLOP/s of GPU types scaled by Gavel's measured throughputs.
* :func:`generate`: seeded random instances (and the two templates by name) with ``PRESETS``.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import numpy as np

from optsched.core.data import data_file
from optsched.core import portable
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.instance import MAX_MAGNITUDE
from optsched.core.rng import make_rng
from optsched.workloads.operator_graphs import load_operator_graph

from .instance import Bandwidths, Collective, HeteroShardingInstance, Stage, StageOption

__all__ = ["generate", "PRESETS", "HAP_BANDWIDTH", "HAP_DEVICE_FLOPS", "HAP_HETERO_FLOPS", "HAP_CONFIG",
           "gavel_device_flops", "transformer_program", "operator_graph_program", "tiny_instances",
           "parse_devices", "GAVEL_FILE", "random_instance", "hap_example_flops", "import_operator_graph"]

P = "hetero-sharding"
#: measured collective bandwidths, bytes/s [code: alibaba/hap master.py, measured by profiler.py]
HAP_BANDWIDTH = Bandwidths(all_gather=9463184466.0, all_reduce=5906161310.0, reduce_scatter=9740459122.0,
                           all_to_all=24588140722.0)
#: measured device FLOP/s of HAP's homogeneous run [code: alibaba/hap master.py ``device_flops``]
HAP_DEVICE_FLOPS = 5966645808610.0
#: the two device speeds of HAP's (commented-out) heterogeneous example [code: master.py]
HAP_HETERO_FLOPS = (3858755112937.0, 2149250936815.0)
#: HAP's model configuration [code: alibaba/hap config.py]
HAP_CONFIG = {"layers": 12, "emsize": 768, "nhid": 3072, "heads": 12, "seqlen": 128, "batch_per_device": 32}
GAVEL_FILE = "throughputs/gavel/simulation_throughputs.json"


def gavel_device_flops(types, job: str = "Transformer (batch size 64)", reference_type: str = "v100",
                       reference_flops: float = HAP_DEVICE_FLOPS, path: str | Path | None = None) -> list[float]:
    """FLOP/s per device type: ``reference_flops * thr(type) / thr(reference_type)`` with thr the
    isolated single-GPU throughput Gavel measured for ``job`` [data: Gavel simulation_throughputs.json;
    the scaling is ours]. Only the ratios are Gavel's; the absolute scale is ``reference_flops``.
    """
    path = Path(path) if path is not None else data_file(GAVEL_FILE)
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInstanceError(P, "(gavel file)", f"cannot read {path}: {exc}") from None
    key = str((job, 1))

    def thr(t: str) -> float:
        if t not in doc or not isinstance(doc[t], dict):
            raise InvalidOptionError(P, "devices", f"unknown GPU type (Gavel lists {sorted(doc)})", t)
        entry = doc[t].get(key)
        value = entry.get("null") if isinstance(entry, dict) else None
        # a measured throughput: a finite number > 0 (not true/false, NaN or Infinity)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_MAGNITUDE:
            jobs = sorted(ast.literal_eval(k)[0] for k in doc[t] if k.startswith("("))
            raise InvalidInstanceError(P, "job", f"no positive isolated throughput for {t} (known: {jobs[:5]}...)", job)
        return float(entry["null"])
    ref = thr(reference_type)
    return [reference_flops * thr(t) / ref for t in types]


def parse_devices(spec: str) -> list[str]:
    """``"v100:2,k80:2"`` -> ``["v100", "v100", "k80", "k80"]``."""
    out = []
    for part in spec.split(","):
        name, colon, count = part.strip().partition(":")
        try:
            k = int(count if colon else 1)   # "v100:" (an empty count) is an error, not 1
        except ValueError:
            raise InvalidOptionError(P, "devices", "must look like 'v100:2,k80:2'", spec) from None
        if not name or k < 1:
            raise InvalidOptionError(P, "devices", "must look like 'v100:2,k80:2'", spec)
        out += [name] * k
    return out


def _linear_options(tokens: float, fin: float, fout: float, n: int) -> tuple[StageOption, ...]:
    flops = 3.0 * tokens * fin * fout
    params = fin * fout
    return (
        StageOption("data-parallel", 0, flops, 0.0, (Collective("all_reduce", 0.0, params),)),
        StageOption("zero", 0, flops, 0.0, (Collective("all_gather", n * params, 0.0),
                                            Collective("reduce_scatter", n * params, 0.0))),
        StageOption("tensor-parallel", 1, flops, 0.0, (Collective("all_gather", n * tokens * fout, 0.0),
                                                       Collective("all_reduce", 0.0, tokens * fin))),
    )


def transformer_program(device_flops, *, layers: int = 12, emsize: int = 768, nhid: int = 3072, heads: int = 12,
                        seqlen: int = 128, batch: int | None = None, bandwidth: Bandwidths = HAP_BANDWIDTH,
                        device_names=(), name: str = "") -> HeteroShardingInstance:
    """HAP's transformer (config.py defaults) as a program; batch defaults to 32 x world.

    Segment 0 is the batch (length ``batch``), segment 1 the feature dimension (length
    ``emsize``). Attention (scores and context, 2 x seqlen x emsize per token, x3 for fwd + bwd)
    shards the batch and moves nothing.

    >>> inst = transformer_program([2e12, 1e12], layers=1)
    >>> inst.num_stages, inst.segment_lengths, [len(s.options) for s in inst.stages]
    (5, (64, 768), [3, 1, 3, 3, 3])
    """
    n = len(device_flops)
    batch = batch or HAP_CONFIG["batch_per_device"] * n
    tokens = float(batch * seqlen)
    stages = []
    for layer in range(layers):
        stages.append(Stage(f"L{layer}.qkv", _linear_options(tokens, emsize, 3 * emsize, n)))
        stages.append(Stage(f"L{layer}.attention", (StageOption("batch", 0, 3.0 * 2 * tokens * seqlen * emsize),)))
        stages.append(Stage(f"L{layer}.out", _linear_options(tokens, emsize, emsize, n)))
        stages.append(Stage(f"L{layer}.ffn1", _linear_options(tokens, emsize, nhid, n)))
        stages.append(Stage(f"L{layer}.ffn2", _linear_options(tokens, nhid, emsize, n)))
    return HeteroShardingInstance(
        device_flops=tuple(device_flops), bandwidth=bandwidth, segment_lengths=(batch, emsize), stages=tuple(stages),
        device_names=tuple(device_names), name=name or f"transformer-{layers}x{emsize}-n{n}",
        provenance=f"HAP transformer template [code: alibaba/hap config.py]: {layers} layers, emsize {emsize}, "
                   f"nhid {nhid}, {heads} heads, seqlen {seqlen}, batch {batch}")


def operator_graph_program(path, device_flops, *, reference_flops: float = HAP_DEVICE_FLOPS,
                           max_stages: int | None = 64, batch: int | None = None, features: int = 768,
                           bytes_per_element: float = 4.0, bandwidth: Bandwidths = HAP_BANDWIDTH,
                           device_names=()) -> HeteroShardingInstance:
    """A dnn-partitioning operator/layer graph as a program [ours: the mapping].

    Node v (topological order) has FLOPs = accelerator latency (ms) / 1000 x ``reference_flops``
    (the file's accelerator taken to run at ``reference_flops``), parameters = size / bytes per
    element, output = the bytes of its out-edges. Options: data-parallel (all-reduce of the
    parameters, if any), ZeRO-like (all-gather + reduce-scatter of the parameters, if any) and
    tensor-parallel (padded all-gather of the output, if any). ``max_stages`` merges consecutive
    nodes (in topological order, into groups of equal node count) by summing these quantities.
    """
    og = load_operator_graph(path)
    n = len(device_flops)
    order = og.graph.topological_order()
    out_bytes = np.bincount(og.graph.src, weights=og.graph.weight, minlength=og.num_nodes)
    flops = og.accel_latency / 1000.0 * reference_flops
    params = og.size / bytes_per_element
    outs = out_bytes / bytes_per_element
    if max_stages is not None and og.num_nodes > max_stages:
        groups = np.array_split(order, max_stages)
    else:
        groups = [[v] for v in order]
    stages = []
    for gi, g in enumerate(groups):
        g = np.asarray(g)
        f, p, o = float(flops[g].sum()), float(params[g].sum()), float(outs[g].sum())
        opts = [StageOption("data-parallel", 0, f, 0.0, (Collective("all_reduce", 0.0, p),) if p > 0 else ())]
        if p > 0:
            opts.append(StageOption("zero", 0, f, 0.0, (Collective("all_gather", n * p, 0.0),
                                                        Collective("reduce_scatter", n * p, 0.0))))
        if o > 0:
            opts.append(StageOption("tensor-parallel", 1, f, 0.0, (Collective("all_gather", n * o, 0.0),)))
        label = og.names[g[0]] if len(g) == 1 else f"{og.names[g[0]]}..{og.names[g[-1]]}"
        stages.append(Stage(label, tuple(opts)))
    batch = batch or HAP_CONFIG["batch_per_device"] * n
    return HeteroShardingInstance(
        device_flops=tuple(device_flops), bandwidth=bandwidth, segment_lengths=(batch, features),
        stages=tuple(stages), bytes_per_element=bytes_per_element, device_names=tuple(device_names),
        name=f"{og.name}-n{n}", provenance=f"dnn-partitioning graph {Path(path).name} ({og.num_nodes} nodes) as "
                                           f"{len(stages)} stages [ours: mapping]")


PRESETS: dict[str, dict] = {
    "tiny": {"devices": 3, "stages": 3, "max_options": 2},
    "small": {"devices": 4, "stages": 8, "max_options": 3},
    "medium": {"devices": 8, "stages": 40, "max_options": 3},
}


def hap_example_flops(n: int = 8) -> list[float]:
    """HAP's heterogeneous example: a quarter of the devices at 3.86e12 FLOP/s, the rest at
    2.15e12 [code: alibaba/hap master.py, commented out]."""
    fast = max(1, round(n / 4)) if n > 1 else 1
    return [HAP_HETERO_FLOPS[0]] * fast + [HAP_HETERO_FLOPS[1]] * (n - fast)


def generate(seed: int, *, template: str = "random", devices: int = 4, stages: int = 8, max_options: int = 3,
             segments: int = 2, segment_length: int = 16, speed_ratio: float = 4.0, gpus: str = "",
             layers: int = 12) -> HeteroShardingInstance:
    """``template="random"``: :func:`random_instance`; ``"transformer"``: HAP's transformer with
    ``layers`` layers on ``gpus`` (Gavel GPU types, e.g. ``"v100:4,k80:4"``; empty: HAP's
    heterogeneous example on ``devices`` devices). The seed only matters for ``random``."""
    if template == "transformer":
        if layers < 1:
            raise InvalidOptionError(P, "layers", "must be >= 1", layers)
        if gpus:
            types = parse_devices(gpus)
            return transformer_program(gavel_device_flops(types), layers=layers, device_names=types,
                                       name=f"transformer-{gpus}")
        if devices < 1:
            raise InvalidOptionError(P, "devices", "must be >= 1", devices)
        return transformer_program(hap_example_flops(devices), layers=layers)
    if template != "random":
        raise InvalidOptionError(P, "template", "must be 'random' or 'transformer'", template)
    return random_instance(seed, devices=devices, stages=stages, max_options=max_options, segments=segments,
                           segment_length=segment_length, speed_ratio=speed_ratio)


def random_instance(seed: int, *, devices: int = 4, stages: int = 8, max_options: int = 3, segments: int = 2,
                    segment_length: int = 16, speed_ratio: float = 4.0) -> HeteroShardingInstance:
    """A random instance: device FLOP/s log-uniform over a ``speed_ratio`` range around 4e12,
    HAP's bandwidths, each stage 1..``max_options`` options with random FLOPs (1e9..1e11, 20% of
    options with a replicated part) and one or two collectives of random kinds and volumes.

    >>> inst = generate(0, devices=3, stages=2)
    >>> inst.num_devices, inst.num_stages
    (3, 2)
    """
    for field, v, lo in (("devices", devices, 1), ("stages", stages, 1), ("max_options", max_options, 1),
                         ("segments", segments, 1), ("segment_length", segment_length, 1)):
        if v < lo:
            raise InvalidOptionError(P, field, f"must be >= {lo}", v)
    if not (speed_ratio >= 1 and math.isfinite(speed_ratio)):
        raise InvalidOptionError(P, "speed_ratio", "must be >= 1", speed_ratio)
    rng = make_rng(seed, P, devices, stages, max_options, segments, segment_length, speed_ratio)
    flops = 4e12 * portable.exp(rng.uniform(-0.5, 0.5, devices) * portable.log(speed_ratio))
    kinds = ("all_gather", "all_reduce", "reduce_scatter", "all_to_all")
    out = []
    for t in range(stages):
        opts = []
        for o in range(int(rng.integers(1, max_options + 1))):
            f = portable.power(10.0, rng.uniform(9, 11))
            rep = float(f * rng.uniform(0, 0.2)) if rng.random() < 0.2 else 0.0
            cols = []
            for _ in range(int(rng.integers(0, 3))):
                kind = kinds[int(rng.integers(0, 4))]
                vol = portable.power(10.0, rng.uniform(5, 8))
                if kind == "all_reduce":
                    cols.append(Collective(kind, 0.0, vol))
                else:
                    cols.append(Collective(kind, devices * vol, 0.0))
            opts.append(StageOption(f"o{o}", int(rng.integers(0, segments)), f, rep, tuple(cols)))
        out.append(Stage(f"s{t}", tuple(opts)))
    return HeteroShardingInstance(
        device_flops=tuple(float(x) for x in flops), bandwidth=HAP_BANDWIDTH,
        segment_lengths=tuple([segment_length] * segments), stages=tuple(out),
        name=f"gen-n{devices}-t{stages}-s{seed}", provenance=f"optsched hetero-sharding generator, seed {seed}")


def tiny_instances(seed: int) -> HeteroShardingInstance:
    return random_instance(seed, **PRESETS["tiny"])


def import_operator_graph(path, index: int | None = None) -> HeteroShardingInstance:
    """``optsched import dnn-partitioning-hap FILE``: the graph on HAP's 8-device heterogeneous
    example (:func:`hap_example_flops`), at most 64 stages."""
    if index is not None:
        raise InvalidOptionError(P, "--index", "a dnn-partitioning file holds one graph")
    return operator_graph_program(path, hap_example_flops(8))
