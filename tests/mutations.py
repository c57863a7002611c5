"""Hand mutation testing of the suite: break the code in realistic ways, one at a time, and see
whether a test fails.

Each mutation replaces one exact snippet of a source file (it must occur exactly once). A
problem's mutants live in its tests' folder, ``tests/<folder>/mutants.py`` (a ``MUTATIONS`` list of
:class:`Mutation`), with the mutants of shared code that its tests kill; the mutants of shared code
killed by the shared layers' own tests are :data:`SHARED_MUTATIONS` below (``problem`` is None).
The script discovers every ``tests/*/mutants.py``, copies the worktree to a temporary folder,
applies a mutation there, runs the mutation's tests, restores the file, and reports ``killed``
(some test failed) or ``survived``. The working tree itself is never modified.

Tests run in two stages: first the fast, focused ones, then, only if the mutation survived them,
the wider ones. A problem's mutant: fast, its folder's ``test_checker_constraints*.py``,
``test_import_handcomputed*.py``, ``test_learned_learns.py``, ``test_status_honesty.py``,
``test_bounds_are_bounds.py``, ``test_guarantee_constants.py`` and ``test_quality.py``, its cases of
the cross-problem referee and generator tests (and of the top-level status, bound, guarantee and
quality tests, those whose id names it), and the tests its ``mutants.py`` lists in ``FAST``; full,
its whole non-slow test folder and its conformance tests. A shared mutant: fast, the referee,
option-range and generator-parameter tests and the core's guard, portfolio and integral-bound
status tests; full, every shared layer's test folder (``tests/<dir>/`` of no problem).

    PYTHONPATH=$PWD python tests/mutations.py                   # all mutations
    PYTHONPATH=$PWD python tests/mutations.py ID [ID ...]       # some, by id
    PYTHONPATH=$PWD python tests/mutations.py checker           # a category (or a problem's name)
    PYTHONPATH=$PWD python tests/mutations.py --list

Last full run (178 mutations, each problem's in its tests' folder, 2026-11-27, one process, load
1.3-2.2, about 15 minutes): 177 killed, 161 of them in the fast stage, 1 survived. The run before
(127 mutations, the same day, load about 2-4): 126 killed, 1 survived
(``threads-unbounded``: ``SolverSettings`` refuses more than ``MAX_THREADS`` threads too, so removing
``solve()``'s own check changes nothing: an equivalent mutant), score 99%. The previous full run
(68 mutations, 2026-11-24) had 66 killed; its two survivors are now killed only by a scale test's
comparison with the stored outputs of the previous implementation (``tests/golden.md``), not by a
quality value (the notes are in their folder's ``mutants.py``).

The 54 mutations added for the newer problems and the shared validation (issue 35: 42 in the
newer problems' checkers, importers and declared generator ranges, 11 in the shared referee,
parameter, settings and reader code, 1 in an older problem's checker), run on their own
(2026-11-27, load 6 to 160 on 2 shared cores): 54 killed, all in the fast stage, score 100%.
``params-nan`` is killed only by the test of its message: with every numeric option declaring a
finite interval, NaN and infinities are refused by the interval too.

The 24 status, bound and guarantee mutations (the blocks "status, bounds, guarantees";
``docs/status.md``), run on their own (2026-11-27, load 4 to 14 on 2 shared cores): 23 killed, all
in the fast stage, score 96%. The survivor, a guarantee's constant halved, is expected (the note is
in its folder's ``mutants.py``). These mutants' ``category`` values ``status`` and ``guarantee``
select them; ``bound`` also selects older ones.

The 27 mutations of the importers and learned policies (categories ``importer`` and ``learned``: a
unit, an edge direction, an id order, an interval end, a column, a row order read wrong in every
import format; a training advantage's sign, a feature, a price that sees the present, the MARL
interference feature), run on their own (2026-11-27, load 3 to 11 on 2 shared cores, 11 minutes):
27 killed, 25 in the fast stage, score 100%. A first run had two survivors; the tests named in
their results were added for them (the notes are in their folders' ``mutants.py``). The fast stage
includes each problem's ``test_import_handcomputed*.py`` and ``test_learned_learns.py`` since.
Without the ``test_import_handcomputed*.py`` files (a copy of the tree with them removed, same
day, load 2-6), 10 of the 19 importer mutants survive both stages: the topology, Rhino and HAP
units, both reversed operator-graph edges, string-ranked edge-list ids, the cache capacity, the
inclusive IOPDDL end, a Gbit/GB slip and the ignored multi-GPU throughput rows.

The 14 mutations of records, outputs and pictures (the referee's infinite gap and bound, another
instance's record, ``optsched.check`` judging a record, ``plot`` of a malformed solution, a zero
denominator's ratio, the sidecar hash's dtype and shape, a NaN time in the results database, the
source digest's nested packages, both ``certify`` re-evaluations, an output over a device, the
ratio band's floor and a method with no ratio), run on their own (2026-12-02, load 3 to 9 on 2
shared cores) with the existing ``referee-gap`` (its snippet changed): 15 killed, all in the fast
stage (a shared mutant's own tests are named in its ``fast`` field).

The 14 mutations of the one validation path for the API and the command line (an interval's
open upper end, a list option's later items, 10**400 as a float option or setting, method options
unchecked or without their inferred range, an empty method or back-end name, a key given twice in
a JSON object, NaN for a float option; 1e308 in a problem's costs and integer entries, an infinite
switch cost, an operator graph's null colour class, an empty Gavel trace column), run on their own
(2026-12-02, load about 9 on 2 shared cores): 14 killed, all in the fast stage, each by the test
written for its intent, score 100%.

The heuristic-step mutations (category ``step``) double as the demonstration that each
documented step of a method changes a recorded quality value: disabling the step must make a
quality test (or another test) fail.
"""

