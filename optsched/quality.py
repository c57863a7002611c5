"""Recorded quality of every non-exact method: ``instances/quality/<problem>.json`` (``make instances``).

For each problem, a fixed set of generated instances (generator, preset, seed, options) is solved
by a reference method (the exact optimum, or a proven bound where no exact method runs on them)
and by every method of kind ``approximation``, ``heuristic``, ``online`` and ``baseline``. The
table stores each method's checked objective and its ratio to the reference (>= 1, larger is
worse: ``ALG / REF`` for minimization, ``REF / ALG`` for maximization). ``tests/test_quality.py``
re-runs the methods and fails when one is worse than its recorded value beyond
:data:`RELATIVE_TOLERANCE`.

Each problem declares its own set in its folder (``Problem(..., quality=QualitySet(...))``,
:mod:`optsched.core.quality_sets`); this module only discovers them and holds the machinery.

The instance sets were chosen (and are checked by ``tests/quality_mutations.py``) so that
disabling each documented step of a method (repair, fill, improvement, ordering rule,
best-of-trials) makes at least one recorded value worse.
"""

from __future__ import annotations

import json
import math
import platform
import sys
from pathlib import Path

from optsched.core.errors import NotApplicable, UnknownNameError
from optsched.core.quality_sets import QualitySet

__all__ = ["quality_sets", "quality_set", "QualitySet", "RELATIVE_TOLERANCE", "ABSOLUTE_TOLERANCE", "build_quality_tables",
           "quality_methods", "regressions", "ratio"]

#: Every method in the tables is deterministic for its seed, and the test re-runs exactly the
#: recorded computation, so the only legitimate drift is floating-point summation order (a few
#: ulps) and, for methods built on an LP solve, the solver's choice among equally optimal
#: vertices. 1e-6 relative is the core's own tolerance between two computations of one objective
#: (``optsched.core.solving.objective_tolerance``); anything beyond it is a real change. A new
#: HiGHS build that moves an LP vertex is such a change: regenerate with ``make instances`` and
#: review the diff.
RELATIVE_TOLERANCE = 1e-6
ABSOLUTE_TOLERANCE = 1e-9

QUALITY_KINDS = ("approximation", "heuristic", "online", "baseline")


def quality_sets() -> dict[str, QualitySet]:
    """Every registered problem that declares a quality set (``Problem(..., quality=...)`` in its
    folder), by name."""
    import optsched

    return {name: p.quality for name, p in sorted(optsched.core.registry.problems().items()) if p.quality is not None}


def quality_set(problem: str) -> QualitySet:
    """The quality set ``problem`` declares (a typed error naming the problems that declare one)."""
    sets = quality_sets()
    if problem not in sets:
        raise UnknownNameError("problem with a quality set", problem, list(sets))
    return sets[problem]


def quality_methods(problem) -> list[str]:
    """The recorded methods of a problem: every approximation, heuristic, online and baseline method."""
    skip = problem.quality.skip_methods if problem.quality is not None else ()
    return [name for name, m in problem.methods.items() if m.kind in QUALITY_KINDS and name not in skip]


def ratio(sense: str, objective: float | None, reference: float | None) -> float | None:
    """``ALG / REF`` (min) or ``REF / ALG`` (max); None when undefined (missing or non-positive)."""
    if objective is None or reference is None:
        return None
    num, den = (objective, reference) if sense == "min" else (reference, objective)
    if den <= 0 or num < 0:
        return None
    return num / den


def worse_than(sense: str, objective: float | None, recorded: float | None) -> bool:
    """Whether ``objective`` is worse than ``recorded`` beyond the tolerance (None is worst)."""
    if recorded is None:
        return False
    if objective is None or not math.isfinite(objective):
        return True
    slack = RELATIVE_TOLERANCE * abs(recorded) + ABSOLUTE_TOLERANCE
    return objective > recorded + slack if sense == "min" else objective < recorded - slack


def make_instance(problem_name: str, preset: str, seed: int, options: dict):
    import optsched

    return optsched.generate(problem_name, seed=seed, preset=preset, **options)


def stored_instance(problem_name: str, record: dict):
    """The instance stored in a table row (the generator's output when the table was built)."""
    import optsched

    return optsched.get_problem(problem_name).instance_type.from_json(record["data"])


