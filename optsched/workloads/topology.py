"""Device graphs: GPUs with a relative speed and memory, links with a bandwidth (bytes/s).

Presets (bandwidth figures in GB/s, 1 GB = 1e9 bytes):

* ``nvlink:N``: N GPUs, all-to-all at 25 GB/s (DAPPLE's NVLink constant [code]);
* ``two-level:SxG[:INTRA:INTER]``: S servers of G GPUs; all-to-all inside a server at INTRA
  (default 25) and between any two GPUs of different servers at INTER (default 1, DAPPLE's
  Ethernet P2P constant [code]);
* ``flat:N:BW``: N GPUs all-to-all at BW;
* ``ring:N:BW``: N GPUs on a cycle (a path for N = 2) at BW;
* ``random:N[:P]``: a seeded connected random graph (a random spanning tree plus each other pair
  with probability P, default 0.3), bandwidths drawn from {1, 10, 25} GB/s [ours].

Published machines (sources in :data:`SOURCES`; per direction, 1 GB/s = 1e9 bytes/s):

* ``dgx1``: NVIDIA DGX-1 with eight V100 (16 GB), the hybrid cube-mesh: two fully connected
  quads {0..3}, {4..7} plus the links i -- i + 4; eight of the sixteen GPU pairs have two NVLinks
  (50 GB/s), the others one (25 GB/s) [paper: DGX-1 V100 whitepaper; the pair table is
  ``nvidia-smi topo -m`` of a DGX-1V]; the twelve pairs without NVLink talk over PCIe 3.0 x16 and
  QPI, 15.75 GB/s (the narrower of the two published link rates) [ours: no contention];
* ``dgx2``: NVIDIA DGX-2, sixteen V100 (32 GB) on NVSwitch, every pair at 150 GB/s (six NVLinks
  of 25 GB/s per GPU) [paper: DGX-2 datasheet];
* ``pcie:SxWxG[:PIX:PHB:SYS]``: S CPU sockets, W PCIe switches per socket, G GPUs per switch;
  a pair under one switch talks at PIX, under one socket at min(PIX, PHB), across sockets at
  min(PIX, PHB, SYS) (the narrowest link of its tree path, no contention [ours]); defaults 15.75 =
  PCIe 3.0 x16 [paper: PCI-SIG PCIe 3.0 specification], 15.75 (the switch's x16 uplink),
  19.2 = QPI 9.6 GT/s [paper: Intel Xeon E5 v4 datasheet], so with the published link rates a
  PCIe tree is uniform at 15.75 GB/s: its levels differ only with measured (contended) figures
  given as PIX:PHB:SYS;
* ``dgx1xS[:IB]``, ``dgx2xS[:IB]``, ``pcie-SxWxGxH[:IB]``: H (or S) such servers, every pair
  of GPUs in different servers at IB (default 12.5 GB/s = one 100 Gb/s EDR InfiniBand port per
  GPU pair [paper: DGX-1 has four, DGX-2 eight such ports]; cross-server links are [ours] as one
  link per pair, no contention);
* ``torus:RxC:BW[:BWY]``: an R x C two-dimensional torus (wrap-around links; a dimension of size
  2 has one link, of size 1 none), row links at BW, column links at BWY (default BW) [ours].

How optsched routes (the same for every graph, [ours]): two devices talk at the *widest path*
bandwidth between them, so a NVLink graph that connects all devices at one rate is uniform for
the cost model. On the DGX-1 the double links form the Hamiltonian cycle 0-3-2-1-5-6-7-4-0, so
every pair reaches every other over 50 GB/s links: under widest-path routing a DGX-1 is a
uniform 50 GB/s graph (``DeviceGraph.direct`` keeps the per-pair link table, 0 where no link).

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

from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.rng import make_rng

__all__ = ["DeviceGraph", "topology", "load_topology", "widest_paths", "GB", "PRESET_NAMES", "SOURCES",
           "Cluster", "dendrogram", "is_ultrametric"]

GB = 1e9
NVLINK_GB_S = 25.0
ETHERNET_GB_S = 1.0
GPU_MEMORY_GB = 16.0
PRESET_NAMES = ("nvlink:N", "two-level:SxG[:INTRA:INTER]", "flat:N:BW", "ring:N:BW", "random:N[:P]", "dgx1", "dgx2",
                "pcie:SxWxG[:PIX:PHB:SYS]", "dgx1xS[:IB]", "dgx2xS[:IB]", "pcie-SxWxGxH[:IB]", "torus:RxC:BW[:BWY]")

# Published link rates (GB/s per direction) and where each comes from.
NVLINK2_GB_S = 25.0       # one NVLink 2.0 link (V100)
PCIE3_X16_GB_S = 15.75    # 8 GT/s x 16 lanes x 128/130 / 8
QPI_GB_S = 19.2           # 9.6 GT/s x 2 bytes
EDR_IB_GB_S = 12.5        # 100 Gb/s
DGX2_NVSWITCH_GB_S = 150.0  # six NVLink 2.0 links per GPU into the NVSwitch fabric
SOURCES = {
    "nvlink2": "NVIDIA, 'NVIDIA DGX-1 With Tesla V100 System Architecture' whitepaper (WP-08437-002, 2017): "
               "six NVLinks per V100, 25 GB/s per direction each; hybrid cube-mesh, some pairs with two links",
    "dgx1-pairs": "nvidia-smi topo -m of a DGX-1V: NV2 on 0-3, 0-4, 1-2, 1-5, 2-3, 4-7, 5-6, 6-7; NV1 on 0-1, "
                  "0-2, 1-3, 2-6, 3-7, 4-5, 4-6, 5-7; SYS (PCIe + QPI) elsewhere",
    "dgx2": "NVIDIA DGX-2 datasheet (2018): 16 V100 32 GB, NVSwitch, 300 GB/s bidirectional per GPU",
    "pcie3": "PCI-SIG PCI Express Base 3.0: 8 GT/s per lane, 128b/130b encoding; x16 = 15.75 GB/s per direction",
    "qpi": "Intel Xeon E5-2600 v4 datasheet: QPI at 9.6 GT/s = 19.2 GB/s per direction per link",
    "edr-ib": "InfiniBand EDR: 100 Gb/s per port; DGX-1 has four ports, DGX-2 eight (the whitepapers above)",
}
DGX1_DOUBLE = ((0, 3), (0, 4), (1, 2), (1, 5), (2, 3), (4, 7), (5, 6), (6, 7))
DGX1_SINGLE = ((0, 1), (0, 2), (1, 3), (2, 6), (3, 7), (4, 5), (4, 6), (5, 7))


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

    @cached_property
    def direct(self) -> np.ndarray:
        """The per-pair link bandwidth (the widest parallel link; 0 where no link; diagonal inf)."""
        w = np.zeros((self.num_devices, self.num_devices))
        for a, b, bw in self.links:
            w[a, b] = w[b, a] = max(w[a, b], bw)
        np.fill_diagonal(w, np.inf)
        return w

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
        raise InvalidOptionError("topology", "topology", f"{spec!r}: {text!r} must be a positive integer")
    return int(text)


def _positive(text: str, spec: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not (v > 0 and np.isfinite(v)):
        raise InvalidOptionError("topology", "topology", f"{spec!r}: {text!r} must be a positive number")
    return v


def topology(spec: str, *, seed: int = 0, memory_gb: float | None = None) -> DeviceGraph:
    """A preset device graph by name (see the module docstring); ``memory_gb`` per GPU (default
    the preset's: 16, 32 for ``dgx2``)."""
    kind, _, rest = spec.partition(":")
    parts = rest.split(":") if rest else []
    mem = (memory_gb or GPU_MEMORY_GB) * GB
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
            raise InvalidOptionError("topology", "topology", f"{spec!r}: expected two-level:SxG[:INTRA:INTER]")
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
    elif kind in ("dgx1", "dgx2") and not parts:
        n, links, mem = _server(kind, spec, memory_gb)
    elif kind.startswith(("dgx1x", "dgx2x")) and len(parts) <= 1:
        servers = _ints(kind[5:], spec)
        size, base, mem = _server(kind[:4], spec, memory_gb)
        ib = _positive(parts[0], spec) if parts else EDR_IB_GB_S
        n, links = _multi(servers, size, base, ib)
    elif kind == "pcie" and len(parts) in (1, 4):
        sockets, switches, gpus = _dims(parts[0], 3, spec, "pcie:SxWxG[:PIX:PHB:SYS]")
        bws = [_positive(v, spec) for v in parts[1:]] if len(parts) == 4 else None
        n, links = _pcie(sockets, switches, gpus, bws)
    elif kind.startswith("pcie-") and len(parts) <= 1:
        sockets, switches, gpus, servers = _dims(kind[5:], 4, spec, "pcie-SxWxGxH[:IB]")
        size, base = _pcie(sockets, switches, gpus, None)
        n, links = _multi(servers, size, base, _positive(parts[0], spec) if parts else EDR_IB_GB_S)
    elif kind == "torus" and len(parts) in (2, 3):
        rows, cols = _dims(parts[0], 2, spec, "torus:RxC:BW[:BWY]")
        bx = _positive(parts[1], spec)
        by = _positive(parts[2], spec) if len(parts) == 3 else bx
        n = rows * cols
        edges: dict = {}
        for r in range(rows):
            for c in range(cols):
                d = r * cols + c
                for e, bw in ((r * cols + (c + 1) % cols, bx), (((r + 1) % rows) * cols + c, by)):
                    if e != d:
                        edges[min(d, e), max(d, e)] = bw * GB
        links = [(a, b, bw) for (a, b), bw in sorted(edges.items())]
    else:
        raise InvalidOptionError("topology", "topology", f"unknown device graph {spec!r}; presets: "
                                   + ", ".join(PRESET_NAMES) + ", or a JSON file")
    return DeviceGraph(speed=(1.0,) * n, memory_bytes=(mem,) * n, links=tuple(links), name=spec)


def _dims(text: str, count: int, spec: str, form: str) -> tuple[int, ...]:
    values = text.split("x")
    if len(values) != count:
        raise InvalidOptionError("topology", "topology", f"{spec!r}: expected {form}")
    return tuple(_ints(v, spec) for v in values)


def _server(kind: str, spec: str, memory_gb: float) -> tuple[int, list, float]:
    """(devices, links in bytes/s, memory per GPU in bytes) of one DGX server (module docstring)."""
    if kind == "dgx2":
        return 16, _complete(16, DGX2_NVSWITCH_GB_S), (memory_gb or 32.0) * GB
    nv = {pair: 2 * NVLINK2_GB_S for pair in DGX1_DOUBLE} | {pair: NVLINK2_GB_S for pair in DGX1_SINGLE}
    host = min(PCIE3_X16_GB_S, QPI_GB_S)
    links = [(a, b, nv.get((a, b), host) * GB) for a in range(8) for b in range(a + 1, 8)]
    return 8, links, (memory_gb or GPU_MEMORY_GB) * GB


def _pcie(sockets: int, switches: int, gpus: int, bws) -> tuple[int, list]:
    pix, phb, sys_ = bws if bws else (PCIE3_X16_GB_S, PCIE3_X16_GB_S, QPI_GB_S)
    n = sockets * switches * gpus
    links = []
    for a in range(n):  # a pair's path crosses the links below its lowest common switch/socket
        for b in range(a + 1, n):
            if a // gpus == b // gpus:
                bw = pix
            elif a // (gpus * switches) == b // (gpus * switches):
                bw = min(pix, phb)
            else:
                bw = min(pix, phb, sys_)
            links.append((a, b, bw * GB))
    return n, links


def _multi(servers: int, size: int, base: list, ib_gb_s: float) -> tuple[int, list]:
    """``servers`` copies of a server (devices s*size..), every cross-server pair at ``ib_gb_s``."""
    links = [(a + s * size, b + s * size, bw) for s in range(servers) for a, b, bw in base]
    links += [(a, b, ib_gb_s * GB) for a in range(servers * size) for b in range(a + 1, servers * size)
              if a // size != b // size]
    return servers * size, sorted(links)


@dataclass(frozen=True)
class Cluster:
    """A node of the bandwidth dendrogram: ``devices`` (sorted), the bandwidth ``level`` at which
    any two of them talk when they lie in different ``children`` (inf for one device)."""

    devices: tuple[int, ...]
    level: float
    children: tuple["Cluster", ...] = ()


def is_ultrametric(w: np.ndarray, rel_tol: float = 0.0) -> bool:
    """Whether w[a, c] >= min(w[a, b], w[b, c]) for all a, b, c (true of every widest-path matrix).

    >>> is_ultrametric(topology("ring:5:3").widest), is_ultrametric(topology("dgx1").direct)
    (True, False)
    """
    n = w.shape[0]
    for b in range(n):
        if np.any(w < np.minimum(w[:, b:b + 1], w[b:b + 1, :]) * (1 - rel_tol)):
            return False
    return True


def dendrogram(w: np.ndarray, devices=None) -> Cluster:
    """The hierarchy of an ultrametric bandwidth matrix (a widest-path matrix is one).

    The root holds every device at level = the smallest bandwidth between two of them; its
    children are the classes of "talk faster than that level" (an equivalence relation exactly
    because w is an ultrametric), recursively. Two devices then talk at the level of the smallest
    cluster holding both, and any cross or group bandwidth of the cost model (a minimum over
    pairs) is the level of the smallest cluster holding all the devices involved. O(N^3).

    >>> t = dendrogram(topology("two-level:2x2:25:1").widest)
    >>> t.level / GB, [c.devices for c in t.children], t.children[0].level / GB
    (1.0, [(0, 1), (2, 3)], 25.0)
    """
    devices = tuple(range(w.shape[0])) if devices is None else tuple(sorted(devices))
    if len(devices) == 1:
        return Cluster(devices, np.inf)
    sub = w[np.ix_(devices, devices)]
    level = float(sub[~np.eye(len(devices), dtype=bool)].min())
    parts, seen = [], set()
    for i, d in enumerate(devices):
        if d in seen:
            continue
        members = tuple(devices[j] for j in range(len(devices)) if sub[i, j] > level)
        seen.update(members)
        parts.append(members)
    return Cluster(devices, level, tuple(dendrogram(w, p) for p in parts))


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
    def number(value, where):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidInstanceError("topology", where, "must be a number", value)
        return float(value)

    def device(value, where):
        if isinstance(value, bool) or not isinstance(value, int):  # 1.7 is no device, not device 1
            raise InvalidInstanceError("topology", where, "must be a device index (an integer)", value)
        return value

    speed, mem = [], []
    for i, d in enumerate(devices):
        if not isinstance(d, dict) or set(d) - {"speed", "memory_gb"}:
            raise InvalidInstanceError("topology", f"devices[{i}]", "must be {'speed': s, 'memory_gb': m}", d)
        speed.append(number(d.get("speed", 1.0), f"devices[{i}].speed"))
        mem.append(number(d.get("memory_gb", GPU_MEMORY_GB), f"devices[{i}].memory_gb") * GB)
    raw_links = data.get("links", [])
    if not isinstance(raw_links, list):
        raise InvalidInstanceError("topology", "links", "must be a list")
    links = []
    for i, link in enumerate(raw_links):
        if not isinstance(link, dict) or set(link) != {"a", "b", "bandwidth_gb_s"}:
            raise InvalidInstanceError("topology", f"links[{i}]", "must be {'a', 'b', 'bandwidth_gb_s'}", link)
        links.append((device(link["a"], f"links[{i}].a"), device(link["b"], f"links[{i}].b"),
                      number(link["bandwidth_gb_s"], f"links[{i}].bandwidth_gb_s") * GB))
    return DeviceGraph(speed=tuple(speed), memory_bytes=tuple(mem), links=tuple(links),
                       name=str(data.get("name", path.stem)))


def resolve(spec: str, *, seed: int = 0) -> DeviceGraph:
    """A preset name or the path of a JSON user graph."""
    try:
        is_file = Path(spec).is_file()
    except OSError:   # e.g. a name longer than the system allows: not a file, maybe a preset name
        is_file = False
    if spec.endswith(".json") or is_file:
        return load_topology(spec)
    return topology(spec, seed=seed)