from __future__ import annotations

import glob
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
if __name__ == "__main__":  # the folders' lists import the record from here: one module, not two
    sys.modules.setdefault("tests.mutations", sys.modules[__name__])


@dataclass(frozen=True)
class Mutation:
    id: str
    problem: str | None  # the registered problem whose tests kill it; None: shared code, shared tests
    category: str      # checker | step | bound | error-path | simulator | importer | learned | status | guarantee
    path: str
    old: str
    new: str
    what: str
    #: tests run first in the fast stage (before the stage's usual ones), e.g. a shared mutant's own test file
    fast: tuple[str, ...] = ()


M = Mutation
SHARED_MUTATIONS = [
    # -- the check referee, parameter, settings and reader validation (issue 35) -----------------------
    M("referee-types", None, "error-path", "optsched/core/result.py",
      "        validate_result_types(data)", "        pass", "a result's objective is not type-checked"),
    M("referee-infeasible", None, "error-path", "optsched/core/referee.py",
      'if status == "infeasible" and result.solution is not None:', 'if False:',
      "an infeasible record carrying a solution is accepted"),
    M("referee-optimal-gap", None, "error-path", "optsched/core/referee.py",
      'if status == "optimal" and gap is not None and gap > allowed and not within_abs:', 'if False:',
      "an optimal record with a positive gap is accepted"),
    M("referee-bound", None, "error-path", "optsched/core/referee.py",
      "if better and abs(objective - bound) > objective_tolerance(bound):", "if False:",
      "an objective better than its own bound is accepted"),
    M("referee-gap", None, "error-path", "optsched/core/referee.py",
      "elif not (gap == expected or _gap_close(gap, expected)):", "elif False:",
      "a gap that is not |objective - bound| / |objective| is accepted"),
    M("referee-infinite-gap", None, "error-path", "optsched/core/referee.py",
      "return math.isfinite(expected) and abs(gap - expected)", "return abs(gap - expected)",
      "an infinite relative gap matched by any gap (0 x inf slack)"),
    M("referee-infinite-bound", None, "error-path", "optsched/core/referee.py",
      "if bound is not None and not math.isfinite(bound):", "if False:",
      "an optimal record with bound -inf and gap 0 accepted"),
    M("referee-other-instance", None, "error-path", "optsched/core/referee.py",
      "    if claimed != actual:\n", "    if False:\n",
      "check and plot accept another instance's record (its instance_sha256)"),
    M("api-check-solution-only", None, "error-path", "optsched/api.py",
      "    if not isinstance(solution_or_result, Result):\n        return problem.check(instance, solution_or_result)",
      "    if True:\n        return problem.check(instance, getattr(solution_or_result, 'solution', solution_or_result))",
      "optsched.check judges a record's solution only, never its claims"),
    M("plot-unchecked-solution", None, "error-path", "optsched/plot.py",
      "    if not verdict.report.feasible:\n", "    if False:\n",
      "plot draws a malformed solution (a TypeError deep in the drawing code)",
      fast=("tests/plot/test_plot_records.py",)),
    M("params-nan", None, "error-path", "optsched/core/params.py",
      "    if not math.isfinite(out):\n        raise", "    if False:\n        raise",
      "NaN and infinities accepted for float options and settings"),
    M("params-interval", None, "error-path", "optsched/core/params.py",
      "if bounds is not None and not bounds.contains(value):", "if False:",
      "declared intervals not checked"),
    M("params-open-end", None, "error-path", "optsched/core/params.py",
      'hi_ok = value <= self.high if self.closed in ("both", "right") else value < self.high',
      "hi_ok = value <= self.high",
      "an interval open at its upper end accepts that end"),
    M("params-list-first-item", None, "error-path", "optsched/core/params.py",
      "for i, item in enumerate(value):", "for i, item in enumerate(value[:1]):",
      "a list option checked on its first item only"),
    M("params-overflow", None, "error-path", "optsched/core/params.py",
      "    except OverflowError:\n        raise error(", "    except ZeroDivisionError:\n        raise error(",
      "an integer past the float range escapes as a bare OverflowError (10**400 as a float option or setting)"),
    M("method-options-inferred", None, "error-path", "optsched/core/registry.py",
      'check_value(self.problem, f"option {k}", self.options[k], v, infer=True)',
      'check_value(self.problem, f"option {k}", self.options[k], v, infer=False)',
      "a method option without declared bounds is not held to the range inferred from its default"),
    M("method-options-unchecked", None, "error-path", "optsched/core/registry.py",
      '            v = check_value(self.problem, f"option {k}", self.options[k], v, infer=True)\n', "",
      "method options are not checked at all (a list for a string, NaN for seconds)"),
    M("empty-name", None, "error-path", "optsched/core/params.py",
      "    if not value.strip():", "    if False:",
      "an empty --method or --backend silently takes the default"),
    M("opgraph-color-null", None, "importer", "optsched/workloads/operator_graphs.py",
      'if "colorClass" in node and (', "if c is not None and (",
      "an operator graph's colorClass null read as no class"),
    M("gavel-empty-column", None, "importer", "optsched/workloads/traces.py",
      "                if not text.strip():\n                    raise _fail(source, number, column",
      "                if False:\n                    raise _fail(source, number, column",
      "an empty column of a Gavel trace line accepted"),
    M("json-duplicate-key", None, "error-path", "optsched/core/jsonfile.py",
      "    if _parsed_keys(data) == len(keys):\n        return\n", "    return\n",
      "a key given twice in a JSON object: the last value silently wins"),
    M("params-float-for-int", None, "error-path", "optsched/core/params.py",
      "    if want is int:\n        if not _is_int(value):", "    if want is int:\n        if False:",
      "a float where an int is declared accepted"),
    M("params-api-skips", None, "error-path", "optsched/core/generation.py",
      "    params = validate_parameters(problem, prob.generator_options, params)\n", "",
      "generate skips the declared constraints (behind the API, the tables and the CLI)"),
    M("threads-unbounded", None, "error-path", "optsched/core/solving.py",
      "if not _is_int(threads) or not 1 <= threads <= MAX_THREADS:", "if not _is_int(threads) or threads < 1:",
      "solve() accepts a million threads"),
    M("device-input", None, "error-path", "optsched/core/textfile.py",
      "        if not stat.S_ISFIFO(mode):\n", "        if False:\n", "a device is read as an input file"),
    M("data-offline-raw", None, "error-path", "optsched/core/datasets.py",
      "        raise DataFetchError(_unreachable(url, exc)) from None",
      "        raise DataFetchError(f\"{url}: download failed: {exc}\") from None",
      "an offline data fetch prints the HTTP library's raw message, no host, cause or --from/--dir",
      fast=("tests/core/test_data_offline.py",)),
    M("repro-summary-reused", None, "error-path", "optsched/repro/report.py",
      '        return "ran" if self.cells_run else "reused"', '        return "ran"',
      "the repro summary calls a table whose cells all came from the results database 'ran'",
      fast=("tests/repro/test_summary.py",)),
    M("repro-summary-budget", None, "error-path", "optsched/repro/report.py",
      "        return self.wall_s > exp.quick_budget_s or cold > exp.quick_budget_s",
      "        return self.wall_s > exp.quick_budget_s",
      "the repro summary ignores the unloaded estimate (cell CPU time / jobs) when checking the QUICK budget",
      fast=("tests/repro/test_summary.py",)),
    M("repro-load-cwd", None, "error-path", "optsched/frames.py",
      '    looked = Path(__file__).resolve().parents[1] / "paper_repro" / "results"',
      '    looked = Path("paper_repro") / "results"',
      "optsched.repro.load reads paper_repro/results relative to the working directory, not the package",
      fast=("tests/repro/test_load_anywhere.py",)),
    M("list-problems-methods", None, "error-path", "optsched/__init__.py",
      '"methods": len(p.methods)', '"methods": len(p.presets)',
      "optsched.list_problems() counts a problem's presets as its methods",
      fast=("tests/core/test_list_problems.py",)),
    M("did-you-mean-none", None, "error-path", "optsched/core/errors.py",
      "    found = close_matches(name, known)\n", "    found = []\n",
      "unknown names no longer suggest the close known ones",
      fast=("tests/core/test_did_you_mean.py",)),
    M("describe-no-interval", None, "error-path", "optsched/core/params.py",
      '        text = opt.type.__name__ + (f" in {opt.bounds}" if opt.bounds is not None else "")',
      "        text = opt.type.__name__",
      "help(problem) lists an option's type without its declared interval",
      fast=("tests/core/test_describe.py",)),
    M("describe-generator-options", None, "error-path", "optsched/core/registry.py",
      "            body = options_doc(self.generator_options, title=\"\").splitlines()[2:]",
      "            body = []",
      "help(problem) leaves out the generator options",
      fast=("tests/core/test_describe.py",)),
    M("objective-unit-dropped", None, "error-path", "optsched/cli/results.py",
      'f"  objective={prob.format_objective(result.objective, inst)}"', 'f"  objective={_fmt(result.objective)}"',
      "optsched solve prints the objective without its unit",
      fast=("tests/test_cli_units.py",)),
    # -- records and the numbers they are compared by ----------------------------------------------
    M("ratio-zero-denominator", None, "error-path", "optsched/core/registry.py",
      "return 1.0 if num == 0 else math.inf", "return 1.0",
      "a ratio with a zero denominator reported as 1 though the numerator is positive",
      fast=("tests/core/test_record_integrity.py",)),
    M("sidecar-hash-bytes-only", None, "error-path", "optsched/core/sidecar.py",
      'h.update(f"\\0{name}\\0{arr.dtype.str}\\0{arr.shape}\\0".encode())', 'h.update(f"\\0{name}\\0".encode())',
      "the sidecar hash ignoring dtype and shape", fast=("tests/core/test_record_integrity.py",)),
    M("db-nan-time", None, "error-path", "optsched/repro/db.py",
      "and math.isfinite(value) and value >= 0)", "and not value < 0)",
      "a NaN wall_s passing the results database's row check", fast=("tests/repro/test_integrity.py",)),
    M("source-digest-top-level", None, "error-path", "optsched/repro/keys.py",
      'root.rglob("*.py")', 'root.glob("*.py")',
      "the repro source digest covering top-level files only", fast=("tests/repro/test_integrity.py",)),
    M("output-node-replaced", None, "error-path", "optsched/core/atomic.py",
      "    if stat.S_ISREG(mode):\n        return None\n", "    return None\n",
      "an output path that is a device, a folder or a FIFO is written over (as root: /dev/full replaced)",
      fast=("tests/test_output_failures.py::test_the_atomic_writer_refuses_a_node_itself",)),
    M("ratio-band-below-one", None, "error-path", "optsched/plotting/crosscut.py",
      "low = max(0.0, min(half, mean - 1.0))", "low = half",
      "a ratio's confidence band drawn below 1.0 against an exact reference",
      fast=("tests/plot/test_crosscut_and_ticks.py",)),
    M("ratio-plot-no-ratio", None, "error-path", "optsched/plotting/crosscut.py",
      "(methods if any(math.isfinite(v) for v in vals) else skipped).append(m)", "methods.append(m)",
      "frame.plot() of a method not applicable on every instance (x and y must be the same size)",
      fast=("tests/plot/test_crosscut_and_ticks.py",)),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("guard-time-limit", None, "status", "optsched/core/solving.py",
      'elif "time_limit" in limited:', "elif False:",
      "the core's guard lets a sub-solve's time limit through (the mutant the issue says was untested)"),
    M("portfolio-loosest-bound", None, "bound", "optsched/core/backends/portfolio.py",
      'bound = (min(bounds) if model.sense == "max" else max(bounds)) if bounds else None',
      'bound = (max(bounds) if model.sense == "max" else min(bounds)) if bounds else None',
      "the portfolio reports the loosest member bound"),
    M("bound-rounded-wrong-way", None, "bound", "optsched/core/backends/base.py",
      'math.floor(bound / g + 1e-6) if model.sense == "max"', 'math.floor(bound / g - 1e-6) if model.sense == "max"',
      "an integral maximization's bound rounded down past an integer value (below OPT)"),
]


