"""The sweep runner behind ``optsched repro``.

For each selected experiment script: check its data files, list its cells, open its results
database (:mod:`.db`), submit the cells not yet finished (and those whose stored row says
``hit_time_limit``: the safety net fired, so they are retried) to the executor (:mod:`.executors`),
store each cell as it finishes, and when every cell is there call the experiment's ``report``
with the rows in cell order. Artifacts are written into a staging folder and moved into place
only when ``report`` succeeds, so a failing report never leaves a half-written table. After each
experiment its section of ``index.md`` is rewritten.

A script that fails to import, cells that raise, or a report that raises do not stop the other
experiments: they are recorded in ``index.md`` and the run exits with status 1 at the end.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import TextIO

from optsched.core.atomic import OutputError
from optsched.core.data import DataUnavailable, data_file
from optsched.core.errors import InvalidInstanceError, InvalidOptionError

from .db import ResultsDB, ResultsDBError
from .discovery import Script, discover, format_exception, select
from .executors import SINGLE_THREAD_ENV, CellTask, make_executor
from .keys import cell_key, cell_seed, file_digest, software_versions
from .report import ArtifactWriter, SweepRecord, output_lock, render_section, run_summary, update_index

__all__ = ["RunOptions", "run", "run_sweep", "runs_dir", "artifacts_dir", "DEFAULT_OUT", "SCRIPTS_DIR"]

DEFAULT_OUT = "paper_repro/results"
SCRIPTS_DIR = "paper_repro"


class RunOptions:
    """How to run: QUICK or full, executor (``local`` | ``dask``), jobs, scheduler (and how long
    joining it may take, s), output folder."""

    def __init__(self, *, quick: bool = False, executor: str = "local", jobs: int = 2,
                 scheduler: str | None = None, out: str | Path = DEFAULT_OUT, connect_timeout: float | None = None):
        self.quick, self.executor, self.jobs, self.scheduler = quick, executor, jobs, scheduler
        self.connect_timeout = connect_timeout
        self.out = Path(out)

    def command(self, experiment_id: str) -> str:
        """The command that regenerates one experiment's artifacts."""
        parts = ["optsched repro"] + (["--quick"] if self.quick else []) + ["--only", experiment_id]
        if str(self.out) != DEFAULT_OUT:
            parts += ["--out", str(self.out)]
        return " ".join(parts)


def runs_dir(out: str | Path) -> Path:
    """Where the results databases are: ``<out>/.runs`` (not committed)."""
    return Path(out) / ".runs"


def artifacts_dir(out: str | Path, quick: bool) -> Path:
    """Where the artifacts go: ``<out>`` for full runs, ``<out>/quick`` for QUICK runs."""
    return Path(out) / "quick" if quick else Path(out)


class _Progress:
    """Per-sweep progress on stderr: how many cells are reused from the results database, then
    cells done, elapsed time and an ETA (from this run's throughput): a live line on a terminal,
    else a log line at most every ``interval`` seconds; one summary line at the end."""

    def __init__(self, label: str, total: int, done: int, stream: TextIO, interval: float = 5.0,
                 clock=time.monotonic):
        from .progress import StatusLine

        self.label, self.total, self.done, self.reused = label, total, done, done
        self.stream = stream
        self.line = StatusLine(stream, interval=interval, clock=clock)
        self.live = self.line.live

    def begin(self) -> None:
        """Say what is reused and what is left to compute (always: a resumed run is not silent)."""
        left = self.total - self.reused
        if self.reused:
            self.stream.write(f"{self.label}: {self.total} cells, {self.reused} reused from the results "
                              f"database, {left} to compute\n")
        elif left:
            self.stream.write(f"{self.label}: {self.total} cells to compute\n")
        self.stream.flush()

    def text(self) -> str:
        from .progress import repro_line

        return repro_line(self.label, self.done, self.total, self.reused, self.line.clock() - self.line.start)

    def step(self) -> None:
        self.done += 1
        self.line.update(self.text())

    def finish(self, text: str) -> None:
        self.line.clear()
        self.stream.write(f"{self.label}: {text}\n")
        self.stream.flush()


