"""``optsched.compare``: run methods on instances and measure each against a reference.

The central act of this toolkit, "the ratio of each method to the optimum", as one call:

>>> import optsched
>>> inst = optsched.generate("mknap", seed=1, preset="tiny")
>>> frame = optsched.compare(inst, ["greedy", "lp-round"], reference="milp")
>>> list(frame.columns[:6])
['problem', 'instance', 'method', 'status', 'objective', 'bound']
>>> bool((frame["ratio"] >= 1).all())          # nothing beats the optimum
True

One row per (instance, method, seed): problem, instance id, method, kind, status, objective,
bound, gap, the reference's value and how it was obtained (``optimum`` when the reference run was
proven optimal, ``bound`` when it only bounds OPT, ``given`` for a value passed in), ratio (ALG/OPT
for minimization, OPT/ALG for maximization: >= 1, 1 is optimal; to a bound it over-states the
ratio), time (s), the time limit, seed, backend, instance SHA-256. ``frame.plot()`` (or :func:`optsched.plot_ratios`)
draws the ratios per method with confidence intervals; ``frame.result("greedy")`` is a run's
:class:`Result` (to draw it with :func:`optsched.plot`).

The command line's ``optsched compare PROBLEM FILES... --methods ... -o out.csv`` is
:func:`main_compare` (CSV, or Parquet when pyarrow is installed).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .core.errors import InvalidOptionError, NotApplicable
from .core.registry import get_problem
from .core.result import Result
from .core.solving import solve

__all__ = ["compare", "CompareFrame", "COLUMNS", "add_compare_parser", "cmd_compare"]

#: the columns of a comparison, in order
COLUMNS = ("problem", "instance", "method", "status", "objective", "bound", "reference", "reference_kind",
           "ratio", "time", "time_limit", "seed", "kind", "gap", "backend", "instance_sha256")


def _frame_class():
    import pandas as pd

    class _PlotAccessor:
        """``frame.plot()`` draws the ratios; ``frame.plot.bar(...)`` etc. are pandas' own."""

        def __init__(self, frame):
            self._frame = frame

        def __call__(self, *args, **kwargs):
            if not args and set(kwargs) <= {"path", "style", "ratio"}:
                from .plotting.crosscut import plot_ratios

                return plot_ratios(self._frame, **kwargs)
            return pd.DataFrame(self._frame).plot(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(pd.DataFrame(self._frame).plot, name)

    class CompareFrame(pd.DataFrame):
        """A pandas DataFrame of :func:`compare` rows whose ``.plot()`` draws the ratios;
        ``results`` maps (instance id, method, seed) to each run's :class:`Result`."""

        _metadata = ["results", "traces"]

        @property
        def _constructor(self):
            return CompareFrame

        def result(self, method: str, instance: str | None = None, seed: int | None = None) -> Result:
            """The :class:`Result` of ``method`` (on the first instance and seed unless named)."""
            for (inst_id, meth, sd), res in (getattr(self, "results", None) or {}).items():
                if meth == method and instance in (None, inst_id) and seed in (None, sd):
                    return res
            raise KeyError(f"no run of {method!r}" + (f" on {instance!r}" if instance else ""))

        def trace_frame(self):
            """The anytime records of ``compare(..., trace=True)``: one row per incumbent or bound
            update of a HiGHS MIP solve (instance, method, seed, time in s, incumbent, bound, and
            the incumbent's ratio to the reference), plus each run's final (time, objective), for
            :func:`optsched.plotting.plot_anytime`. Update times are HiGHS' own solve clock; the
            final point is the run's wall time (model building included), so it lies slightly
            later. Methods that call no HiGHS MIP have only their final point."""
            rows = []
            for _, run in pd.DataFrame(self).iterrows():
                key = (run["instance"], run["method"], run["seed"])
                base = {"problem": run["problem"], "instance": run["instance"], "method": run["method"],
                        "seed": run["seed"]}
                sense = get_problem(run["problem"]).ratio
                ref = run["reference"]
                for info in (getattr(self, "traces", None) or {}).get(key, []):
                    inc = info.get("incumbent")
                    rows.append({**base, "time": info.get("time"), "incumbent": inc, "bound": info.get("bound"),
                                 "ratio": sense(inc, ref) if inc is not None and ref == ref and ref is not None
                                 else None})
                if run["objective"] == run["objective"] and run["objective"] is not None:
                    rows.append({**base, "time": run["time"], "incumbent": run["objective"], "bound": run["bound"],
                                 "ratio": run["ratio"]})
            return pd.DataFrame(rows, columns=["problem", "instance", "method", "seed", "time", "incumbent",
                                               "bound", "ratio"])

        @property
        def plot(self):  # noqa: D401
            return _PlotAccessor(self)

    return CompareFrame


def __getattr__(name):
    if name == "CompareFrame":
        return _frame_class()
    raise AttributeError(name)


def _instances(items) -> list[tuple[str, Any]]:
    """(id, instance) pairs from an instance, a path, or a list/dict of them."""
    from .api import load_instance

    if isinstance(items, dict):
        pairs = list(items.items())
    elif isinstance(items, (str, Path)) or not isinstance(items, Iterable):
        pairs = [(None, items)]
    else:
        pairs = [(None, it) for it in items]
    out, seen = [], set()
    for i, (key, item) in enumerate(pairs):
        if isinstance(item, (str, Path)):
            inst = load_instance(item)
            key = key or str(item)
        else:
            inst = item
            key = key or getattr(inst, "name", "") or f"{inst.problem}#{i}"
        if key in seen:
            key = f"{key}#{i}"
        seen.add(key)
        out.append((str(key), inst))
    if not out:
        raise InvalidOptionError("compare", "instances", "no instance given")
    return out


def _reference_value(problem, inst_id, inst, reference, solve_kw) -> tuple[float | None, str, Result | None]:
    """The reference value of ``inst``, how it was obtained, and the reference run (if any)."""
    if reference is None:
        reference = problem.reference_method
        if reference is None:
            return None, "none", None
    if isinstance(reference, (tuple, list)):        # the first that applies (e.g. ('milp', 'brute'))
        for name in reference:
            ok, _ = problem.get_method(name).applicable(inst)
            if ok:
                reference = name
                break
        else:
            reference = reference[0]
    if isinstance(reference, dict):
        value = reference.get(inst_id)
        return (None if value is None else float(value)), "given", None
    if callable(reference):
        value = reference(inst)
        return (None if value is None else float(value)), "given", None
    if isinstance(reference, (int, float)):
        return float(reference), "given", None
    res = solve(inst, str(reference), **solve_kw)
    if res.status == "optimal" and res.objective is not None:
        return float(res.objective), "optimum", res
    if res.bound is not None and math.isfinite(res.bound):
        return float(res.bound), "bound", res
    if problem.get_method(str(reference)).kind == "bound" and res.objective is not None:
        return float(res.objective), "bound", res
    return None, f"reference {res.status}", res


def _progress_display(total: int):
    """A progress callback for people: tqdm's bar when installed (it renders in notebooks), else
    one line per run on stderr."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        def show(done, total_, row):
            print(f"[{done}/{total_}] {row['instance']} {row['method']}: {row['status']} "
                  f"{row['objective']} ({row['time']:.2f} s)", file=sys.stderr, flush=True)
        return show, lambda: None
    bar = tqdm(total=total, unit="run")

    def show(done, total_, row):
        bar.set_postfix_str(f"{row['method']} {row['status']}")
        bar.update(1)
    return show, bar.close


def compare(instance_or_instances: Any, methods: Sequence[str] | str | None = None, reference: Any = None, *,
            seeds: Sequence[int] = (0,), time_limit: float | None = None, backend: str | None = None,
            options: dict[str, dict] | None = None, progress: bool | Callable[[int, int, dict], None] = False,
            trace: bool = False):
    """Run ``methods`` on every instance and compare each result with a reference.

    ``instance_or_instances``: an instance, an instance file's path, or a list (or a dict id ->
    instance) of them, all of one problem. ``methods``: method names (None: every method of the
    problem except the reference). ``reference``: a method name (default: the problem's reference
    method), a tuple of names (the first that applies), a number, a dict instance id -> value, or a
    function of the instance. ``seeds``: one run per seed for each method (randomized methods
    differ; the reference runs with the first). ``time_limit``, ``backend``: as in
    :func:`optsched.solve`; ``options``: method name -> its options. ``progress``: True for a
    progress bar (tqdm when installed, else lines on stderr), or ``callback(done, total, row)``.
    ``trace``: record every incumbent and bound update of the runs' HiGHS MIP solves
    (``frame.trace_frame()``, the anytime curves of :func:`optsched.plotting.plot_anytime`).

    Returns a :class:`CompareFrame` (a pandas DataFrame) with the columns of :data:`COLUMNS`.
    Invalid input raises the same typed errors as the command line (an unknown method names it).
    """
    pairs = _instances(instance_or_instances)
    problems = {inst.problem for _, inst in pairs}
    if len(problems) != 1:
        raise InvalidOptionError("compare", "instances", f"must be of one problem, got {sorted(problems)}")
    problem = get_problem(problems.pop())
    if isinstance(methods, str):
        methods = [methods]
    if methods is None:
        ref_names: set = set()
        for ref in (reference, problem.reference_method):
            if isinstance(ref, str):
                ref_names.add(ref)
            elif isinstance(ref, (tuple, list)):
                ref_names.update(ref)
        methods = [m for m in problem.methods if m not in ref_names]
    for m in methods:
        problem.get_method(m)                      # UnknownNameError naming the method
    seeds = list(seeds) or [0]
    total = len(pairs) * len(methods) * len(seeds)
    done = 0
    close = lambda: None  # noqa: E731
    if progress is True:
        progress, close = _progress_display(total)
    rows, results, traces = [], {}, {}
    try:
        for inst_id, inst in pairs:
            solve_kw = {"time_limit": time_limit, "backend": backend, "seed": seeds[0]}
            ref_value, ref_kind, _ = _reference_value(problem, inst_id, inst, reference, solve_kw)
            for method in methods:
                for seed in seeds:
                    records: list = []
                    try:
                        with _listening(records if trace else None):
                            res = solve(inst, method, time_limit=time_limit, backend=backend, seed=seed,
                                        options=(options or {}).get(method))
                    except NotApplicable as exc:       # a row that says so; the other methods still run
                        res, reason = None, str(exc)
                    if trace:
                        traces[(inst_id, method, seed)] = records
                    ratio = None
                    if res is not None and ref_value is not None and res.objective is not None \
                            and res.solution is not None:
                        ratio = problem.ratio(float(res.objective), ref_value)
                    row = {"problem": problem.name, "instance": inst_id, "method": method,
                           "status": res.status if res is not None else "not_applicable",
                           "objective": getattr(res, "objective", None), "bound": getattr(res, "bound", None),
                           "reference": ref_value, "reference_kind": ref_kind, "ratio": ratio,
                           "time": res.wall_s if res is not None else 0.0, "time_limit": time_limit, "seed": seed,
                           "kind": problem.methods[method].kind, "gap": getattr(res, "gap", None),
                           "backend": getattr(res, "backend", None),
                           "instance_sha256": getattr(res, "instance_sha256", None)}
                    if res is None:
                        row["reason"] = reason
                    rows.append(row)
                    results[(inst_id, method, seed)] = res
                    done += 1
                    if callable(progress):
                        progress(done, total, row)
    finally:
        close()
    columns = list(COLUMNS) + (["reason"] if any("reason" in r for r in rows) else [])
    frame = _frame_class()(rows, columns=columns)
    frame.results = results
    frame.traces = traces
    return frame


def _listening(records: list | None):
    """Collect HiGHS' MIP progress (incumbent, bound, time) into ``records`` while a run lasts."""
    import contextlib

    if records is None:
        return contextlib.nullcontext()
    from .core.backends.highs import progress_listener

    return progress_listener(lambda info: records.append(dict(info)))