def run_method(instance, method: str, seed: int = 0, options: dict | None = None):
    import optsched

    return optsched.solve(instance, method, seed=seed, options=options or None)


def build_table(problem_name: str, log=print) -> dict:
    """The quality table of problem ``problem_name``, from the quality set its record declares."""
    import optsched

    problem = optsched.get_problem(problem_name)
    qset = quality_set(problem_name)
    methods = quality_methods(problem)
    rows = []
    for preset, seed, options in qset.cases:
        inst = make_instance(problem_name, preset, seed, options)
        ref_name = next(m for m in qset.reference if problem.get_method(m).applicable(inst)[0])
        ref_method = problem.get_method(ref_name)
        ref = run_method(inst, ref_name)
        if ref.status != "optimal" and not (ref_method.is_bound and ref.status == "feasible"):
            raise RuntimeError(f"{problem_name} {preset} seed {seed}: reference {ref_name} is {ref.status}")
        ref_value = ref.bound if ref_method.is_bound else ref.objective
        results = {}
        for name in methods:
            ok, why = problem.get_method(name).applicable(inst)
            if not ok:
                results[name] = {"status": "not applicable", "reason": why}
                continue
            try:
                r = run_method(inst, name, options=qset.method_options.get(name))
            except NotApplicable as exc:  # e.g. a published schedule above the instance's in-flight cap
                results[name] = {"status": "not applicable", "reason": exc.reason}
                continue
            if r.status == "infeasible":
                results[name] = {"status": "infeasible", "reason": r.reason}
                continue
            if r.status not in ("optimal", "feasible"):
                raise RuntimeError(f"{problem_name} {preset} seed {seed}: {name} is {r.status}: {r.reason}")
            results[name] = {"status": r.status, "objective": r.objective,
                             "ratio": ratio(problem.sense, r.objective, ref_value)}
        rows.append({"instance": {"generator": f"optsched.generate({problem_name!r})", "preset": preset,
                                  "seed": seed, "options": options, "sha256": inst.sha256(),
                                  "data": inst.to_json()},
                     "ref": {"method": ref_name, "kind": ref_method.kind,
                                   "status": ref.status, "value": ref_value, "backend": ref.backend,
                                   "solver_version": ref.solver_version},
                     "methods": results})
        log(f"quality {problem_name} {preset} s{seed}: ref {ref_value:.6g} "
            + " ".join(f"{k}={v.get('ratio') if v.get('ratio') is None else round(v['ratio'], 4)}"
                       for k, v in results.items()))
    summary = {}
    for name in methods:
        rs = [row["methods"][name]["ratio"] for row in rows if row["methods"][name].get("ratio") is not None]
        summary[name] = {"worst_ratio": max(rs) if rs else None,
                         "mean_ratio": sum(rs) / len(rs) if rs else None, "instances": len(rs)}
    return {
        "problem": problem_name, "sense": problem.sense,
        "provenance": {
            "how": (f"reference: the first applicable of optsched methods {list(qset.reference)} "
                    "(exact optimum, else a proven bound; default options, highspy, mip_rel_gap 0); "
                    "each method: optsched.solve(instance, method, seed=0) with default options, objective "
                    "recomputed by the problem's checker"),
            "optsched_version": optsched.__version__, "python": platform.python_version(),
            "regenerate": "make instances (python -m optsched.instances_build)",
            "notes": qset.notes},
        "ratio": "ALG / REF for minimization, REF / ALG for maximization (>= 1; larger is worse)",
        "tolerance": {"relative": RELATIVE_TOLERANCE, "absolute": ABSOLUTE_TOLERANCE,
                      "why": "methods are deterministic for a seed; 1e-6 relative is the core's tolerance "
                             "between two computations of one objective (optsched.core.solving.objective_tolerance)"},
        "summary": summary, "rows": rows}


def write_csv(table: dict, path: Path) -> None:
    lines = ["preset,seed,reference_method,reference_status,reference_value,method,status,objective,ratio"]
    for row in table["rows"]:
        inst, ref = row["instance"], row["ref"]
        for name, res in row["methods"].items():
            lines.append(",".join(str(v) for v in (
                inst["preset"], inst["seed"], ref["method"], ref["status"], repr(ref["value"]), name,
                res["status"], repr(res.get("objective")), repr(res.get("ratio")))))
    path.write_text("\n".join(lines) + "\n")