#: the per-problem test files of the fast stage, in each problem's tests folder (globs)
FAST_GLOBS = ("test_checker_constraints*.py", "test_import_handcomputed*.py", "test_learned_learns.py",
              "test_status_honesty.py", "test_bounds_are_bounds.py", "test_guarantee_constants.py")
#: the top-level cross-problem status, bound and guarantee tests: a problem's fast stage runs those
#: whose id names it, while they hold such cases
STATUS_FILES = ("tests/test_status_honesty.py", "tests/test_bounds_are_bounds.py", "tests/test_guarantee_constants.py")
#: a shared mutant's fast stage: the shared layers' referee, option and reader tests
SHARED_FAST = ("tests/test_check_referee.py", "tests/test_option_ranges.py", "tests/test_generator_params.py",
               "tests/test_json_reader.py", "tests/test_importer_validation.py")
#: and the core's guard and the portfolio's combination among the status tests (top-level
#: ``tests/test_status_honesty.py`` or a shared layer's ``tests/<dir>/test_status_honesty.py``)
SHARED_STATUS_KEYS = ("core_guard", "portfolio", "integral_bound")

_FOLDERS: dict[str, str] = {}
_EXTRA_FAST: dict[str, list[str]] = {}
_ALL: list[Mutation] = []


def folders() -> dict[str, str]:
    """Every registered problem's name -> its folder's name (``tests/<folder>/`` holds its tests)."""
    if not _FOLDERS:
        sys.path.insert(0, str(ROOT))
        import optsched

        for name, problem in optsched.core.registry.problems().items():
            _FOLDERS[name] = (problem.package or "").rsplit(".", 1)[-1] or name.replace("-", "_")
    return _FOLDERS


