"""The block-wise readers (``iopddl_io``) give the instances of the ``json.loads`` readers, bit for bit;
every file they do not handle goes to the ``json.loads`` reader and its typed errors; the block-wise
canonical text is ``json.dumps``'s.

The readers run both number paths (``small_blocks``): the compiled scan, and the orjson blocks with
tiny blocks (16 bytes) so that every file of a few hundred bytes crosses many block boundaries;
the shared contest files run with the real sizes and both paths.
"""

from __future__ import annotations

import gzip
import json
import random

import numpy as np
import pytest

from optsched.cli import main
from optsched.core.errors import InvalidInstanceError
from optsched.core.instance import canonical_json
from optsched.problems.intra_op import generate
from optsched.problems.intra_op import iopddl_io
from optsched.problems.intra_op.generate import load_iopddl
from optsched.problems.intra_op.instance import _ARRAYS, IntraOpInstance

from tests.conftest import require_data


@pytest.fixture(params=["compiled", "orjson-blocks"])
def small_blocks(request, monkeypatch):
    """Both number paths: the compiled scan, and the orjson blocks it falls back to."""
    monkeypatch.setattr(iopddl_io, "SCAN_BYTES", 64)
    monkeypatch.setattr(iopddl_io, "FLAT_MIN_BYTES", 8)
    if request.param == "orjson-blocks":
        monkeypatch.setattr(iopddl_io, "COMPILED", False)
        monkeypatch.setattr(iopddl_io, "BLOCK_BYTES", 16)


def _doc(seed: int) -> dict:
    """A random valid IOPDDL document: 1-6 nodes of 1-4 strategies, random edges (parallel ones
    included), integer and fractional costs, sentinels, optional limit, name and edges."""
    rng = random.Random(seed)
    n = rng.randint(1, 6)
    k = [rng.randint(1, 4) for _ in range(n)]

    def num():
        return rng.choice([0, 1, 7, 123456, 1e18, 10 ** 18, 2.5, 0.1, 3.0, 1e-7, 2 ** 60])

    nodes = {"intervals": [[s, s + rng.randint(0, 4)] for s in (rng.randint(0, 5) for _ in range(n))],
             "costs": [[num() for _ in range(kv)] for kv in k],
             "usages": [[rng.randint(0, 9) for _ in range(kv)] for kv in k]}
    pairs = [[u, v] for u in range(n) for v in range(n) if u != v and rng.random() < 0.4]
    p = {"name": f"r{seed}", "nodes": nodes}
    if pairs or rng.random() < 0.5:
        p["edges"] = {"nodes": pairs, "costs": [[num() for _ in range(k[u] * k[v])] for u, v in pairs]}
    if rng.random() < 0.8:
        p["usage_limit"] = rng.choice([rng.randint(5, 40), 12.5])
    if rng.random() < 0.3:
        del p["name"]
    return {"problem": p}


def _shuffled(obj, rng):
    """The same data with every object's keys in a random order."""
    if isinstance(obj, dict):
        items = list(obj.items())
        rng.shuffle(items)
        return {key: _shuffled(value, rng) for key, value in items}
    if isinstance(obj, list):
        return [_shuffled(x, rng) for x in obj]
    return obj


def _text(doc: dict, variant: int) -> bytes:
    """One of several spellings of the same document: compact, indented, spaces and line breaks
    inside rows, integers written as floats, CRLF line ends, a BOM."""
    rng = random.Random(variant)
    doc = _shuffled(doc, rng)
    if variant % 5 == 0:
        text = json.dumps(doc, separators=(",", ":"))
    elif variant % 5 == 1:
        text = json.dumps(doc, indent=2)
    elif variant % 5 == 2:
        text = json.dumps(doc).replace(", ", " ,\n\t ").replace("[", "[ ").replace("]", " ]")
    elif variant % 5 == 3:   # every number but the node indices as a float, sentinels as 1E18
        p = doc["problem"]
        p["nodes"] = {key: [[float(x) for x in row] for row in rows] for key, rows in p["nodes"].items()}
        if "edges" in p:
            p["edges"]["costs"] = [[float(x) for x in row] for row in p["edges"]["costs"]]
        text = json.dumps(doc).replace("1e+18", "1E18")
    else:
        text = json.dumps(doc, indent=1).replace("\n", "\r\n")
    data = text.encode()
    return b"\xef\xbb\xbf" + data if variant % 7 == 3 else data


def _both(path):
    """(fast result or exception, json.loads result or exception)."""
    out = []
    for fast in (True, False):
        try:
            out.append(load_iopddl(path, fast=fast))
        except InvalidInstanceError as exc:
            out.append(exc)
    return out


