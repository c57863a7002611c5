"""The binary sidecar (``<file>.json.npz``): it gives back exactly the data the JSON file parses
to (types, float bits, key order), every instance and result round-trips through it, invalid
input read through it fails with the same message as through the JSON, and a sidecar that is
corrupt or belongs to another JSON file is a typed error naming it."""

from __future__ import annotations

import io
import json
import math
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import optsched
from optsched.core import sidecar as sc
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.instance import Instance
from optsched.core.result import Result
from tests.core.picks import MILP_PROBLEM


def same(a, b) -> bool:
    """Equal as parsed JSON: the same types, floats bit for bit (NaN equal to NaN, -0.0 apart
    from 0.0), dict keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


def roundtrip(data, min_array=sc.MIN_ARRAY):
    """(parsed JSON, data read back from the sidecar) for ``data`` written as JSON + sidecar."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "d.json"
        path.write_text(json.dumps(data, allow_nan=True))
        sc.write_sidecar(path, data, min_array=min_array)
        return json.loads(path.read_text()), sc.read_json_data(path, "test")


keys = st.text(max_size=6).filter(lambda k: k != sc.MARK)
floats = st.floats(allow_nan=True, allow_infinity=True)
ints = st.integers(min_value=-(2**70), max_value=2**70)  # beyond int64 too: those stay JSON
texts = st.text(max_size=8)  # newlines and lone surrogates included
scalars = st.none() | st.booleans() | ints | floats | texts
columns = (st.lists(floats, max_size=40) | st.lists(ints, max_size=40) | st.lists(st.booleans(), max_size=40)
           | st.lists(texts, max_size=40) | st.lists(st.integers(-5, 5), max_size=40))
rows = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), floats).map(list), max_size=30)
matrices = st.integers(1, 5).flatmap(lambda w: st.lists(st.lists(floats, min_size=w, max_size=w), max_size=8))
records = st.lists(st.fixed_dictionaries({"a": floats, "b": texts, "c": st.lists(ints, max_size=3)}), max_size=20)
ragged = st.lists(st.lists(floats, max_size=6) | st.lists(rows, max_size=3), max_size=10)
trees = st.recursive(scalars | columns | rows | matrices | records | ragged,
                     lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
                     max_leaves=12)


@given(trees, st.sampled_from([1, 2, 16]))
def test_sidecar_gives_back_exactly_the_parsed_json(data, min_array):
    parsed, back = roundtrip(data, min_array)
    assert same(back, parsed)


def test_every_array_kind_is_used_and_round_trips():
    data = {"f": [0.1 * i for i in range(20)] + [-0.0, math.inf], "i": list(range(-10, 10)) + [2**62],
            "b": [True, False] * 10, "s": [f"name {i} é" for i in range(20)] + [""],
            "edges": [[i, i + 1, 0.5 * i] for i in range(20)], "m": [[float(i + j) for j in range(4)] for i in range(5)],
            "jobs": [{"id": i, "size": 1.5 * i, "tags": ["x"]} for i in range(20)],
            "big": [2**64] * 20, "mixed": [1, 2.0] * 10, "nl": ["a\nb"] * 20, "short": [1.0, 2.0],
            "ragged": [[0.5] * i for i in range(8)], "ragged_mixed": [[1, "a"], [2.0]] * 10}
    skeleton, arrays = sc.encode(data)
    kinds = {k: v[sc.MARK][0] for k, v in json.loads(skeleton).items() if isinstance(v, dict) and sc.MARK in v}
    assert kinds == {"f": "f", "i": "i", "b": "b", "s": "s", "edges": "r", "m": "m", "jobs": "d", "ragged": "j"}
    assert arrays["a0"].dtype == np.float64  # doubles stored as doubles
    parsed, back = roundtrip(data)
    assert same(back, parsed)
    with pytest.raises(ValueError, match="reserved"):
        sc.encode({"x": {sc.MARK: 1}})


@dataclass(frozen=True)
class Long(Instance):
    problem = "long"
    sizes: tuple[float, ...]
    names: tuple[str, ...]
    edges: tuple[tuple[int, int, float], ...] = ()

    def validate(self):
        self.require_nonnegative("sizes", self.sizes)
        self.require(len(self.names) == len(self.sizes), "names", "must have one entry per size", len(self.names))


