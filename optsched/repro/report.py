"""Artifacts of a repro run: Markdown and CSV tables, PNG figures, and ``index.md``.

:class:`ArtifactWriter` implements :class:`~optsched.repro.experiment.ReportWriter` for one
experiment: ``table`` writes ``<id>_<name>.md`` (a header naming the paper, the formulation and
each method's fidelity, the caption, the table, the notes) and ``<id>_<name>.csv`` (every value in
full precision: floats as Python ``repr``, the shortest text that reads back to the same float);
``figure`` saves ``<id>_<name>.png`` (matplotlib, Agg); ``note`` adds a paragraph to the
experiment's section of ``index.md``.

``index.md`` holds one section per experiment between ``<!-- repro:begin ID -->`` and
``<!-- repro:end ID -->`` markers; a run replaces the sections of the experiments it ran and keeps
the others, so ``--only T2b`` does not erase the other tables' entries.
"""

from __future__ import annotations

import contextlib

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from optsched.core.atomic import atomic_path, write_text
from optsched.core.errors import InvalidOptionError

from optsched.experiments.declaration import Experiment

__all__ = ["ArtifactWriter", "SweepRecord", "render_section", "update_index", "method_fidelities",
           "run_summary", "INDEX_NAME"]

INDEX_NAME = "index.md"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_BEGIN = "<!-- repro:begin {} -->"
_END = "<!-- repro:end {} -->"
_SECTION = re.compile(r"<!-- repro:begin (\S+) -->\n(.*?)<!-- repro:end \1 -->\n?", re.S)


def method_fidelities(experiment: Experiment) -> list[str]:
    """``"problem/method (kind, fidelity ...)"`` for each method the experiment names."""
    import optsched

    out = []
    for name in experiment.methods:
        problem, _, method = name.partition("/")
        try:
            meth = optsched.get_problem(problem).get_method(method)
            out.append(f"{name} ({meth.kind}, fidelity {meth.fidelity})")
        except Exception:  # a method not (yet) registered: say so rather than fail the report
            out.append(f"{name} (not registered)")
    return out


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, dict, tuple)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def _md_value(value, spec: str | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if spec is not None and isinstance(value, (int, float)):
        return format(value, spec)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, (list, dict, tuple)):
        value = json.dumps(value, sort_keys=True)
    return str(value).replace("|", "\\|").replace("\n", " ")


class ArtifactWriter:
    """Writes one experiment's artifacts into ``out_dir`` (see the module docstring)."""

    def __init__(self, out_dir: str | Path, experiment: Experiment, *, quick: bool, command: str):
        self.out_dir = Path(out_dir)
        self.experiment = experiment
        self.quick = quick
        self.command = command
        self.artifacts: list[tuple[str, str]] = []  # (file name, caption)
        self.notes: list[str] = []

    def _path(self, name: str, suffix: str) -> Path:
        if not _NAME.match(name):
            raise InvalidOptionError("repro", "artifact name", "letters, digits, '_', '-', '.' only", name)
        return self.out_dir / f"{self.experiment.id}_{name}{suffix}"

    def table(self, name: str, rows: list[dict], columns: list[str] | None = None, *, caption: str = "",
              notes: list[str] | None = None, formats: dict[str, str] | None = None) -> None:
        """Write ``<id>_<name>.md`` and ``.csv``.

        ``columns`` defaults to every key in first-seen order; ``formats`` maps a column to a
        format spec for the Markdown only (e.g. ``{"ratio": ".4f"}``; the CSV keeps full precision).
        """
        if columns is None:
            columns = list(dict.fromkeys(k for row in rows for k in row))
        formats = formats or {}
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_csv_value(row.get(c)) for c in columns])
        write_text(self._path(name, ".csv"), buf.getvalue())  # atomic: whole or not at all

        exp = self.experiment
        lines = [f"# {exp.id}: {exp.title}", "",
                 f"Paper: {exp.paper}. Formulation: {exp.formulation}."]
        methods = method_fidelities(exp)
        if methods:
            lines.append("Methods: " + "; ".join(methods) + ".")
        lines += [f"Run: {'QUICK (reduced size)' if self.quick else 'full'}; made by `{self.command}` "
                  f"(versions and settings in `{INDEX_NAME}`).", ""]
        if caption:
            lines += [caption, ""]
        lines.append("| " + " | ".join(columns) + " |")
        lines.append("|" + "|".join("---" for _ in columns) + "|")
        for row in rows:
            lines.append("| " + " | ".join(_md_value(row.get(c), formats.get(c)) for c in columns) + " |")
        for text in notes or []:
            lines += ["", text]
        write_text(self._path(name, ".md"), "\n".join(lines) + "\n")
        self.artifacts.append((self._path(name, ".md").name, caption))
        self.artifacts.append((self._path(name, ".csv").name, "the same table in full precision"))

    def figure(self, name: str, fig, *, caption: str) -> None:
        """Save ``fig`` as ``<id>_<name>.png`` (and close it); the caption goes into ``index.md``."""
        import matplotlib.pyplot as plt

        path = self._path(name, ".png")
        with atomic_path(path) as tmp:  # whole or not at all
            fig.savefig(tmp, dpi=100, metadata={"Software": None})
        plt.close(fig)
        self.artifacts.append((path.name, caption))

    def note(self, text: str) -> None:
        """A paragraph in the experiment's section of ``index.md``."""
        self.notes.append(text)

    def remove_stale(self) -> None:
        """Delete this experiment's artifacts from an earlier run (before writing new ones)."""
        for path in self.out_dir.glob(f"{self.experiment.id}_*"):
            if path.suffix in (".md", ".csv", ".png") and path.is_file():
                path.unlink()


