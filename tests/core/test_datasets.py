"""``optsched data fetch``: downloads checked by SHA-256, against a local HTTP server (127.0.0.1
only) that serves either the shared data directory or a small copy the test builds itself."""

from __future__ import annotations

import filecmp
import functools
import hashlib
import http.server
import threading
from pathlib import Path

import pytest

from optsched import cli
from optsched.core import datasets
from optsched.core.data import data_dir, default_data_dir, data_target
from optsched.core.datasets import DATASETS, DataFetchError, DataSet, fetch, status


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture
def serve():
    """``serve(folder) -> base URL`` of a server on 127.0.0.1 serving ``folder``."""
    servers = []

    def start(folder: Path) -> str:
        handler = functools.partial(_Quiet, directory=str(folder))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A two-file data set whose pinned hashes are those of ``good`` bytes, in place of the registry."""
    good = {"a.txt": b"alpha\n", "sub/b.bin": bytes(range(256)) * 40}
    files = tuple((name, f"src/{name}", hashlib.sha256(data).hexdigest()) for name, data in good.items())
    toy = DataSet("toy", "toyset", "example/none", "0" * 40, "a test data set", "none", files)
    monkeypatch.setattr(datasets, "DATASETS", {"toy": toy})
    src = tmp_path / "server"
    for name, data in good.items():
        (src / "toyset" / name).parent.mkdir(parents=True, exist_ok=True)
        (src / "toyset" / name).write_bytes(data)
    return src, good


def test_fetch_reproduces_the_served_bytes_and_keeps_good_files(toy, serve, tmp_path):
    src, good = toy
    out = tmp_path / "cache"
    url = serve(src)
    lines = []
    paths = fetch(["toy"], out, mirror=url, log=lines.append)
    assert _files(out) == {f"toyset/{n}" for n in good}
    for name, data in good.items():
        assert (out / "toyset" / name).read_bytes() == data
    assert [p.name for p in paths] == ["a.txt", "b.bin"] and "2 downloaded" in lines[0]
    fetch(["toy"], out, mirror=url, log=lines.append)         # second run: nothing to download
    assert "0 downloaded, 2 already there" in lines[1]
    assert {s for _, _, s in status(["toy"], out)} == {"ok"}


def test_a_corrupted_download_is_rejected_and_nothing_is_kept(toy, serve, tmp_path):
    src, good = toy
    (src / "toyset" / "sub" / "b.bin").write_bytes(good["sub/b.bin"][:-1] + b"X")   # one byte changed
    out = tmp_path / "cache"
    with pytest.raises(DataFetchError) as exc:
        fetch(["toy"], out, mirror=serve(src), log=None)
    message = str(exc.value)
    assert "\n" not in message and "SHA-256" in message and "b.bin" in message
    assert _files(out) == {"toyset/a.txt"}                     # the good file before it; no partial file
    assert status(["toy"], out)[1][2] == "missing"


def test_a_corrupted_file_in_the_cache_is_never_used(toy, serve, tmp_path):
    src, good = toy
    out = tmp_path / "cache"
    (out / "toyset").mkdir(parents=True)
    (out / "toyset" / "a.txt").write_bytes(b"tampered\n")
    assert status(["toy"], out)[0][2] == "corrupted"
    (src / "toyset" / "a.txt").write_bytes(b"also wrong\n")   # and the source is bad too
    with pytest.raises(DataFetchError):
        fetch(["toy"], out, mirror=serve(src), log=None)
    assert not (out / "toyset" / "a.txt").exists()             # removed, not left to be read
    (src / "toyset" / "a.txt").write_bytes(good["a.txt"])
    fetch(["toy"], out, mirror=serve(src), log=None)
    assert (out / "toyset" / "a.txt").read_bytes() == good["a.txt"]


def test_cli_fetch_and_its_one_line_errors(toy, serve, tmp_path, capsys):
    src, good = toy
    out = tmp_path / "cache"
    url = serve(src)
    assert cli.main(["data", "fetch", "toy", "--dir", str(out), "--from", url]) == 0
    assert (out / "toyset" / "a.txt").read_bytes() == good["a.txt"]
    capsys.readouterr()
    (src / "toyset" / "a.txt").write_bytes(b"corrupt\n")
    (out / "toyset" / "a.txt").unlink()
    assert cli.main(["data", "fetch", "--all", "--dir", str(out), "--from", url]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("optsched: error:") and "SHA-256" in err
    assert cli.main(["data", "fetch", "nope", "--dir", str(out)]) == 2
    assert "unknown data set 'nope'" in capsys.readouterr().err
    assert cli.main(["data", "fetch", "--dir", str(out)]) == 2           # neither names nor --all
    assert "--all" in capsys.readouterr().err
    # a server that is not there: one line naming the URL
    dead = serve(tmp_path / "empty")
    assert cli.main(["data", "fetch", "toy", "--dir", str(tmp_path / "c2"), "--from", dead + "/nothing"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "download failed" in err and not (tmp_path / "c2" / "toyset" / "a.txt").exists()


def test_the_data_directory_defaults_to_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("OPTSCHED_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert data_target() == default_data_dir()
    assert data_dir() is None or data_dir() == default_data_dir()
    monkeypatch.setenv("OPTSCHED_DATA_DIR", str(tmp_path))
    assert data_target() == tmp_path and data_dir() == tmp_path


def test_every_registered_file_is_pinned_by_commit_and_sha256():
    seen = set()
    for ds in DATASETS.values():
        assert len(ds.commit) == 40 and all(c in "0123456789abcdef" for c in ds.commit)
        for rel, url, digest in ds.entries():
            assert url.startswith(f"https://raw.githubusercontent.com/{ds.repo}/{ds.commit}/")
            assert len(digest) == 64 and rel not in seen
            seen.add(rel)


@pytest.mark.data
def test_fetch_all_from_a_local_server_reproduces_the_data_directory(serve, tmp_path):
    """The whole registry, served from the real data directory, lands byte for byte; and the
    registry covers every file the data directory's SHA256SUMS lists."""
    source = data_dir()
    if source is None or not (source / "SHA256SUMS").is_file():
        pytest.skip("data: the shared data directory (with its SHA256SUMS) is not available")
    listed = {line.split()[1].removeprefix("./") for line in (source / "SHA256SUMS").read_text().splitlines() if line.strip()}
    registered = {rel for ds in DATASETS.values() for rel, _, _ in ds.entries()}
    assert registered == listed
    out = tmp_path / "cache"
    assert cli.main(["data", "fetch", "--all", "--dir", str(out), "--from", serve(source)]) == 0
    assert _files(out) == registered                           # nothing more (no temporary file), nothing less
    mismatched = [rel for rel in sorted(registered) if not filecmp.cmp(source / rel, out / rel, shallow=False)]
    assert not mismatched