def _seeds_text(experiment_id: str, cells: list[dict]) -> str:
    explicit = sorted({c["seed"] for c in cells if isinstance(c.get("seed"), int) and not isinstance(c["seed"], bool)})
    derived = sum(1 for c in cells if not (isinstance(c.get("seed"), int) and not isinstance(c["seed"], bool)))
    parts = []
    if explicit:
        shown = ", ".join(map(str, explicit[:10])) + (", ..." if len(explicit) > 10 else "")
        parts.append(f"explicit `seed` parameter, {len(explicit)} value(s): {shown}")
    if derived:
        parts.append(f"{derived} cell(s) with seeds derived from the experiment id and cell parameters "
                     f"(`derive_seed(0, 'repro', '{experiment_id}', canonical params)`)")
    return "; ".join(parts) or "no cells"


class _LazyExecutor:
    """Starts the executor (process pool or dask cluster) only when a sweep has cells to run."""

    def __init__(self, options: RunOptions):
        self.options = options
        self.executor = None

    def get(self):
        if self.executor is None:
            o = self.options
            self.executor = make_executor(o.executor, o.jobs, o.scheduler, getattr(o, "connect_timeout", None))
        return self.executor

    def describe(self) -> str:
        if self.executor is not None:
            return self.executor.describe()
        o = self.options
        return f"executor {o.executor}, jobs={o.jobs}"

    def close(self, terminate: bool = False) -> None:
        if self.executor is not None:
            self.executor.close(terminate)
            self.executor = None


def run_sweep(script: Script, options: RunOptions, executor: _LazyExecutor, versions: dict[str, str],
              stream: TextIO | None = None) -> SweepRecord:
    """Run one experiment's sweep and report; the record says what happened (never raises,
    except ``KeyboardInterrupt``). ``stream``: where progress goes (None: the current stderr)."""
    stream = sys.stderr if stream is None else stream
    exp = script.experiment
    rec = SweepRecord(id=script.id, script=script.origin or script.path.name, status="ok", command=options.command(script.id),
                      quick=options.quick, experiment=exp, versions=versions, jobs=options.jobs)
    if exp is None:
        rec.status, rec.error = "not loaded", script.error
        stream.write(f"{script.id}: FAILED to load {script.path.name}\n")
        return rec
    start = time.monotonic()
    try:
        for relative in exp.requires_data:
            data_file(relative)
    except DataUnavailable as exc:
        rec.status, rec.error, rec.missing_data = "no data", f"data unavailable: {exc}.", relative
        stream.write(f"{exp.id}: skipped, {rec.error}\n")
        return rec
    try:
        cells = list(exp.cells(options.quick))
        for params in cells:
            if not isinstance(params, dict):
                raise TypeError(f"cells() must return dicts, got {type(params).__name__}")
        digests = [file_digest(path) for path in script.paths]
        script_versions = {**versions, "script": digests[0] if len(digests) == 1 else "+".join(digests)}
        keys = [cell_key(exp.id, params, script_versions, exp.revision) for params in cells]
        if len(set(keys)) != len(keys):
            raise ValueError("cells() returned the same parameters more than once")
        # the file and declaration that run each cell (one per part of a table declared in parts)
        sources = script.cell_sources(options.quick) or [(script.path, "")] * len(cells)
        if len(sources) != len(cells):
            raise ValueError(f"cells() gave {len(cells)} cells, its parts {len(sources)}")
    except Exception:
        rec.status, rec.error = "failed", "cells() raised:\n" + format_exception()
        stream.write(f"{exp.id}: FAILED, cells() raised\n")
        return rec
    rec.cells_total, rec.seeds = len(cells), _seeds_text(exp.id, cells)
    db_path = runs_dir(options.out) / f"{exp.id}{'-quick' if options.quick else ''}.sqlite"
    try:
        db = ResultsDB(db_path, exp.id)
    except ResultsDBError as exc:
        rec.status, rec.error = "failed", str(exc)
        stream.write(f"{exp.id}: FAILED, {exc}\n")
        return rec
    try:
        with db:
            stored, progress = _run_cells(db, exp, sources, options, executor, keys, cells, rec, stream)
    except ResultsDBError as exc:  # a corrupt row, a full disk: this table fails, stored rows are kept
        rec.status, rec.error = "failed", str(exc)
        stream.write(f"{exp.id}: FAILED, {exc}\n")
        return rec
    rows = [cell.row for cell in stored if cell is not None]
    rec.cell_time_s = sum(cell.wall_s for cell in stored if cell is not None)
    rec.cell_cpu_s = sum(cell.cpu_s for cell in stored if cell is not None)
    if rec.failures:
        rec.status = "failed"
    else:
        _report(exp, rows, options, rec)
    rec.wall_s = time.monotonic() - start
    summary = (f"{rec.cells_total} cells ({rec.cells_run} computed, {rec.cells_reused} reused, "
               f"{len(rec.failures)} failed) in {rec.wall_s:.1f} s")
    if rec.status == "failed":
        summary += " -- FAILED (see index.md)"
    budget = rec.budget_line()
    if budget and "OVER BUDGET" in budget:
        summary += f" -- OVER the QUICK budget of {exp.quick_budget_s:.0f} s"
    progress.finish(summary)
    return rec