def _long_data(n=6000, **over):
    rng = np.random.default_rng(0)
    data = {"format_version": 1, "problem": "long", "sizes": rng.random(n).tolist(),
            "names": [f"l{i}" for i in range(n)], "edges": [[i, i + 1, 2.0] for i in range(n - 1)]}
    return {**data, **over}


def test_per_record_lists_share_arrays():
    """1000 jobs with an edge list each: a few arrays in all, not one per job."""
    jobs = [{"id": i, "edges": [[j, j + 1, 0.5 * j] for j in range(i % 40)]} for i in range(1000)]
    skeleton, arrays = sc.encode({"jobs": jobs})
    assert len(arrays) <= 8
    parsed, back = roundtrip({"jobs": jobs})
    assert same(back, parsed)


def test_instance_save_load_with_sidecar(tmp_path):
    inst = Long.from_json(_long_data())
    path = tmp_path / "long.json"
    inst.save(path, sidecar=True)
    assert sc.sidecar_path(path).exists()
    assert Long.load(path) == inst == Long.load(path, sidecar=False)
    inst.save(path)  # without a sidecar: the old one would no longer match, it is removed
    assert not sc.sidecar_path(path).exists() and Long.load(path) == inst


@pytest.mark.parametrize("problem", sorted(optsched.core.registry.problems()))
def test_every_problems_instances_round_trip_through_a_sidecar(problem, tmp_path):
    p = optsched.get_problem(problem)
    if p.tiny_instances is None:
        pytest.skip("no tiny instances")
    inst = p.tiny_instances(0)
    path = tmp_path / "i.json"
    inst.save(path, sidecar=True)
    assert type(inst).load(path) == inst
    assert same(sc.read_sidecar(path, problem), json.loads(path.read_text()))


def test_result_save_load_with_sidecar(tmp_path):
    inst = optsched.generate(MILP_PROBLEM, seed=0, preset="small")
    res = optsched.solve(inst, "greedy")
    path = tmp_path / "r.json"
    res.save(path, sidecar=True)
    back = Result.load(path)
    assert same(back.to_json(), json.loads(path.read_text()))
    assert back.objective == res.objective and back.instance_sha256 == inst.sha256()
    assert same(Result.load(path, sidecar=False).to_json(), back.to_json())


@pytest.mark.parametrize("over, field", [
    ({"sizes": [0.5] * 4500 + [-1.0] + [0.5] * 1499}, "sizes[4500]"),
    ({"sizes": [0.5] * 5000 + [math.nan] + [0.5] * 999}, "sizes[5000]"),
    ({"sizes": [0.5] * 5999 + [1e300]}, "sizes[5999]"),
    ({"sizes": [0.5] * 3000 + [True] + [0.5] * 2999}, "sizes[3000]"),
    ({"names": [f"l{i}" for i in range(5999)] + [7]}, "names[5999]"),
    ({"edges": [[i, i + 1, 2.0] for i in range(5000)] + [[1, 2, "x"]] + [[0, 1, 1.0]] * 998}, "edges[5000][2]"),
])
def test_invalid_input_has_the_same_message_through_the_sidecar(tmp_path, over, field):
    data = _long_data(**over)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, allow_nan=True))
    with pytest.raises(InvalidInstanceError) as plain:
        Long.load(path)
    sc.write_sidecar(path, data)
    with pytest.raises(InvalidInstanceError) as through:
        Long.load(path)
    assert not isinstance(through.value, sc.SidecarError)
    assert str(through.value) == str(plain.value) and through.value.field == field


def _written(tmp_path):
    inst = Long.from_json(_long_data(100))
    path = tmp_path / "long.json"
    inst.save(path, sidecar=True)
    return path, sc.sidecar_path(path)


def test_a_sidecar_of_another_json_is_a_typed_error_naming_it(tmp_path):
    path, side = _written(tmp_path)
    data = json.loads(path.read_text())
    data["sizes"][3] = 0.25
    path.write_text(json.dumps(data))
    with pytest.raises(sc.SidecarError, match=r"long\.json\.npz: does not belong to long\.json") as exc:
        Long.load(path)
    assert exc.value.path == side and exc.value.exit_status == 2 and exc.value.field == "(sidecar)"
    assert Long.load(path, sidecar=False).sizes[3] == 0.25
    path.unlink()  # a sidecar is never read alone: the JSON is the canonical form
    with pytest.raises(InvalidInstanceError, match="cannot read"):
        Long.load(path)