def _same(a, b) -> bool:
    if isinstance(a, Exception) or isinstance(b, Exception):
        return type(a) is type(b) and str(a) == str(b)
    return a == b and a.name == b.name and a.provenance == b.provenance


@pytest.mark.parametrize("seed", range(40))
def test_fast_reader_equals_json_reader_on_random_files(tmp_path, small_blocks, seed):
    doc = _doc(seed)
    for variant in range(seed % 3, 10, 3):
        path = tmp_path / (f"r{seed}-{variant}.json" + (".gz" if variant % 2 else ""))
        data = _text(doc, variant)
        path.write_bytes(gzip.compress(data) if variant % 2 else data)
        assert iopddl_io.read_iopddl_fast(path, "x") is not None, (variant, data[:200])   # the fast path ran
        fast, slow = _both(path)
        assert not isinstance(slow, Exception), slow
        assert _same(fast, slow), (variant, data[:200])
        # the bits, not only ==: the arrays' bytes (0.0 vs -0.0 and NaN cannot hide)
        for name in ("cost", "usage", "edge_cost", "start", "end", "edge_u", "edge_v", "num_strategies"):
            assert getattr(fast, name).tobytes() == getattr(slow, name).tobytes()


def test_fast_reader_reads_the_hand_made_numbers():
    """Not only equal to the slow reader: the right numbers (both could be wrong alike)."""
    doc = {"problem": {"nodes": {"usages": [[3, 1], [3, 0, 9], [1]], "intervals": [[0, 2], [2, 4], [1, 2]],
                                 "costs": [[10, 20.5], [1, 2, 3], [1e18]]},
                       "usage_limit": 4, "name": "h[a]\"nd{",
                       "edges": {"costs": [[1, 2, 3, 4, 5, 6], [7, 8]], "nodes": [[0, 1], [2, 0]]}}}
    raw = json.dumps(doc).encode()
    k, cost, usage, iv, eu, ev, ecost, limit, title, _ = iopddl_io._read_iopddl(raw, "f")
    assert k.tolist() == [2, 3, 1] and cost.tolist() == [10, 20.5, 1, 2, 3, 1e18]
    assert usage.tolist() == [3, 1, 3, 0, 9, 1] and iv.tolist() == [[0, 2], [2, 4], [1, 2]]
    assert eu.tolist() == [0, 2] and ev.tolist() == [1, 0] and ecost.tolist() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert limit == 4 and title == 'h[a]"nd{'


# malformed files: each goes to the json.loads reader and gets its error, naming the field
BAD = {
    "empty strategy list": ('"costs": [[1], [2, 3]], "usages": [[5], [1, 1]]', '"costs": [[1], []], "usages": [[5], []]',
                            "problem.nodes.costs[1]"),
    "usage count": ('"usages": [[5], [1, 1]]', '"usages": [[5], [1]]', "problem.nodes.usages[1]"),
    "interval triple": ('[[0, 2], [1, 3]]', '[[0, 2], [1, 3, 4]]', "problem.nodes.intervals[1]"),
    "fractional time": ('[[0, 2], [1, 3]]', '[[0, 2], [1.5, 3]]', "problem.nodes.intervals"),
    "node index range": ('"nodes": [[0, 1]]', '"nodes": [[0, 2]]', "problem.edges.nodes[0]"),
    "node index float": ('"nodes": [[0, 1]]', '"nodes": [[0, 0.1]]', "problem.edges.nodes[0]"),
    "edge length": ('[[0, 7]]', '[[0, 7, 8]]', "problem.edges.costs[0]"),
    "limit string": ('"usage_limit": 4', '"usage_limit": "4"', "problem.usage_limit"),
    "null cost": ('"costs": [[1], [2, 3]]', '"costs": [[1], [2, null]]', "problem.nodes.costs"),
    "true edge cost": ('[[0, 7]]', '[[0, true]]', "problem.edges.costs"),
    "string edge cost": ('[[0, 7]]', '[[0, "7"]]', "problem.edges.costs"),
    "NaN edge cost": ('[[0, 7]]', '[[0, NaN]]', "problem.edges.costs"),
    "Infinity usage": ('"usages": [[5], [1, 1]]', '"usages": [[5], [1, Infinity]]', "problem.nodes.usages"),
    "true time": ('[[0, 2], [1, 3]]', '[[0, true], [1, 3]]', "problem.nodes.intervals"),
    "word cost": ('"costs": [[1], [2, 3]]', '"costs": [[1], [2, "three"]]', "problem.nodes.costs"),
    "trailing comma": ('"costs": [[1], [2, 3]]', '"costs": [[1], [2, 3,]]', "(file)"),
    "missing comma": ('"costs": [[1], [2, 3]]', '"costs": [[1] [2, 3]]', "(file)"),
    "double comma": ('"costs": [[1], [2, 3]]', '"costs": [[1],, [2, 3]]', "(file)"),
    "leading zero": ('"costs": [[1], [2, 3]]', '"costs": [[1], [02, 3]]', "(file)"),
    "plus sign": ('"costs": [[1], [2, 3]]', '"costs": [[1], [+2, 3]]', "(file)"),
    "flat costs": ('"costs": [[1], [2, 3]]', '"costs": [1, 2, 3]', "problem.nodes"),
    "no problem": ('{"problem": {', '{"problem": [{', "(file)"),
    "unbalanced": ('"usage_limit": 4}}', '"usage_limit": 4}', "(file)"),
    # lists the reader does not use are still checked: json.loads checks every byte
    "bad row under a repeated key": ('"costs": [[1], [2, 3]]', '"costs": [[1], [2..5]], "costs": [[1], [2, 3]]',
                                     "(file)"),
    "bad row under an unknown key": ('"usage_limit": 4', '"usage_limit": 4, "extra": [[1], [2.]]', "(file)"),
    "bad flat list under an unknown key": ('"usage_limit": 4', '"usage_limit": 4, "extra": [1, 2, 3, 4, 5, 6, 7, 8,]',
                                           "(file)"),
}
GOOD = ('{"problem": {"name": "t", "nodes": {"intervals": [[0, 2], [1, 3]], "costs": [[1], [2, 3]], '
        '"usages": [[5], [1, 1]]}, "edges": {"nodes": [[0, 1]], "costs": [[0, 7]]}, "usage_limit": 4}}')


