"""The verbs that produce or judge a result: ``solve``, ``check``, ``plot``."""

from __future__ import annotations

import json

from ..core.errors import InvalidInstanceError, InvalidOptionError
from ..core.params import check_name
from .args import _method_options
from .exits import EXIT_INFEASIBLE, EXIT_OK, EXIT_VIOLATION
from .files import _check_output, _fmt, _load_instance, _load_result, _looks_like_instance, _sync_sidecar, _write
from .progress import Progress


def cmd_solve(args) -> int:
    from ..core.clock import anchor_at_process_start

    anchor_at_process_start()  # --time-limit bounds the whole command, start-up included (core.clock)
    import optsched

    prob = optsched.get_problem(args.problem)
    _check_output(args.output, prob.name)
    check_name(prob.name, "--method", args.method)     # --method '' is an error, not the default
    check_name(prob.name, "--backend", args.backend)
    inst = _load_instance(prob, args.instance, sidecar=not args.no_sidecar)
    meth = prob.get_method(args.method)
    options = _method_options(args.option or [], meth, prob.name)
    with Progress(f"{prob.name}/{meth.name}", enabled=not args.quiet) as progress:
        result = optsched.solve(inst, meth.name, backend=args.backend, time_limit=args.time_limit,
                                seed=args.seed, threads=args.threads, node_limit=args.node_limit,
                                options=options, progress=progress)
    if args.output:
        _write(result.dumps(), args.output)
    _sync_sidecar(args.output, result.to_json(), args.sidecar, prob.name)
    if args.json:
        print(result.dumps())
    else:
        line = (f"{result.problem}/{result.method} [{result.fidelity}]"
                f"{' on ' + result.backend if result.backend else ''}: {result.status}"
                f"  objective={prob.format_objective(result.objective, inst)}"
                f" bound={prob.format_objective(result.bound, inst)} gap={_fmt(result.gap)}"
                f"  wall={result.wall_s:.3f}s")
        print(line)
        if result.reason:
            print(f"reason: {result.reason}")
    if result.status == "infeasible":
        return EXIT_INFEASIBLE
    if result.status == "error":
        return EXIT_VIOLATION
    return EXIT_OK


def cmd_check(args) -> int:
    import optsched
    from ..core.referee import judge_record
    from ..core.registry import CheckReport
    from ..core.result import Result
    from ..core.sidecar import read_json_data

    prob = optsched.get_problem(args.problem)
    inst = _load_instance(prob, args.instance, sidecar=not args.no_sidecar)
    data = read_json_data(args.result, prob.name, sidecar=not args.no_sidecar)
    if _looks_like_instance(data):
        raise InvalidInstanceError(prob.name, "(file)", f"{args.result} is an instance (problem "
                                   f"{data.get('problem')!r}), not a result record or solution")
    if isinstance(data, dict) and "format_version" in data and "method" in data:
        # of this problem and this instance (else exit 2, naming the field), then its claims
        result = Result.from_json(data)
        verdict = judge_record(result, inst, prob)
        report, reported, contradictions, agrees = (verdict.report, verdict.reported, verdict.contradictions,
                                                    verdict.agrees)
        solution = result.solution
    else:
        solution, reported, contradictions = data, None, []
        report = prob.check(inst, solution)
        agrees = True
    if report is None:  # a self-contradictory record without a solution: its claims are the answer
        report = CheckReport(True, None)
    if args.json:
        print(json.dumps({"feasible": report.feasible, "objective": report.objective, "reported_objective": reported,
                          "objective_agrees": agrees, "violations": report.violations,
                          "record_contradictions": contradictions}, indent=2))
    else:
        for c in contradictions:
            print(f"the record contradicts itself: {c}")
        if report.feasible and solution is not None:
            print(f"feasible: objective={prob.format_objective(report.objective, inst)}"
                  + ("" if agrees else f" (the result reported {prob.format_objective(reported, inst)})"))
        else:
            print(f"infeasible solution: {len(report.violations)} violation(s)")
            for v in report.violations:
                print(f"  - {v}")
    return EXIT_OK if report.feasible and agrees and not contradictions else EXIT_VIOLATION


def cmd_plot(args) -> int:
    import matplotlib

    import optsched
    from ..plot import plot

    matplotlib.use("Agg")  # files only: no window (the library itself never forces a backend)
    prob = optsched.get_problem(args.problem)
    _check_output(args.output, prob.name)
    inst = _load_instance(prob, args.instance)
    result = _load_result(args.result, prob.name)
    fig = plot(inst, result, args.output)  # written atomically: the figure appears whole or not at all
    print(f"wrote {args.output}: {', '.join(f'{k} {v}' for k, v in fig.optsched.items())}")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return EXIT_OK
