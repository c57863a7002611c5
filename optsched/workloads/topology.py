"""Device graphs: GPUs with a relative speed and memory, links with a bandwidth (bytes/s).

Presets (spec ``pipeline.md``; bandwidth figures in GB/s, 1 GB = 1e9 bytes):

* ``nvlink:N``: N GPUs, all-to-all at 25 GB/s (DAPPLE's NVLink constant [code]);
* ``two-level:SxG[:INTRA:INTER]``: S servers of G GPUs; all-to-all inside a server at INTRA
  (default 25) and between any two GPUs of different servers at INTER (default 1, DAPPLE's
  Ethernet P2P constant [code]);
* ``flat:N:BW``: N GPUs all-to-all at BW;
* ``ring:N:BW``: N GPUs on a cycle (a path for N = 2) at BW;
* ``random:N[:P]``: a seeded connected random graph (a random spanning tree plus each other pair
  with probability P, default 0.3), bandwidths drawn from {1, 10, 25} GB/s [ours].

Every GPU has speed 1 and 16 GB (DAPPLE's constant [code]) unless a user graph says otherwise.
User graphs are JSON::

    {"devices": [{"speed": 1.0, "memory_gb": 16}, ...],
     "links": [{"a": 0, "b": 1, "bandwidth_gb_s": 25}, ...]}

Two devices that are not adjacent communicate at the bandwidth of the *widest path* between them
(the maximum over paths of the minimum link bandwidth) [ours]; a disconnected graph is invalid.

>>> g = topology("two-level:2x2:25:1")
>>> g.num_devices, float(g.widest[0, 1]) / 1e9, float(g.widest[0, 2]) / 1e9
(4, 25.0, 1.0)
>>> float(topology("ring:4:10").widest[0, 2]) / 1e9
10.0
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from optsched.core.errors import InvalidInstanceError
from optsched.core.rng import make_rng

__all__ = ["DeviceGraph", "topology", "load_topology", "widest_paths", "GB", "PRESET_NAMES"]

GB = 1e9
NVLINK_GB_S = 25.0
ETHERNET_GB_S = 1.0
GPU_MEMORY_GB = 16.0
PRESET_NAMES = ("nvlink:N", "two-level:SxG[:INTRA:INTER]", "flat:N:BW", "ring:N:BW", "random:N[:P]")


def widest_paths(num_devices: int, links) -> np.ndarray:
    """All-pairs widest-path bandwidth (max over paths of the min link), diagonal = inf.

    A max-min Floyd-Warshall, O(N^3) with numpy over one dimension. Unreachable pairs get 0.
    """
    w = np.zeros((num_devices, num_devices))
    for a, b, bw in links:
        w[a, b] = w[b, a] = max(w[a, b], bw)
    np.fill_diagonal(w, np.inf)
    for k in range(num_devices):
        w = np.maximum(w, np.minimum(w[:, k:k + 1], w[k:k + 1, :]))
    return w


@dataclass(frozen=True)
class DeviceGraph:
    """Devices (speed relative to the profiling GPU, memory in bytes) and undirected links."""

    speed: tuple[float, ...]
    memory_bytes: tuple[float, ...]
    links: tuple[tuple[int, int, float], ...]  # (device, device, bytes per second)
    name: str = ""

    def __post_init__(self):
        n = len(self.speed)
        if n < 1:
            raise InvalidInstanceError("topology", "devices", "must list at least one device", n)
        if len(self.memory_bytes) != n:
            raise InvalidInstanceError("topology", "memory_bytes", f"must have one entry per device ({n})",
                                       len(self.memory_bytes))
        for i, (s, m) in enumerate(zip(self.speed, self.memory_bytes)):
            if not (s > 0 and np.isfinite(s)):
                raise InvalidInstanceError("topology", f"speed[{i}]", "must be > 0", s)
            if not (m >= 0 and np.isfinite(m)):
                raise InvalidInstanceError("topology", f"memory_bytes[{i}]", "must be >= 0", m)
        for i, (a, b, bw) in enumerate(self.links):
            if not (0 <= a < n and 0 <= b < n) or a == b:
                raise InvalidInstanceError("topology", f"links[{i}]", f"must join two distinct devices in 0..{n - 1}",
                                           (a, b))
            if not (bw > 0 and np.isfinite(bw)):
                raise InvalidInstanceError("topology", f"links[{i}]", "bandwidth must be > 0", bw)
        missing = disconnected_pair(n, self.links)
        if missing is not None:
            raise InvalidInstanceError("topology", "links", "the device graph is disconnected: device "
                                       f"{missing[1]} cannot reach device {missing[0]}")

    @property
    def num_devices(self) -> int:
        return len(self.speed)

    @cached_property
    def widest(self) -> np.ndarray:
        return widest_paths(self.num_devices, self.links)

    def to_networkx(self):
        """The graph as a ``networkx.Graph`` (node attributes speed, memory_bytes; edge bandwidth)."""
        import networkx as nx

        g = nx.Graph(name=self.name)
        for d, (s, m) in enumerate(zip(self.speed, self.memory_bytes)):
            g.add_node(d, speed=s, memory_bytes=m)
        for a, b, bw in self.links:
            g.add_edge(a, b, bandwidth=bw)
        return g


def disconnected_pair(num_devices: int, links) -> tuple[int, int] | None:
    """A pair (0, d) with d unreachable from device 0, or None when the graph is connected."""
    neighbours: dict[int, list[int]] = {d: [] for d in range(num_devices)}
    for a, b, _ in links:
        neighbours[a].append(b)
        neighbours[b].append(a)
    reach, stack = {0}, [0]
    while stack:
        for e in neighbours[stack.pop()]:
            if e not in reach:
                reach.add(e)
                stack.append(e)
    missing = [d for d in range(num_devices) if d not in reach]
    return (0, missing[0]) if missing else None


def _complete(n: int, bw_gb_s: float) -> list[tuple[int, int, float]]:
    return [(a, b, bw_gb_s * GB) for a in range(n) for b in range(a + 1, n)]


def _ints(text: str, spec: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise InvalidInstanceError("topology", "topology", f"{spec!r}: {text!r} must be a positive integer")
    return int(text)


def _positive(text: str, spec: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not (v > 0 and np.isfinite(v)):
        raise InvalidInstanceError("topology", "topology", f"{spec!r}: {text!r} must be a positive number")
    return v


def topology(spec: str, *, seed: int = 0, memory_gb: float = GPU_MEMORY_GB) -> DeviceGraph:
    """A preset device graph by name (see the module docstring)."""
    kind, _, rest = spec.partition(":")
    parts = rest.split(":") if rest else []
    mem = memory_gb * GB
    if kind == "nvlink" and len(parts) == 1:
        n = _ints(parts[0], spec)
        links = _complete(n, NVLINK_GB_S)
    elif kind == "flat" and len(parts) == 2:
        n = _ints(parts[0], spec)
        links = _complete(n, _positive(parts[1], spec))
    elif kind == "ring" and len(parts) == 2:
        n = _ints(parts[0], spec)
        bw = _positive(parts[1], spec) * GB
        links = [(d, (d + 1) % n, bw) for d in range(n if n > 2 else n - 1)]
    elif kind == "two-level" and len(parts) in (1, 3):
        m = re.fullmatch(r"(\d+)x(\d+)", parts[0])
        if not m:
            raise InvalidInstanceError("topology", "topology", f"{spec!r}: expected two-level:SxG[:INTRA:INTER]")
        servers, gpus = _ints(m.group(1), spec), _ints(m.group(2), spec)
        intra, inter = ((_positive(parts[1], spec), _positive(parts[2], spec)) if len(parts) == 3
                        else (NVLINK_GB_S, ETHERNET_GB_S))
        n = servers * gpus
        links = [(a, b, (intra if a // gpus == b // gpus else inter) * GB)
                 for a in range(n) for b in range(a + 1, n)]
    elif kind == "random" and len(parts) in (1, 2):
        n = _ints(parts[0], spec)
        p = float(parts[1]) if len(parts) == 2 else 0.3
        rng = make_rng(seed, "topology", spec)
        choices = np.array([1.0, 10.0, 25.0])
        order = rng.permutation(n)
        edges = {}
        for i in range(1, n):  # a random spanning tree keeps the graph connected
            a, b = int(order[i]), int(order[rng.integers(0, i)])
            edges[min(a, b), max(a, b)] = float(rng.choice(choices))
        for a in range(n):
            for b in range(a + 1, n):
                if (a, b) not in edges and rng.random() < p:
                    edges[a, b] = float(rng.choice(choices))
        links = [(a, b, bw * GB) for (a, b), bw in sorted(edges.items())]
    else:
        raise InvalidInstanceError("topology", "topology", f"unknown device graph {spec!r}; presets: "
                                   + ", ".join(PRESET_NAMES) + ", or a JSON file")
    return DeviceGraph(speed=(1.0,) * n, memory_bytes=(mem,) * n, links=tuple(links), name=spec)


def load_topology(path: str | Path) -> DeviceGraph:
    """A user device graph from JSON (see the module docstring)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise InvalidInstanceError("topology", "(file)", f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise InvalidInstanceError("topology", "(file)", f"{path} is not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or set(data) - {"devices", "links", "name"}:
        raise InvalidInstanceError("topology", "(top level)", "must be an object with 'devices' and 'links'")
    devices = data.get("devices")
    if not isinstance(devices, list):
        raise InvalidInstanceError("topology", "devices", "must be a list")
    speed, mem = [], []
    for i, d in enumerate(devices):
        if not isinstance(d, dict) or set(d) - {"speed", "memory_gb"}:
            raise InvalidInstanceError("topology", f"devices[{i}]", "must be {'speed': s, 'memory_gb': m}", d)
        speed.append(float(d.get("speed", 1.0)))
        mem.append(float(d.get("memory_gb", GPU_MEMORY_GB)) * GB)
    links = []
    for i, link in enumerate(data.get("links", [])):
        if not isinstance(link, dict) or set(link) != {"a", "b", "bandwidth_gb_s"}:
            raise InvalidInstanceError("topology", f"links[{i}]", "must be {'a', 'b', 'bandwidth_gb_s'}", link)
        links.append((int(link["a"]), int(link["b"]), float(link["bandwidth_gb_s"]) * GB))
    return DeviceGraph(speed=tuple(speed), memory_bytes=tuple(mem), links=tuple(links),
                       name=str(data.get("name", path.stem)))


def resolve(spec: str, *, seed: int = 0) -> DeviceGraph:
    """A preset name or the path of a JSON user graph."""
    if spec.endswith(".json") or Path(spec).is_file():
        return load_topology(spec)
    return topology(spec, seed=seed)