def mutations() -> list[Mutation]:
    """Every folder's ``tests/<folder>/mutants.py`` list, in registry order, then the shared ones."""
    if _ALL:
        return _ALL
    owner = {folder: name for name, folder in folders().items()}
    found = {Path(p).parent.name for p in glob.glob(str(ROOT / "tests" / "*" / "mutants.py"))}
    stray = sorted(found - set(owner))
    if stray:
        raise SystemExit(f"tests/{stray[0]}/mutants.py: tests/{stray[0]}/ is no registered problem's folder")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    for folder in [f for f in folders().values() if f in found]:
        module = importlib.import_module(f"tests.{folder}.mutants")
        for m in module.MUTATIONS:
            if m.problem != owner[folder]:
                raise SystemExit(f"tests/{folder}/mutants.py: {m.id} is a mutant of {m.problem!r}, "
                                 f"not of this folder's problem {owner[folder]!r}")
        _ALL.extend(module.MUTATIONS)
        _EXTRA_FAST[owner[folder]] = list(getattr(module, "FAST", ()))
        for test in _EXTRA_FAST[owner[folder]]:
            if not (ROOT / test.split("::", 1)[0]).is_file():
                raise SystemExit(f"tests/{folder}/mutants.py: FAST names {test}, which is not there")
    _ALL.extend(SHARED_MUTATIONS)
    seen: set[str] = set()
    for m in _ALL:
        if m.id in seen:
            raise SystemExit(f"mutation id {m.id!r} is used twice")
        seen.add(m.id)
    return _ALL


