"""Output failures: a full disk or a read-only folder gives one line, exit 1, and no file left.

The full disk and the read-only folder are real: each command runs in a private mount namespace
(``unshare -m``) with a tmpfs mounted on its output folder, filled to the last byte or remounted
read-only; the case is skipped where mounting is not permitted. Killing a solve mid-write is
simulated at the one point where the file is complete but not yet in place (``fsync`` of the
temporary file).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import optsched
from optsched.plot import example, pictures
from tests.declared import declared, pick, solves_tiny_exactly

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
#: the problem whose commands write the files: a model to export and a ``tiny`` preset solved exactly
PROBLEM = pick(lambda p: p.build_model is not None and solves_tiny_exactly(p),
               "with a model and a tiny preset solved exactly").name
METHOD = optsched.get_problem(PROBLEM).default_method
#: a problem with a picture (its folder's ``plot.py``), drawn on its example instance
PICTURED = pictures()[0]
#: an importer and a file of the real data directory it reads, as a problem's tests declare it
#: (``IMPORT_EXAMPLE``; the first one in registry order)
IMPORTER, IMPORT_FILE = next(iter(declared("IMPORT_EXAMPLE").values()), (None, None))
DATA = Path(os.environ.get("OPTSCHED_DATA_DIR", "/nonexistent"))


def _can_mount() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=4k tmpfs $d "
                            "&& umount $d && rmdir $d"], capture_output=True)
    return probe.returncode == 0


MOUNT = pytest.mark.skipif(not _can_mount(), reason="needs unshare -m and tmpfs mounts (root in a container)")


def _run_on(folder: Path, kind: str, args: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``optsched ARGS`` with a tmpfs on ``folder``: ``full`` (no byte free) or ``ro`` (read-only)."""
    prepare = {"full": f"mount -t tmpfs -o size=64k tmpfs {folder} && (head -c 1m /dev/zero > {folder}/filler "
                       "2>/dev/null; true)",
               "ro": f"mount -t tmpfs -o size=1m tmpfs {folder} && mount -o remount,ro {folder}"}[kind]
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)
    script = (f"{prepare} && {sys.executable} -m optsched.cli {quoted}; rc=$?; "
              f"ls -A {folder} | grep -v '^filler$' > {folder}.left 2>/dev/null; exit $rc")
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=ENV,
                          cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("outputs")
    inst = optsched.generate(PROBLEM, seed=0, preset="tiny")
    (d / "i.json").write_text(inst.dumps())
    res = optsched.solve(inst, METHOD)
    res.save(d / "r.json")
    ex = example(PICTURED)
    pp = optsched.generate(PICTURED, seed=ex["seed"], preset=ex["preset"])
    (d / "pp.json").write_text(pp.dumps())
    optsched.solve(pp, ex["method"]).save(d / "pp-r.json")
    return d


VERBS = {
    "generate": lambda f, o: ["generate", PROBLEM, "--preset", "tiny", "-o", str(o / "g.json")],
    "generate-sidecar": lambda f, o: ["generate", PROBLEM, "--preset", "tiny", "--sidecar",
                                      "-o", str(o / "g.json")],
    "solve": lambda f, o: ["solve", PROBLEM, str(f / "i.json"), "--method", METHOD, "--quiet", "-o", str(o / "r.json")],
    "import": lambda f, o: ["import", IMPORTER, str(DATA / IMPORT_FILE), "-o", str(o / "m.json")],
    "export-mps": lambda f, o: ["export", PROBLEM, str(f / "i.json"), "-o", str(o / "m.mps")],
    "plot": lambda f, o: ["plot", PICTURED, str(f / "pp.json"), str(f / "pp-r.json"), "-o",
                          str(o / "p.png")],
}


@MOUNT
@pytest.mark.parametrize("kind", ["full", "ro"])
@pytest.mark.parametrize("verb", list(VERBS))
def test_a_full_disk_or_read_only_folder_gives_one_line_and_no_file(files, tmp_path, verb, kind):
    if verb == "import" and (IMPORTER is None or not (DATA / IMPORT_FILE).is_file()):
        pytest.skip(f"needs OPTSCHED_DATA_DIR with {IMPORT_FILE or 'a file an importer declares'}")
    if verb == "plot":
        pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    out.mkdir()
    proc = _run_on(out, kind, VERBS[verb](files, out))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-800:])
    assert len(lines) == 1 and lines[0].startswith("optsched: error: cannot write "), proc.stderr[-800:]
    assert ("No space left on device" if kind == "full" else "Read-only file system") in lines[0]
    assert "Traceback" not in proc.stderr and "wrote" not in proc.stdout
    left = Path(f"{out}.left").read_text().split()
    assert left == [], f"left behind: {left}"