def _run_cells(db: ResultsDB, exp, sources: list[tuple[Path, str]], options: RunOptions, executor: "_LazyExecutor",
               keys: list[str], cells: list[dict], rec: SweepRecord, stream: TextIO):
    """Compute the cells not yet stored, storing each as it finishes; the stored cells in order,
    and the progress line."""
    finished = db.finished_keys()
    # a row stopped by the wall-clock safety net is a symptom of the machine (load), not a
    # result: rerun it
    retry = {k for k in finished & set(keys) if db.get(k).row.get("hit_time_limit")}
    tasks = [CellTask(k, str(path.resolve()), p, cell_seed(exp.id, p), declaration)
             for k, p, (path, declaration) in zip(keys, cells, sources) if k not in finished or k in retry]
    rec.cells_reused = len(cells) - len(tasks)
    progress = _Progress(exp.id, len(cells), rec.cells_reused, stream)
    progress.begin()
    params_of = {t.key: t for t in tasks}
    if tasks:
        for outcome in executor.get().run(tasks):
            task = params_of[outcome.key]
            if outcome.error is not None:
                rec.failures.append((task.params, outcome.error))
            else:
                db.add(task.key, task.params, task.seed, outcome.row, wall_s=outcome.wall_s,
                       cpu_s=outcome.cpu_s, worker=outcome.worker, replace=task.key in retry)
                rec.cells_run += 1
            progress.step()
    rec.executor = executor.describe()
    return [db.get(k) for k in keys], progress


def _report(exp, rows: list[dict], options: RunOptions, rec: SweepRecord) -> None:
    """Run ``exp.report`` into a staging folder of this run's own; on success replace the old
    artifacts with it, holding the output folder's lock (two runs on one folder do not interleave
    their moves, and neither removes the other's staging)."""
    import secrets

    out = artifacts_dir(options.out, options.quick)
    staging = out / f".staging-{exp.id}-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        staging.mkdir(parents=True)
    except OSError as exc:
        rec.status, rec.error = "failed", f"cannot create the staging folder {staging} ({exc.strerror or exc})"
        return
    writer = ArtifactWriter(staging, exp, quick=options.quick, command=rec.command)
    try:
        import matplotlib

        matplotlib.use("Agg")
        exp.report(rows, writer)
    except Exception:
        rec.status, rec.error = "failed", "report() raised:\n" + format_exception()
        shutil.rmtree(staging, ignore_errors=True)
        return
    try:
        with output_lock(out):
            ArtifactWriter(out, exp, quick=options.quick, command=rec.command).remove_stale()
            for path in sorted(staging.iterdir()):
                path.replace(out / path.name)
    except OSError as exc:
        rec.status, rec.error = "failed", f"cannot move the artifacts into {out} ({exc.strerror or exc})"
        return
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    rec.artifacts, rec.notes = writer.artifacts, writer.notes