def fast_tests(problem: str | None) -> list[str]:
    if problem is None:  # the status tests at the top level or in a shared layer's folder
        mine = set(folders().values())
        status = [STATUS_FILES[0]] + sorted(str(Path(p).relative_to(ROOT)) for p in
                                            glob.glob(str(ROOT / "tests" / "*" / "test_status_honesty.py"))
                                            if Path(p).parent.name not in mine)
        return list(SHARED_FAST) + [node for path in status for node in _collected(path)
                                    if any(key in node for key in SHARED_STATUS_KEYS)]
    d = folders()[problem]
    own = {pattern: sorted(str(Path(p).relative_to(ROOT)) for p in glob.glob(str(ROOT / "tests" / d / pattern)))
           for pattern in FAST_GLOBS}
    fast = own["test_checker_constraints*.py"]
    # the cross-problem referee, generator and option tests of this problem (issue 35)
    fast += [f"tests/test_check_referee.py::{t}[{problem}]" for t in ("test_checkers_never_crash_on_malformed_solutions",
                                                                      "test_a_genuine_record_passes")]
    fast += [f"tests/test_generator_params.py::test_bad_values_through_the_api_and_the_cli_agree[{problem}]",
             "tests/test_generator_params.py::test_every_parameter_is_declared_with_a_type_and_a_finite_range"]
    # the status, bound and guarantee tests of this problem: its own files, and the top-level ones' cases
    fast += [node for path in STATUS_FILES for node in _collected(path) if _mentions(node, problem)]
    fast += [f for pattern in FAST_GLOBS[3:] for f in own[pattern]]
    # the importers against hand-computed values, and the learned policies' learning checks
    fast += own["test_import_handcomputed*.py"] + own["test_learned_learns.py"]
    fast += _EXTRA_FAST.get(problem, [])  # the tests its mutants.py adds
    quality = f"tests/test_quality.py::test_no_method_worse_than_recorded[{problem}]"
    fast += [quality] if quality in _collected("tests/test_quality.py") else []
    return fast + [str(Path(p).relative_to(ROOT)) for p in glob.glob(str(ROOT / "tests" / d / "test_quality.py"))]