@MOUNT
@pytest.mark.parametrize("kind", ["full", "ro"])
def test_repro_out_on_a_full_disk_or_read_only_folder(tmp_path, kind):
    scripts = tmp_path / "paper_repro"
    scripts.mkdir()
    from tests.repro.tiny import write_tiny

    write_tiny(scripts)
    out = tmp_path / "out"
    out.mkdir()
    proc = _run_on(out, kind, ["repro", "--quick", "--jobs", "1", "--out", str(out)], cwd=tmp_path)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-800:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1].startswith("optsched: error: cannot write"), proc.stderr[-800:]


# ---- a solve killed while its output is written --------------------------------------------------
_KILL_AT_FSYNC = """
import os, signal, sys
import optsched.core.atomic as atomic
real = os.fsync
def fsync(fd):
    if os.environ.get("KILL_AT") and os.fstat(fd).st_size > 0:
        os.kill(os.getpid(), getattr(signal, os.environ["KILL_AT"]))
    return real(fd)
atomic.os = type(os)("os_proxy")
atomic.os.__dict__.update(os.__dict__)
atomic.os.fsync = fsync
from optsched.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL"])
def test_a_solve_killed_mid_write_leaves_the_old_file_or_none(files, tmp_path, sig):
    """Killed when the new file is written but not yet in place: the target keeps its old bytes.
    SIGTERM also removes the temporary file (exit 143); SIGKILL cannot, but the target is intact."""
    target = tmp_path / "r.json"
    target.write_text("old\n")
    proc = subprocess.run([sys.executable, "-c", _KILL_AT_FSYNC, "solve", PROBLEM, str(files / "i.json"),
                           "--method", METHOD, "--quiet", "-o", str(target)],
                          capture_output=True, text=True, env=dict(ENV, KILL_AT=sig), cwd=ROOT, timeout=120)
    assert proc.returncode == (143 if sig == "SIGTERM" else -signal.SIGKILL), (proc.returncode, proc.stderr[-800:])
    assert target.read_text() == "old\n"
    others = sorted(p.name for p in tmp_path.iterdir() if p.name != "r.json")
    if sig == "SIGTERM":
        assert others == [] and proc.stderr.strip() == "optsched: terminated (SIGTERM)", (others, proc.stderr)
    else:
        assert all(name.startswith(".r.") and name.endswith(".json") for name in others), others


def test_a_sidecar_that_cannot_be_written_takes_its_json_with_it(tmp_path, monkeypatch, capsys):
    """``generate --sidecar`` on a disk that fills up while the sidecar is written: exit 1, one
    line, neither the JSON nor a sidecar nor any temporary file (no ``.npz.tmp``)."""
    import errno

    import numpy as np

    from optsched.cli import main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    code = main(["generate", PROBLEM, "--preset", "tiny", "--sidecar", "-o", str(tmp_path / "g.json")])
    err = capsys.readouterr().err
    assert code == 1 and err.strip() == f"optsched: error: cannot write {tmp_path / 'g.json.npz'}: No space left on device"
    assert list(tmp_path.iterdir()) == []


# ---- an output path that is not a regular file ----------------------------------------------------
#: every verb that writes a file, with its output path ``o``
WRITERS = {
    "generate": lambda f, o: ["generate", PROBLEM, "--preset", "tiny", "-o", str(o)],
    "solve": lambda f, o: ["solve", PROBLEM, str(f / "i.json"), "--method", METHOD, "--quiet", "-o", str(o)],
    "export-mps": lambda f, o: ["export", PROBLEM, str(f / "i.json"), "-o", str(o)],
    "compare": lambda f, o: ["compare", PROBLEM, str(f / "i.json"), "--methods", METHOD, "--quiet", "-o", str(o)],
    "plot": lambda f, o: ["plot", PICTURED, str(f / "pp.json"), str(f / "pp-r.json"), "-o", str(o)],
}
#: the suffix each verb's output must have (a FIFO or a folder is given that name)
SUFFIX = {"export-mps": ".mps", "compare": ".csv", "plot": ".png"}


@pytest.fixture
def no_rename_over_nodes(monkeypatch):
    """``os.replace`` that never replaces a device, a folder or a FIFO: code that would (as root a
    rename over ``/dev/null`` succeeds) fails the test instead of breaking the machine."""
    real = os.replace

    def guarded(src, dst, *args, **kwargs):
        if os.path.exists(dst) and not os.path.isfile(dst):
            raise AssertionError(f"renamed a file over the non-regular {dst}")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", guarded)


def _node(kind: str, folder: Path, suffix: str) -> Path:
    if kind in ("/dev/null", "/dev/full"):
        if not Path(kind).exists():
            pytest.skip(f"no {kind} here")
        return Path(kind)
    path = folder / f"node{suffix or '.json'}"
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs on this platform")
        os.mkfifo(path)
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize("kind", ["fifo", "folder", "/dev/null", "/dev/full"])
@pytest.mark.parametrize("verb", list(WRITERS))
def test_an_output_that_is_a_device_folder_or_fifo_is_refused_before_writing(files, tmp_path, verb, kind, capsys,
                                                                            no_rename_over_nodes):
    """Refused with one line naming ``-o`` (exit 2) before anything is written: a device keeps its
    node (still the same character device), a FIFO is never opened (a write would block), no
    temporary file is left next to the target."""
    import stat

    from optsched.cli import main

    if verb == "plot":
        pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    out.mkdir()
    target = _node(kind, out, SUFFIX.get(verb, ".json"))
    before = os.stat(target)
    code = main(WRITERS[verb](files, target))
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 2, (code, captured.err[-800:])
    assert len(lines) == 1 and "field '-o'" in lines[0], captured.err
    if not (kind.startswith("/dev/") and verb in SUFFIX):  # else the suffix is refused first, just as well
        assert "not a regular file" in lines[0], captured.err
    after = os.stat(target)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino
    left = sorted(p.name for p in out.iterdir() if p != target)
    assert left == [], left
    if kind.startswith("/dev/"):
        assert stat.S_ISCHR(os.stat(kind).st_mode)
        assert not [p for p in Path("/dev").glob(f".{Path(kind).name}.*.tmp*")]


@pytest.mark.parametrize("kind", ["fifo", "folder", "/dev/null"])
def test_the_atomic_writer_refuses_a_node_itself(tmp_path, kind, no_rename_over_nodes):
    """Below the command line too (the API's ``inst.save``, ``optsched.plot(..., path)``, the repro
    tables): a typed error naming the path, nothing written, the node as it was."""
    import stat

    from optsched.core.atomic import write_text
    from optsched.core.errors import InvalidOptionError

    target = _node(kind, tmp_path, ".json")
    mode = stat.S_IFMT(os.stat(target).st_mode)
    with pytest.raises(InvalidOptionError, match="not a regular file"):
        write_text(target, "x\n")
    with pytest.raises(InvalidOptionError, match="not a regular file"):
        optsched.generate(PROBLEM, seed=0, preset="tiny").save(target)
    assert stat.S_IFMT(os.stat(target).st_mode) == mode
    assert sorted(p.name for p in tmp_path.iterdir() if p != target) == []


def test_the_atomic_writer_checks_again_just_before_the_rename(tmp_path, no_rename_over_nodes):
    """A FIFO that appears at the target while the file is written is not replaced either."""
    from optsched.core.atomic import atomic_path
    from optsched.core.errors import InvalidOptionError

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    target = tmp_path / "late.json"
    with pytest.raises(InvalidOptionError, match="FIFO"):
        with atomic_path(target) as tmp:
            tmp.write_text("x\n")
            os.mkfifo(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["late.json"]


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_compare_on_a_full_disk_gives_one_line_and_no_file(files, tmp_path, monkeypatch, capsys, where):
    """``compare -o`` when the disk fills up while the table is written (the CSV writer's own
    write, or the ``fsync`` of the temporary file): exit 1, one line, nothing left."""
    import errno

    import pandas as pd

    import optsched.core.atomic as atomic
    from optsched.cli import main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "write":
        monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    else:
        monkeypatch.setattr(atomic.os, "fsync", full)
    out = tmp_path / "out"
    out.mkdir()
    code = main(["compare", PROBLEM, str(files / "i.json"), "--methods", METHOD, "--quiet", "-o", str(out / "c.csv")])
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert code == 1, (code, captured.err[-800:])
    assert lines == [f"optsched: error: cannot write {out / 'c.csv'}: No space left on device"], captured.err
    assert "wrote" not in captured.out
    assert list(out.iterdir()) == []
