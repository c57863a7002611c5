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