@dataclass
class SweepRecord:
    """What ``index.md`` says about one experiment in one run."""

    id: str
    script: str
    status: str  # "ok" | "failed" | "no data" | "not loaded"
    command: str
    quick: bool
    experiment: Experiment | None = None
    cells_total: int = 0
    cells_reused: int = 0
    cells_run: int = 0
    failures: list[tuple[dict, str]] = field(default_factory=list)
    seeds: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    executor: str = ""
    wall_s: float = 0.0
    cell_time_s: float = 0.0
    cell_cpu_s: float = 0.0
    jobs: int = 1
    artifacts: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    missing_data: str | None = None  # the first required data file that is not there ("no data")

    @property
    def failed(self) -> bool:
        return self.status in ("failed", "not loaded")

    def over_budget(self) -> bool | None:
        """Whether a QUICK run took longer than the experiment's ``quick_budget_s``, in wall time or
        in the unloaded estimate (cell CPU time / jobs); None for full runs and tables not run."""
        exp = self.experiment
        if not self.quick or exp is None or self.status in ("no data", "not loaded"):
            return None
        cold = self.cell_cpu_s / max(1, self.jobs)
        return self.wall_s > exp.quick_budget_s or cold > exp.quick_budget_s

    def outcome(self) -> str:
        """One word for the run's summary: ``ran`` (cells computed now), ``reused`` (every cell from
        the results database, the report regenerated), ``skipped`` (missing data) or ``FAILED``."""
        if self.status == "no data":
            return "skipped"
        if self.failed:
            return "FAILED"
        return "ran" if self.cells_run else "reused"

    def reason(self) -> str:
        """Why a table was skipped or failed, in one short line ("" when it ran)."""
        if self.status == "no data":
            what = self.missing_data or "a data file"
            return f"missing data {what} (optsched data fetch --all)"
        if not self.failed:
            return ""
        if self.status == "not loaded":
            return f"script not loaded: {_last_line(self.error)}"
        if self.failures:
            return f"{len(self.failures)} cell(s) raised: {_last_line(self.failures[0][1])}"
        head, _, rest = (self.error or "").partition("\n")
        return f"{head.rstrip(':')}: {_last_line(rest)}" if rest.strip() else head

    def budget_line(self) -> str | None:
        """The QUICK budget check (None for full runs or experiments that did not run)."""
        exp = self.experiment
        if not self.quick or exp is None or self.status == "no data":
            return None
        budget = exp.quick_budget_s
        cold = self.cell_cpu_s / max(1, self.jobs)
        over = self.over_budget()
        text = f"QUICK budget {budget:.0f} s: this run took {self.wall_s:.1f} s"
        if self.cells_reused:
            text += f" with {self.cells_reused} of {self.cells_total} cells reused from the results database"
        text += f"; unloaded estimate (cell CPU time / jobs) {cold:.1f} s"
        return text + (" -- **OVER BUDGET**" if over else " -- within budget")