@pytest.mark.parametrize("case", list(BAD))
def test_malformed_files_get_the_json_readers_typed_error(tmp_path, small_blocks, case, capsys):
    old, new, field = BAD[case]
    assert old in GOOD
    path = tmp_path / "bad.json"
    path.write_text(GOOD.replace(old, new, 1))
    fast, slow = _both(path)
    assert isinstance(fast, InvalidInstanceError) and _same(fast, slow)
    assert f"field '{field}'" in str(fast)
    assert main(["import", "iopddl", str(path), "-o", str(tmp_path / "out.json")]) == 2
    assert f"'{field}'" in capsys.readouterr().err and not (tmp_path / "out.json").exists()


def test_accepted_oddities_are_read_as_the_json_reader_reads_them(tmp_path, small_blocks):
    """An escaped name, no name, an exponent: the fast path reads them exactly as the JSON
    reader does (values that are no finite number are refused by both: ``BAD``)."""
    for old, new in (('"t"', '"\\u00e9\\"]"'), ('"name": "t", ', ''), ('[[0, 7]]', '[[0, 1E+2]]')):
        path = tmp_path / "odd.json"
        path.write_text(GOOD.replace(old, new, 1))
        fast, slow = _both(path)
        assert _same(fast, slow), (new, fast, slow)


@pytest.mark.data
@pytest.mark.parametrize("name", ["asplos-2025-iopddl-A.json.gz", "asplos-2025-iopddl-B.json.gz",
                                  "asplos-2025-iopddl-G.json.gz", "asplos-2025-iopddl-M.json.gz",
                                  "asplos-2025-iopddl-S.json.gz", "example.json"])
@pytest.mark.parametrize("compiled", [True, False])
def test_fast_reader_equals_json_reader_on_the_contest_files(name, compiled, monkeypatch):
    monkeypatch.setattr(iopddl_io, "COMPILED", compiled and iopddl_io.HAVE_NUMBA)
    path = require_data(f"iopddl/{name}")
    fast, slow = _both(path)
    assert iopddl_io.read_iopddl_fast(path, "x") is not None
    assert _same(fast, slow)
    for field in ("cost", "usage", "edge_cost", "start", "end", "edge_u", "edge_v"):
        assert getattr(fast, field).tobytes() == getattr(slow, field).tobytes()
    assert fast.sha256() == slow.sha256()


# -- the stored format ---------------------------------------------------------------------------
def _stored_cases():
    yield generate(0, preset="small")
    yield generate(1, graph="random", nodes=30, strategies=5)
    yield IntraOpInstance(num_strategies=[3, 2], cost=[0.1, 1e18, 5e-324, 2, 3], usage=[1, 2, 3, 4, 5],
                          start=[0, 1], end=[2, 2], edge_u=[1], edge_v=[0], edge_cost=list(range(6)),
                          usage_limit=None, name='ü"[x]', provenance="a\nb")