def build_quality_tables(out_dir: Path, problems: list[str] | None = None, log=print) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in quality_sets():
        if problems and name not in problems:
            continue
        table = build_table(name, log)
        path = out_dir / f"{name.replace('-', '_')}.json"
        path.write_text(json.dumps(table, indent=1) + "\n")
        write_csv(table, path.with_suffix(".csv"))
        written += [path, path.with_suffix(".csv")]
    written.append(write_summary(out_dir))
    return written


def write_summary(out_dir: Path) -> Path:
    """``SUMMARY.md``: per problem and method, the worst and mean recorded ratio."""
    lines = ["# Recorded quality (generated by `make instances`; do not edit)", "",
             "Ratio to the reference: ALG / REF (min) or REF / ALG (max); 1 = optimal (or at the bound).", "",
             "| problem | reference | method | kind | instances | worst ratio | mean ratio |", "|---|---|---|---|---|---|---|"]
    import optsched

    for name in quality_sets():
        path = out_dir / f"{name.replace('-', '_')}.json"
        if not path.is_file():
            continue
        table = json.loads(path.read_text())
        refs = sorted({row["ref"]["method"] + (" (bound)" if row["ref"]["kind"] == "bound" else "")
                       for row in table["rows"]})
        problem = optsched.get_problem(name)
        for method, summ in table["summary"].items():
            worst, mean = summ["worst_ratio"], summ["mean_ratio"]
            lines.append(f"| {name} | {', '.join(refs)} | {method} | {problem.get_method(method).kind} | "
                         f"{summ['instances']} | {'-' if worst is None else f'{worst:.4f}'} | "
                         f"{'-' if mean is None else f'{mean:.4f}'} |")
    path = out_dir / "SUMMARY.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def load_table(root: Path, problem: str) -> dict:
    return json.loads((root / f"{problem.replace('-', '_')}.json").read_text())


def regressions(table: dict, methods: list[str] | None = None, options: dict | None = None) -> list[str]:
    """Re-run the recorded methods on the recorded instances; every value worse than recorded.

    ``options`` replaces the recorded methods' options (to show that a step matters)."""
    qset = quality_set(table["problem"])
    out = []
    for row in table["rows"]:
        inst_rec = row["instance"]
        inst = stored_instance(table["problem"], inst_rec)
        if inst.sha256() != inst_rec["sha256"]:
            out.append(f"{table['problem']} {inst_rec['preset']} s{inst_rec['seed']}: the stored instance does not "
                       "round-trip to its recorded SHA-256")
            continue
        for name, rec in row["methods"].items():
            if methods is not None and name not in methods:
                continue
            if rec["status"] == "not applicable":
                continue
            try:
                r = run_method(inst, name, options=options if options is not None else qset.method_options.get(name))
            except NotApplicable as exc:
                if rec["status"] != "infeasible":
                    out.append(f"{table['problem']} {inst_rec['preset']} s{inst_rec['seed']} {name}: not applicable "
                               f"({exc.reason}), recorded {rec['status']}")
                continue
            if rec["status"] == "infeasible":
                if r.status not in ("infeasible", "optimal", "feasible"):
                    out.append(f"{table['problem']} {inst_rec['preset']} s{inst_rec['seed']} {name}: {r.status} "
                               f"{r.reason}, recorded infeasible")
                continue
            bad = r.status not in ("optimal", "feasible")
            if bad or worse_than(table["sense"], r.objective, rec["objective"]):
                out.append(f"{table['problem']} {inst_rec['preset']} s{inst_rec['seed']} {name}: "
                           f"{r.status} {r.objective!r}, recorded {rec['objective']!r} "
                           f"(ratio {ratio(table['sense'], r.objective, row['ref']['value'])!r} "
                           f"vs {rec['ratio']!r})")
    return out


if __name__ == "__main__":
    build_quality_tables(Path(sys.argv[1] if len(sys.argv) > 1 else "instances/quality"), sys.argv[2:] or None)