def _mentions(node: str, problem: str) -> bool:
    """Whether a test id is about ``problem`` (its parameter or its function name names it)."""
    name = node.split("::", 1)[1]
    return bool(re.search(r"[\[/-]" + re.escape(problem) + r"[\]/-]", name)) or problem.replace("-", "_") in name


def full_tests(problem: str | None) -> list[str]:
    if problem is None:  # every shared layer's test folder
        mine = set(folders().values())
        return sorted(f"tests/{p.parent.name}" for p in (ROOT / "tests").glob("*/__init__.py")
                      if p.parent.name not in mine)
    d = folders()[problem]
    return [f"tests/{d}"] + [node for node in _conformance_nodes() if f"[{problem}]" in node or f"[{problem}-" in node]


_NODES: list[str] = []
_COLLECTED: dict[str, list[str]] = {}


def _collected(path: str) -> list[str]:
    """The test ids of one test file (collected once; none if the file is not there)."""
    if path not in _COLLECTED:
        if not (ROOT / path).exists():
            _COLLECTED[path] = []
            return []
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([PY, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", path], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        _COLLECTED[path] = [ln.strip() for ln in proc.stdout.splitlines() if ln.startswith(path + "::")]
    return _COLLECTED[path]

def _conformance_nodes() -> list[str]:
    """The conformance suite's test ids (``test_x[problem]``, ``test_y[problem-method]``)."""
    if not _NODES:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([PY, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                               "tests/test_conformance.py"], cwd=ROOT, env=env, capture_output=True, text=True)
        _NODES.extend(ln.strip() for ln in proc.stdout.splitlines() if ln.startswith("tests/test_conformance.py::"))
    return _NODES


def _copy(dst: Path) -> None:
    ignore = shutil.ignore_patterns(".git", "__pycache__", ".hypothesis", ".pytest_cache", "results", ".venv",
                                    "*.egg-info", ".benchmarks")
    shutil.copytree(ROOT, dst, ignore=ignore, dirs_exist_ok=True)


def _pytest(work: Path, tests: list[str], timeout: float) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [PY, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not slow", *tests]
    try:
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "timeout"
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    return proc.returncode, "; ".join(lines[:2] or tail)


def run(selected: list[Mutation], timeout: float = 900.0) -> list[dict]:
    out = []
    with tempfile.TemporaryDirectory(prefix="optsched-mut-") as tmp:
        work = Path(tmp)
        _copy(work)
        for m in selected:
            target = work / m.path
            original = target.read_text()
            count = original.count(m.old)
            if count != 1:
                out.append({"id": m.id, "result": "invalid", "detail": f"snippet occurs {count} times"})
                print(f"{m.id:28s} INVALID ({count} occurrences)", flush=True)
                continue
            target.write_text(original.replace(m.old, m.new))
            start = time.time()
            try:
                stage = "fast"
                rc, detail = _pytest(work, list(m.fast) + fast_tests(m.problem), timeout)
                if rc == 0 or rc == 5:
                    stage = "full"
                    rc, detail = _pytest(work, full_tests(m.problem), timeout)
            finally:
                target.write_text(original)
            # 1: a test failed; 2: collection/import error (the mutated code does not import); -1: timeout
            result = "survived" if rc in (0, 5) else "error" if rc in (3, 4) else "killed"
            out.append({"id": m.id, "problem": m.problem, "category": m.category, "what": m.what,
                        "result": result, "stage": stage, "detail": detail, "seconds": round(time.time() - start, 1)})
            print(f"{m.id:28s} {result:8s} ({stage}, {time.time() - start:.0f} s) {detail[:150]}", flush=True)
    return out


def main(argv: list[str]) -> int:
    everything = mutations()
    if "--list" in argv:
        for m in everything:
            print(f"{m.id:28s} {m.category:10s} {m.problem or '(shared)':18s} {m.what}")
        return 0
    json_out = None
    if "--json" in argv:
        json_out = argv[argv.index("--json") + 1]
        argv = [a for a in argv if a not in ("--json", json_out)]
    ids = set(argv)
    unknown = ids - {m.id for m in everything} - {m.category for m in everything} - set(folders()) - set(folders().values())
    if unknown:
        print(f"no mutation, category or problem named {sorted(unknown)[0]!r}", file=sys.stderr)
        return 2
    selected = [m for m in everything
                if not ids or m.id in ids or m.category in ids or (m.problem and {m.problem, folders()[m.problem]} & ids)]
    results = run(selected)
    valid = [r for r in results if r["result"] in ("killed", "survived")]
    killed = sum(r["result"] == "killed" for r in valid)
    print(f"\nmutation score: {killed} / {len(valid)} killed ({100 * killed / max(1, len(valid)):.0f}%)")
    if json_out:
        Path(json_out).write_text(json.dumps(results, indent=1) + "\n")
    return 0 if killed == len(valid) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
