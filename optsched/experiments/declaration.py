"""How a paper table or figure is declared for ``make repro`` (the project's page
``docs/repro.md``).

A problem's ``optsched/problems/<folder>/repro.py`` (or a problem-free script
``paper_repro/<id>_<name>.py``) defines a module-level ``EXPERIMENT`` (or ``EXPERIMENTS``, a list,
for a folder with several tables); in a problem's folder it may be a plain ``dict`` of these
fields::

    EXPERIMENT = Experiment(
        id="T9", title="a benchmark library: milp vs best known, LP bound and a greedy",
        paper="the library's paper", formulation="[ours]",
        cells=cells,        # cells(quick: bool) -> list[dict]   JSON-able parameters, one task each
        run_cell=run_cell,  # run_cell(params: dict, seed: int) -> dict   one JSON-able row
        report=report,      # report(rows: list[dict], out: ReportWriter) -> None
        requires_data=("library/instances.txt",),   # files of OPTSCHED_DATA_DIR (docs/data.md)
    )

Each cell is an independent task: ``run_cell`` must be a module-level function (it runs in a
worker process that imports the script by path), deterministic for its ``seed`` (derived from the
cell's key by the runner), single-threaded, and bounded by deterministic work limits (a wall-clock
time limit only as a safety net; a row that hit one says so in a ``hit_time_limit`` column, and
those rows are left out of determinism checks). Columns whose names end in ``_s`` are timings:
they are dropped before byte-for-byte comparisons of two runs.

``report`` receives every finished row (in cell order) and writes artifacts through the
:class:`ReportWriter` (Markdown + CSV tables, matplotlib PNG figures with captions). It runs only
when every cell finished; aggregate seeds with :func:`optsched.experiments.stats.mean_ci95`.

**A table over several problems** is declared in parts, one per problem folder: each part has the
table's ``id``, its own ``part`` name and its ``order`` among the parts, and declares its cells,
``run_cell``, ``report``, ``methods`` and ``requires_data``; the part of ``order`` 0 declares the
table's header (``title``, ``paper``, ``formulation``, budget, family, settings, revision). The
runner joins the parts into one experiment: the cells of every part in ``order``, each cell run by
its own part's ``run_cell``, and each part's ``report`` called with its own rows. One results
database and one section of ``index.md`` per table, as for a table of one script.

The seed ``run_cell`` receives is ``params["seed"]`` when the cell's parameters carry an int
``seed``, else one derived from the experiment id and the canonical parameters
(:func:`optsched.repro.keys.cell_seed`). The runner is ``optsched repro`` (:mod:`.runner`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

__all__ = ["Experiment", "ReportWriter", "TIMING_SUFFIX"]

TIMING_SUFFIX = "_s"


class ReportWriter(Protocol):
    """What ``report`` writes through (implemented by the repro runner)."""

    quick: bool

    def table(self, name: str, rows: list[dict], columns: list[str] | None = None, *,
              caption: str = "", notes: list[str] | None = None,
              formats: dict[str, str] | None = None) -> None:
        """Write ``<id>_<name>.md`` and ``.csv``; ``notes`` are printed under the table;
        ``formats`` maps columns to Python format strings for the Markdown (the CSV keeps full precision)."""

    def figure(self, name: str, fig, *, caption: str) -> None:
        """Save a matplotlib figure as ``<id>_<name>.png`` with its caption in ``index.md``."""

    def note(self, text: str) -> None:
        """A paragraph in the experiment's section of ``index.md`` (e.g. 'data directory absent')."""


@dataclass(frozen=True)
class Experiment:
    id: str
    title: str
    paper: str
    formulation: str
    cells: Callable[[bool], list[dict]]
    run_cell: Callable[[dict, int], dict]
    report: Callable[[list[dict], ReportWriter], None]
    requires_data: tuple[str, ...] = ()
    #: QUICK budget on the 2-core reference machine (seconds), checked by the runner's summary
    quick_budget_s: float = 120.0
    methods: tuple[str, ...] = field(default=())  # "problem/method" names, for fidelity in headers
    #: the instance family, for ``index.md`` (e.g. "OR-Library mknapcb1, 5 rows x 100 items")
    instance_family: str = ""
    #: solver settings beyond one thread per solve, for ``index.md`` (e.g. "time_limit 300 s")
    settings: str = ""
    #: bump when ``run_cell`` changes what it computes: part of every cell key (when not 0), so the
    #: stored cells of the old revision are not reused (the optsched version alone does not move
    #: with every code change)
    revision: int = 0
    #: a table declared in parts (one per problem folder): this part's name, unique within the table
    part: str = ""
    #: a part's place among the table's parts (cells, reports); 0 for the part with the header
    order: int = 0