@pytest.mark.parametrize("inst", list(_stored_cases()), ids=lambda i: i.name or "hand")
@pytest.mark.parametrize("indent", [None, 1])
def test_stored_fast_reader_equals_the_generic_reader(tmp_path, small_blocks, inst, indent):
    path = tmp_path / "i.json"
    path.write_text(inst.dumps(indent=indent))
    fast = IntraOpInstance.load_fast(path)
    generic = IntraOpInstance.from_json(json.loads(path.read_text()))
    assert fast is not None and fast == generic == inst
    for name in ("cost", "usage", "edge_cost", "start", "end", "edge_u", "edge_v", "num_strategies"):
        assert getattr(fast, name).tobytes() == getattr(generic, name).tobytes()
    # a file written by json.dumps (spaces, Python's float text) reads the same
    path.write_text(json.dumps(inst.to_json(), indent=indent))
    assert IntraOpInstance.load_fast(path) == inst


def test_stored_ints_mixed_with_floats_are_typed_as_one_list(tmp_path, small_blocks):
    """A list mixing ints and floats is float64 as a whole (as np.asarray types json.loads' list),
    also when its blocks are all-int and all-float."""
    inst = generate(0, preset="small")
    data = inst.to_json()
    data["start"] = [int(x) for x in data["start"][:-1]] + [float(data["start"][-1])]
    data["cost"] = [int(x) for x in data["cost"][:-1]] + [2.5]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    data_fast = iopddl_io.read_stored_fast(path.read_bytes(), _ARRAYS)
    assert data_fast["start"].dtype == np.asarray(json.loads(path.read_text())["start"]).dtype
    fast = IntraOpInstance.load_fast(path)
    assert fast == IntraOpInstance.from_json(json.loads(path.read_text())) and fast.cost[-1] == 2.5


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(edge_cost=d["edge_cost"][:-1] + ["x"]), "edge_cost"),
    (lambda d: d.update(cost=d["cost"][:-1] + [-1.0]), "cost["),
    (lambda d: d.pop("usage"), "usage"),
    (lambda d: d.update(colour=[1] * 50), "colour"),
    (lambda d: d.update(start=[True] * len(d["start"])), "start"),
    (lambda d: d.update(cost=d["cost"][:-1] + [True]), "cost"),       # one true among numbers
    (lambda d: d.update(edge_u=[False] + d["edge_u"][1:]), "edge_u"),
])
def test_stored_malformed_gets_the_generic_error(tmp_path, small_blocks, edit, field, capsys):
    data = generate(0, preset="small").to_json()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["solve", "intra-op", str(path), "--method", "greedy", "--time-limit", "5"]) == 2
    err = capsys.readouterr().err
    assert f"field '{field}" in err and "Traceback" not in err


def test_a_result_record_is_named_as_such(tmp_path, capsys):
    inst_path, res_path = tmp_path / "i.json", tmp_path / "r.json"
    inst_path.write_text(generate(0, preset="tiny").dumps(indent=1))
    assert main(["solve", "intra-op", str(inst_path), "--method", "greedy", "-o", str(res_path)]) == 0
    capsys.readouterr()
    assert main(["solve", "intra-op", str(res_path), "--method", "greedy"]) == 2
    assert "is a result record" in capsys.readouterr().err


def test_import_then_solve_through_the_fast_paths(tmp_path, small_blocks):
    src = tmp_path / "g.json"
    src.write_text(GOOD)
    out = tmp_path / "i.json"
    assert main(["import", "iopddl", str(src), "-o", str(out)]) == 0
    assert IntraOpInstance.load_fast(out) == load_iopddl(src, fast=False)


# -- the canonical text --------------------------------------------------------------------------
@pytest.mark.parametrize("block", [1, 3, 1 << 20])
def test_block_text_is_json_dumps(block):
    floats = np.array([0.0, 1.0, 9999999999999998.0, 1e16, 1e18, 0.1, 2.5, 5e-324, 1.7976931348623157e308,
                       123456789.0, 1e-05, 3.0, 0.1, 1e15, 7.0], dtype=np.float64)
    ints = np.array([0, 9, 10, 99, 100, -1, -10 ** 18, 2 ** 63 - 1, 10 ** 18, 5], dtype=np.int64)
    rng = np.random.default_rng(3)
    many = rng.integers(0, 10 ** 9, size=5000).astype(np.float64)
    many[::11] = 1e18
    for arr in (floats, ints, many, np.zeros(0), ints[ints >= 0]):
        text = b"".join(iopddl_io.array_json_chunks(arr, block=block)).decode()
        assert text == json.dumps(arr.tolist(), separators=(",", ":"))