def _rewrite(side: Path, change) -> None:
    with zipfile.ZipFile(side) as z:
        members = {n: z.read(n) for n in z.namelist()}
    change(members)
    with zipfile.ZipFile(side, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)


@pytest.mark.parametrize("damage, words", [
    (lambda side: side.write_bytes(side.read_bytes()[: len(side.read_bytes()) // 2]), "unreadable or corrupt"),
    (lambda side: side.write_bytes(b"not a zip file at all"), "unreadable or corrupt"),
    (lambda side: side.write_bytes(_flip(side.read_bytes())), "unreadable or corrupt"),
    # a member removed or swapped: the content digest no longer matches
    (lambda side: _rewrite(side, lambda m: m.pop("a0.npy")), "content does not match the SHA-256"),
    (lambda side: _rewrite(side, lambda m: m.pop("meta.npy")), "not an optsched sidecar"),
    (lambda side: _rewrite(side, lambda m: m.__setitem__("a0.npy", m["a1.npy"])), "content does not match"),
    (lambda side: _rewrite(side, lambda m: m.__setitem__("meta.npy", _npy(json.dumps({"optsched_sidecar": 99})))),
     "version 99"),
])
def test_a_corrupt_sidecar_is_a_typed_error_naming_it(tmp_path, damage, words):
    path, side = _written(tmp_path)
    damage(side)
    with pytest.raises(sc.SidecarError, match=words) as exc:
        Long.load(path)
    assert "long.json.npz" in str(exc.value) and len(str(exc.value).splitlines()) == 1


def _flip(raw: bytes) -> bytes:
    """One byte changed in the middle of the first array's data (zip's CRC-32 catches it)."""
    at = raw.index(b"NUMPY", raw.index(b"a0.npy")) + 200
    return raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1:]


def _npy(text: str) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.frombuffer(text.encode(), dtype=np.uint8))
    return buf.getvalue()


def test_sync_sidecar_for_the_cli(tmp_path):
    inst = Long.from_json(_long_data(100))
    path = tmp_path / "out.json"
    path.write_text(inst.dumps(indent=1) + "\n")  # what the CLI writes
    assert sc.sync_sidecar(str(path), inst.to_json(), write=True) == sc.sidecar_path(path)
    assert Long.load(path) == inst
    path.write_text(Long.from_json(_long_data(50)).dumps(indent=1) + "\n")
    assert sc.sync_sidecar(str(path), None, write=False) is None and not sc.sidecar_path(path).exists()
    assert len(Long.load(path).sizes) == 50
    with pytest.raises(InvalidOptionError, match="needs -o FILE"):
        sc.sync_sidecar("-", inst.to_json(), write=True, problem="long")
    assert sc.sync_sidecar(None, inst.to_json(), write=False) is None


def test_a_re_zipped_sidecar_with_changed_values_is_refused(tmp_path):
    """The fault campaign's case: one value of an array changed, the zip re-packed with valid
    CRCs and the meta (and its JSON-file digest) untouched. The content digest refuses it."""
    path, side = _written(tmp_path)
    with zipfile.ZipFile(side) as z:
        arrays = {n: np.load(io.BytesIO(z.read(n)), allow_pickle=False) for n in z.namelist() if n.startswith("a")}
    name = next(n for n, a in arrays.items() if a.dtype.kind == "f")
    changed = arrays[name].copy()
    changed[0] += 1.0

    def change(members):
        buf = io.BytesIO()
        np.save(buf, changed)
        members[name] = buf.getvalue()

    _rewrite(side, change)
    with pytest.raises(sc.SidecarError, match="content does not match the SHA-256") as exc:
        Long.load(path)
    assert exc.value.exit_status == 2 and len(str(exc.value).splitlines()) == 1
    assert Long.load(path, sidecar=False) == Long.load(path, sidecar=False)  # the JSON still reads