def _ignore_folder(folder: Path) -> None:
    """Write a ``.gitignore`` that ignores ``folder``'s content (caches and QUICK output)."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        from optsched.core.atomic import write_text

        write_text(ignore, "# written by optsched repro: not part of the committed reference\n*\n")


def repository_scripts(scripts_dir: str | Path) -> bool:
    """Whether ``scripts_dir`` is the ``paper_repro/`` folder of the repository the package lives in
    (its tables and every problem folder's ``repro.py`` run together)."""
    import optsched

    try:
        return Path(scripts_dir).resolve() == Path(optsched.__file__).resolve().parents[1] / SCRIPTS_DIR
    except OSError:
        return False


def run(options: RunOptions, only: list[str] | None = None, scripts_dir: str | Path = SCRIPTS_DIR,
        stream: TextIO | None = None) -> int:
    """Run the selected experiments; exit status 0, or 1 if any script, cell or report failed.
    Progress goes to ``stream`` (None: the current ``sys.stderr``, looked up at the call).

    The tables are the scripts of ``scripts_dir`` and, when it is the repository's ``paper_repro/``
    (:func:`repository_scripts`) or ``only`` names tables, every problem folder's ``repro.py``.

    Raises :class:`~optsched.core.errors.UnknownNameError` for an id in ``only`` that no script
    declares and :class:`~optsched.core.errors.InvalidInstanceError` for a missing scripts folder
    or invalid options (both exit status 2 in the CLI).
    """
    stream = sys.stderr if stream is None else stream
    scripts_dir = Path(scripts_dir)
    if not scripts_dir.is_dir():
        raise InvalidOptionError("repro", "paper_repro", f"no experiment scripts folder {scripts_dir.resolve()}; "
                                   "run optsched repro from the repository root")
    if options.jobs < 1:
        raise InvalidOptionError("repro", "--jobs", "must be >= 1", options.jobs)
    if options.executor not in ("local", "dask"):
        raise InvalidOptionError("repro", "--executor", "must be local or dask", options.executor)
    if options.scheduler and options.executor != "dask":
        raise InvalidOptionError("repro", "--scheduler", "needs --executor dask", options.scheduler)
    if getattr(options, "connect_timeout", None) is not None:
        from .executors import check_connect_timeout

        if not options.scheduler:
            raise InvalidOptionError("repro", "--connect-timeout", "needs --scheduler (the time to join it)",
                                     options.connect_timeout)
        check_connect_timeout(options.connect_timeout)
    # the problems' own tables belong to the repository of the package: a scripts folder elsewhere
    # (a test's, another project's) runs its own scripts, and the problems' tables only by name
    problems = bool(only) or repository_scripts(scripts_dir)
    if not problems:
        stream.write(f"optsched repro: {scripts_dir} is not the package's paper_repro/ folder: the problems' "
                     "own tables are not run (name them with --only)\n")
    scripts = select(discover(scripts_dir, problems=problems), only)
    for name in SINGLE_THREAD_ENV:  # inherited by the worker processes started below
        os.environ[name] = "1"
    os.environ["MPLBACKEND"] = "Agg"
    out = artifacts_dir(options.out, options.quick)
    try:
        out.mkdir(parents=True, exist_ok=True)
        _ignore_folder(runs_dir(options.out))
        if options.quick:
            _ignore_folder(out)
    except OSError as exc:
        raise OutputError(getattr(exc, "filename", None) or out, exc.strerror or str(exc)) from None
    versions = software_versions()
    executor = _LazyExecutor(options)
    failed = False
    records = []
    try:
        for script in scripts:
            rec = run_sweep(script, options, executor, versions, stream)
            records.append(rec)
            failed = failed or rec.failed
            keep = {rec.id: f"skipped ({rec.error})"} if rec.status == "no data" else None
            try:
                update_index(out, {rec.id: render_section(rec)}, keep=keep)
            except OSError as exc:  # the atomic write left the old index as it was
                raise OutputError(out / "index.md", exc.strerror or str(exc)) from None
    except KeyboardInterrupt:
        executor.close(terminate=True)
        stream.write("interrupted: every finished cell is saved in the results database; "
                     "rerun the same command to resume\n")
        raise
    finally:
        executor.close()
    if records:
        stream.write(f"\noptsched repro{' --quick' if options.quick else ''}: summary ({out / 'index.md'})\n"
                     + run_summary(records, options.quick) + "\n")
        stream.flush()
    return 1 if failed else 0