def _last_line(text: str | None, width: int = 90) -> str:
    """The last non-empty line of a traceback or message (the exception), shortened to ``width``."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    line = lines[-1] if lines else "(no message)"
    return line if len(line) <= width else line[:width - 3] + "..."


def run_summary(records: list[SweepRecord], quick: bool) -> str:
    """The table printed at the end of ``optsched repro``: each table's outcome (ran, reused,
    skipped, FAILED), its cells (computed / reused / failed), its wall time, its QUICK budget
    (QUICK runs) and, for a skipped or failed table, why; then one line of totals.

    >>> from optsched.experiments.declaration import Experiment
    >>> exp = Experiment(id="T1", title="t", paper="p", formulation="[ours]", cells=list,
    ...                  run_cell=print, report=print, quick_budget_s=30.0)
    >>> ran = SweepRecord("T1", "t1.py", "ok", "", True, exp, cells_total=4, cells_run=4, wall_s=45.0)
    >>> skip = SweepRecord("T2", "t2.py", "no data", "", True, exp, missing_data="mknap/mknapcb1.txt")
    >>> print(run_summary([ran, skip], quick=True))
    table  outcome  cells (computed/reused/failed)  time  QUICK budget       reason
    T1     ran      4 (4/0/0)                       45 s  OVER: 45 s > 30 s
    T2     skipped  -                               -     -                  missing data mknap/mknapcb1.txt (optsched data fetch --all)
    2 tables: 1 ran, 0 reused, 1 skipped, 0 failed; 1 over the QUICK budget (T1)
    """
    from .progress import format_duration

    header = ["table", "outcome", "cells (computed/reused/failed)", "time"] + (["QUICK budget"] if quick else [])
    rows = []
    for rec in records:
        ran = rec.status not in ("no data", "not loaded") and rec.cells_total
        cells = (f"{rec.cells_total} ({rec.cells_run}/{rec.cells_reused}/{len(rec.failures)})" if ran else "-")
        row = [rec.id, rec.outcome(), cells, format_duration(rec.wall_s) if ran else "-"]
        if quick:
            over, budget = rec.over_budget(), rec.experiment.quick_budget_s if rec.experiment else None
            if over is None:
                row.append("-")
            elif over:
                took = max(rec.wall_s, rec.cell_cpu_s / max(1, rec.jobs))
                row.append(f"OVER: {format_duration(took)} > {format_duration(budget)}")
            else:
                row.append(f"within {format_duration(budget)}")
        row.append(rec.reason())
        rows.append(row)
    header.append("reason" if any(r[-1] for r in rows) else "")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]
    counts = {k: sum(r.outcome() == k for r in records) for k in ("ran", "reused", "skipped", "FAILED")}
    total = (f"{len(records)} table{'s' if len(records) != 1 else ''}: {counts['ran']} ran, {counts['reused']} reused, "
             f"{counts['skipped']} skipped, {counts['FAILED']} failed")
    if quick:
        over = [r.id for r in records if r.over_budget()]
        total += f"; {len(over)} over the QUICK budget" + (f" ({', '.join(over)})" if over else "")
    return "\n".join(lines + [total])


def _fence(text: str) -> list[str]:
    return ["```", text.rstrip(), "```"]


def render_section(rec: SweepRecord) -> str:
    """The Markdown of one experiment's section of ``index.md`` (without the markers)."""
    exp = rec.experiment
    title = f"{rec.id}: {exp.title}" if exp else f"{rec.id} ({rec.script})"
    lines = [f"## {title}", ""]
    if rec.status == "not loaded":
        lines += [f"**FAILED**: `{rec.script}` could not be loaded; nothing was run.", ""] + _fence(rec.error or "")
        return "\n".join(lines) + "\n"
    lines += [f"- paper: {exp.paper}; formulation: {exp.formulation}",
              f"- script: `{rec.script if '/' in rec.script else 'paper_repro/' + rec.script}`; "
              f"command: `{rec.command}`"]
    methods = method_fidelities(exp)
    if methods:
        lines.append("- methods: " + "; ".join(methods))
    if exp.instance_family:
        lines.append(f"- instance family: {exp.instance_family}")
    if rec.status == "no data":
        lines += ["", f"**Not run**: {rec.error}"]
        return "\n".join(lines).rstrip() + "\n"
    lines += [f"- run: {'QUICK' if rec.quick else 'full'}; {rec.cells_total} cells ({rec.cells_run} computed now, "
              f"{rec.cells_reused} reused from the results database, {len(rec.failures)} failed)",
              f"- seeds: {rec.seeds}",
              "- versions: " + ", ".join(f"{k} {v}" for k, v in rec.versions.items()),
              f"- settings: one thread per solve; {rec.executor}" + (f"; {exp.settings}" if exp.settings else ""),
              f"- wall time: {rec.wall_s:.1f} s (sum over cells: wall {rec.cell_time_s:.1f} s, "
              f"CPU {rec.cell_cpu_s:.1f} s)"]
    budget = rec.budget_line()
    if budget:
        lines.append(f"- {budget}")
    if rec.artifacts:
        lines += ["", "| artifact | caption |", "|---|---|"]
        lines += [f"| [{name}]({name}) | {caption.replace('|', '/')} |" for name, caption in rec.artifacts]
    for text in rec.notes:
        lines += ["", text]
    if rec.status == "failed":
        if rec.failures:
            lines += ["", f"**FAILED**: {len(rec.failures)} cell(s) raised; the report was not regenerated "
                          f"(artifacts of an earlier run, if any, are kept)."]
        for params, error in rec.failures[:5]:
            lines += ["", f"cell `{json.dumps(params, sort_keys=True)}`:"] + _fence(error)
        if len(rec.failures) > 5:
            lines += ["", f"... and {len(rec.failures) - 5} more failed cell(s)."]
        if rec.error:
            lines += ["", "**FAILED**: the artifacts were not regenerated (those of an earlier run, if any, "
                          "are kept):"] + _fence(rec.error)
    return "\n".join(lines).rstrip() + "\n"