# -- the command line verb --------------------------------------------------------------------

def add_compare_parser(sub) -> None:
    """Register ``optsched compare`` on the CLI's sub-parsers."""
    s = sub.add_parser("compare", help="run methods on instance files and write each one's ratio to a reference",
                       description="Run --methods on every instance file, measure each result against the "
                                   "reference (the problem's exact or bound method unless --reference), and "
                                   "write one row per instance, method and seed (CSV, or Parquet with "
                                   "pyarrow). The same as optsched.compare() in Python.")
    s.add_argument("problem", help="a problem name (see 'optsched problems')")
    s.add_argument("files", nargs="+", metavar="FILE", help="instance files of that problem")
    s.add_argument("--methods", nargs="+", metavar="METHOD", help="methods to run (default: all but the reference)")
    s.add_argument("--reference", metavar="METHOD", help="the reference method (default: the problem's)")
    s.add_argument("--seeds", nargs="+", type=int, default=[0], metavar="SEED", help="one run per seed (default 0)")
    s.add_argument("--time-limit", type=float, metavar="S", help="seconds per run")
    s.add_argument("--backend", help="solver back-end of exact methods (see 'optsched backends')")
    s.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.csv or FILE.parquet")
    s.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _write_table(frame, path: str, problem: str) -> None:
    """CSV or Parquet through a temporary file renamed into place (no partial output)."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise InvalidOptionError(problem, "-o", "must end in .csv or .parquet", path)
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InvalidOptionError(problem, "-o", "Parquet needs pyarrow (pip install pyarrow); use .csv",
                                       path) from None
    from .core.atomic import atomic_path, check_target

    check_target(target, problem, "-o")
    with atomic_path(target) as tmp:  # the table appears whole or not at all; a full disk: OutputError (exit 1)
        if suffix == ".csv":
            frame.to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)


def cmd_compare(args) -> int:
    """``optsched compare``: exit 0, or the CLI's typed-error exit codes."""
    from .api import load_instance

    problem = get_problem(args.problem)
    out = Path(args.output)
    if out.suffix.lower() not in (".csv", ".parquet"):
        raise InvalidOptionError(problem.name, "-o", "must end in .csv or .parquet", args.output)
    if not out.parent.is_dir():
        raise InvalidOptionError(problem.name, "-o", "the folder does not exist", str(out.parent))
    from .core.atomic import check_target

    check_target(out, problem.name, "-o")  # a device, a folder or a FIFO: refused before any run
    if out.suffix.lower() == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InvalidOptionError(problem.name, "-o", "Parquet needs pyarrow (pip install pyarrow); use .csv",
                                       args.output) from None
    instances = {}
    for path in args.files:
        inst = load_instance(path, problem=problem.name)
        instances[path] = inst
    frame = compare(instances, args.methods, args.reference, seeds=args.seeds, time_limit=args.time_limit,
                    backend=args.backend, progress=False if args.quiet else True)
    _write_table(frame, args.output, problem.name)
    summary = frame.groupby("method", sort=False)["ratio"].agg(["mean", "max", "count"])
    print(f"wrote {args.output}: {len(frame)} rows")
    for method, row in summary.iterrows():
        print(f"  {method:<20} mean ratio {row['mean']:.4g}  worst {row['max']:.4g}  ({int(row['count'])} runs)")
    return 0

