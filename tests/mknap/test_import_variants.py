"""OR-Library MKP files that differ from mknapcb1: other n and m, several problems, numbers wrapped
across lines, CRLF, gzip, a header value 0, bytes that are no text."""

import gzip

from optsched.cli import main
from optsched.problems.mknap.orlib import load_orlib

# two problems: n=3, m=2 with the profits wrapped over two lines; n=1, m=1 with a fractional header
TWO = "2\r\n3 2 0\r\n10 20\r\n 30\r\n1 2 3 4\r\n5 6\r\n4 5\r\n\r\n1 1 7.5\n5\n3\n2\n"


def test_other_sizes_wrapped_crlf(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_bytes(TWO.encode())
    a = load_orlib(path, 0)
    assert a.profits == (10.0, 20.0, 30.0)
    assert [list(r) for r in a.weights] == [[1, 2, 3], [4, 5, 6]]
    assert a.capacities == (4.0, 5.0)
    assert a.reference_value is None  # header 0: no reference value
    b = load_orlib(path, 1)
    assert (b.profits, b.capacities, b.reference_value) == ((5.0,), (2.0,), 7.5)


def test_gzip_and_cli_end_to_end(tmp_path, capsys):
    path = tmp_path / "mine.txt.gz"
    path.write_bytes(gzip.compress(TWO.encode()))
    assert load_orlib(path, 0).capacities == (4.0, 5.0)
    out = tmp_path / "x.json"
    assert main(["import", "orlib-mknap", str(path), "--index", "0", "-o", str(out)]) == 0
    assert main(["solve", "mknap", str(out), "--time-limit", "20", "--json", "-o", str(tmp_path / "r.json")]) == 0
    # by hand: items {1} (profit 20, weights 2, 5) is the best subset within capacities (4, 5)
    import json
    assert json.loads((tmp_path / "r.json").read_text())["objective"] == 20.0
    assert main(["check", "mknap", str(out), str(tmp_path / "r.json")]) == 0


def test_not_text_is_a_typed_error(tmp_path, capsys):
    path = tmp_path / "bin.txt"
    path.write_bytes(b"\x89PNG\x00\xff")
    assert main(["import", "orlib-mknap", str(path)]) == 2
    err = capsys.readouterr().err
    assert "(file)" in err and "UTF-8" in err and "Traceback" not in err
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00garbage")
    assert main(["import", "orlib-mknap", str(bad)]) == 2