def _natural(key: str):
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", key)]


_HEADER = """# optsched paper reproduction: results index

Made by `optsched repro` (`docs/repro.md`; layout in `paper_repro/README.md`). One section per
table: its artifacts, the command that made them, the instance family, seeds, versions, settings
and wall time. A run replaces the sections of the experiments it ran and keeps the others.
"""


def update_index(out_dir: str | Path, sections: dict[str, str], *, keep: dict[str, str] | None = None) -> Path:
    """Write ``index.md`` with ``sections`` (id -> Markdown) replacing those ids' old sections.

    ``keep`` maps an id to a line put in front of its *old* section instead of replacing it (an
    experiment skipped for missing data keeps the record of the run that made its artifacts).
    """
    from optsched.core.atomic import write_text

    path = Path(out_dir) / INDEX_NAME
    with output_lock(out_dir):  # two runs (--only T1, --only T2b, or the same twice) may finish at once
        try:
            previous = path.read_text()
        except FileNotFoundError:
            previous = ""
        write_text(path, _merge(previous, sections, keep or {}))  # atomic: a full disk keeps the old index
    return path


@contextlib.contextmanager
def output_lock(out_dir: str | Path):
    """Hold the exclusive lock of an artifacts folder (``<out_dir>/.runs/artifacts.lock``, in the
    ignored cache folder): moving a table's artifacts into place and rewriting ``index.md`` are
    done under it, so concurrent runs on one folder never interleave them. POSIX ``flock``; where
    it is missing, no lock (one run at a time)."""
    folder = Path(out_dir) / ".runs"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(folder / "artifacts.lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _merge(previous: str, sections: dict[str, str], keep: dict[str, str]) -> str:
    old = {m.group(1): m.group(2) for m in _SECTION.finditer(previous)}
    merged = dict(old)
    merged.update(sections)
    for key, line in keep.items():
        kept = old.get(key)
        if kept is not None:
            body = re.sub(r"^> Latest run: .*\n\n", "", kept, flags=re.M)
            merged[key] = re.sub(r"^(## .*\n\n)", lambda m: m.group(1) + f"> Latest run: {line}\n\n", body, count=1)
    parts = [_HEADER]
    for key in sorted(merged, key=_natural):
        parts += ["", _BEGIN.format(key), merged[key].rstrip() + "\n" + _END.format(key)]
    return "\n".join(parts) + "\n"