@pytest.mark.parametrize("bad", [-0.0, float("inf"), float("nan")])
def test_block_text_refuses_what_it_cannot_spell(bad):
    with pytest.raises(iopddl_io.NotCanonical):
        b"".join(iopddl_io.array_json_chunks(np.array([1.0, bad])))


def test_hash_of_a_generated_iopddl_file_is_the_generic_hash(tmp_path):
    doc = _doc(5)
    path = tmp_path / "h.json"
    path.write_text(json.dumps(doc))
    import hashlib

    inst = load_iopddl(path)
    assert inst.sha256() == hashlib.sha256(canonical_json(inst.to_json()).encode()).hexdigest()


def test_save_writes_the_instance_piece_by_piece(tmp_path):
    inst = generate(2, graph="random", nodes=40, strategies=6)
    path = tmp_path / "s.json"
    (tmp_path / "s.json.npz").write_bytes(b"stale")
    inst.save(path)
    assert not (tmp_path / "s.json.npz").exists()
    assert IntraOpInstance.from_json(json.loads(path.read_text())) == inst == IntraOpInstance.load(path)
    inst.save(path, sidecar=True)
    assert (tmp_path / "s.json.npz").exists() and IntraOpInstance.load(path) == inst


@pytest.mark.parametrize("seed", range(8))
def test_mutated_files_read_as_the_json_reader_reads_them(tmp_path, small_blocks, seed):
    """Random edits of a valid file (a character inserted, deleted or replaced by one that matters
    to JSON): the fast path gives the json.loads reader's instance or its error, never another."""
    rng = random.Random(seed)
    alphabet = '[]{},:"0123456789.eE-+ \n\\tn'
    base = GOOD.replace('"t"', '"t[\\"x"')
    for _ in range(40):
        text = list(base)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text))
            op = rng.random()
            if op < 0.4:
                text[i] = rng.choice(alphabet)
            elif op < 0.7:
                text.insert(i, rng.choice(alphabet))
            else:
                del text[i]
        path = tmp_path / "m.json"
        path.write_text("".join(text))
        fast, slow = _both(path)
        assert _same(fast, slow), ("".join(text), fast, slow)


def _tokens(seed: int, count: int) -> list[str]:
    """JSON numbers of every shape: ints up to 20 digits, 17-digit reprs of random floats over 60
    decades, short decimals, exponents (also after 12-19 digits), signs, zeros."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        c = rng.random()
        if c < 0.25:
            t = str(rng.randint(0, 10 ** rng.randint(1, 20)))
        elif c < 0.55:
            t = repr(rng.random() * 10.0 ** rng.randint(-30, 30))
        elif c < 0.75:
            t = f"{rng.randint(0, 10 ** 8)}.{rng.randint(0, 10 ** rng.randint(1, 6))}"
        elif c < 0.85:
            t = f"{rng.randint(1, 99)}{rng.choice('eE')}{rng.choice(['', '+', '-'])}{rng.randint(0, 40)}"
        elif c < 0.95:   # long integer parts with an exponent (past the exact case's 15 digits)
            t = f"{rng.randint(0, 10 ** rng.randint(12, 19))}e{rng.randint(-6, 6)}"
        else:
            t = rng.choice(["0", "-0", "0.0", "-0.0", "0e5", "9223372036854775807", "9223372036854775808"])
        out.append("-" + t if rng.random() < 0.2 and not t.startswith("-") else t)
    return out


@pytest.mark.skipif(not iopddl_io.HAVE_NUMBA, reason="the compiled scan needs numba")
@pytest.mark.parametrize("seed", range(3))
def test_compiled_numbers_are_the_json_numbers(seed):
    """Every value the compiled scan makes is the double json.loads makes of the token, bit for
    bit (its exact cases are exact; the others go through float())."""
    toks = _tokens(seed, 20000)
    text = ", ".join(toks).encode()
    values, _, anyf = iopddl_io._compiled(text, 0, len(text), matrix=False, as_int=False, size=len(toks), rows=0)
    ref = np.asarray(json.loads(b"[" + text + b"]"), dtype=np.float64)
    assert anyf and values.tobytes() == ref.tobytes()
    rows = [toks[i:i + 7] for i in range(0, len(toks), 7)]
    text = ",\n".join("[" + ",".join(r) + "]" for r in rows).encode()
    values, lens, _ = iopddl_io._compiled(text, 0, len(text), matrix=True, as_int=False, size=len(toks),
                                          rows=len(rows))
    assert values.tobytes() == ref.tobytes() and lens.tolist() == [len(r) for r in rows]
