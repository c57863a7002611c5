"""Method registrations of ``hetero-sharding`` (thin wrappers; the work is in algorithms/model)."""

from __future__ import annotations

import numpy as np

from optsched.core.errors import InvalidOptionError, SolverError
from optsched.core.params import Interval, check_value
from optsched.core.registry import Guarantee, Option, Outcome, size_limit
from optsched.core.solving import SolveContext, model_outcome

from . import algorithms as alg
from .instance import plan_cost
from .model import MILP_BYTES_PER_NONZERO, Quirks, build_model, decode_program, decode_ratios, model_size
from .problem import PROBLEM

BRUTE_MAX_PROGRAMS = 256
#: alternate's most LP rounds [ours: the alternation stops when a round does not improve, within a
#: few rounds on every generated instance; the range only refuses absurd counts]
MAX_ROUNDS = 10_000
QUIRK_OPTIONS = {
    "units": Option(str, "bytes", "'bytes' (the model) or 'elements' (HAP's code: element counts over bytes/s)"),
    "drop_constants": Option(bool, False, "drop replicated compute and constant volumes (HAP's to_linear)"),
    "cap_seconds": Option(bool, False, "bound each stage's C_t and M_t by 1 s (HAP's code)"),
}


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (None where the system does not say)."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def milp_fits(instance) -> tuple[bool, str]:
    """The joint MILP's memory estimate (:data:`~.model.MILP_BYTES_PER_NONZERO` per nonzero of
    :func:`~.model.model_size`) against this machine's physical memory: a model that cannot fit
    is refused before anything is built (``NotApplicable``, exit status 2)."""
    cols, nnz = model_size(instance)
    need, have = nnz * MILP_BYTES_PER_NONZERO, physical_memory()
    if have is None or need <= have:
        return True, f"the joint MILP ({nnz:,} nonzeros) needs about {need / 1e9:.3g} GB"
    return False, (f"the joint MILP has {nnz:,} nonzeros ({cols:,} columns) and needs about {need / 1e9:.3g} GB "
                   f"({MILP_BYTES_PER_NONZERO} bytes per nonzero), more than this machine's {have / 1e9:.3g} GB")


def _quirks(ctx: SolveContext) -> Quirks:
    try:
        return Quirks.from_options(ctx.options)
    except ValueError as exc:
        raise InvalidOptionError(PROBLEM.name, "option units", str(exc)) from None


def _solution(program, ratios) -> dict:
    return {"program": [int(o) for o in program], "ratios": np.asarray(ratios, float).tolist()}


def _parse_program(instance, text: str) -> list[int]:
    if not text:
        return [0] * instance.num_stages
    try:
        program = [int(x) for x in text.split(",")]
    except ValueError:
        raise InvalidOptionError(PROBLEM.name, "option program", "must be comma-separated option indices",
                                   text) from None
    if len(program) != instance.num_stages or any(
            not 0 <= o < len(st.options) for o, st in zip(program, instance.stages)):
        raise InvalidOptionError(PROBLEM.name, "option program",
                                   f"must give a valid option index for each of the {instance.num_stages} stages", text)
    return program


@PROBLEM.method("milp", kind="exact", fidelity="ours", uses_backend=True,
                summary="joint MILP over program and ratios, McCormick products (exact: choices are binary)",
                options=dict(QUIRK_OPTIONS), applicable=lambda inst: milp_fits(inst))
def milp(instance, ctx: SolveContext) -> Outcome:
    q = _quirks(ctx)
    model = build_model(instance, q, poll=ctx.check_time)
    if q.cap_seconds:  # an infeasible capped model says nothing about the instance
        sol = ctx.solve_model(model)
        if sol.status == "infeasible":
            return Outcome(status="error", reason="the 1 s cap of HAP's code makes the model infeasible",
                           backend=sol.backend, solver_version=sol.solver_version)

    def decode(x):
        return _solution(decode_program(instance, model, x), decode_ratios(model, x))
    out = model_outcome(ctx, model, decode)
    if q != Quirks():  # the quirky model optimizes something else: its value is not the model's
        out.objective = None if out.solution is None else plan_cost(instance, out.solution["program"],
                                                                     out.solution["ratios"])
        out.bound, out.status = None, "feasible" if out.solution is not None else out.status
    return out


@PROBLEM.method("brute", kind="exact", fidelity="ours", uses_backend=True,
                summary=f"every program (<= {BRUTE_MAX_PROGRAMS}) with its ratio LP; for tests",
                applicable=size_limit(alg.num_programs, BRUTE_MAX_PROGRAMS, "programs", "brute"))
def brute(instance, ctx: SolveContext) -> Outcome:
    best = None
    for program in alg.enumerate_programs(instance):
        ratios, sol = alg.solve_ratio_lp(instance, program, ctx)
        cost = plan_cost(instance, program, ratios)
        if best is None or cost < best[0]:
            best = (cost, list(program), ratios, sol)
    cost, program, ratios, sol = best
    return Outcome(solution=_solution(program, ratios), objective=cost, bound=cost, status="optimal",
                   backend=sol.backend, solver_version=sol.solver_version)


@PROBLEM.method("ratio-lp", kind="heuristic", fidelity="code", uses_backend=True,
                summary="optimal ratios for a fixed program (HAP's LP, units fixed); exact when the program is",
                options={"program": Option(str, "", "comma-separated option per stage (empty: option 0 each)"),
                         **QUIRK_OPTIONS})
def ratio_lp(instance, ctx: SolveContext) -> Outcome:
    program = _parse_program(instance, ctx.options["program"])
    q = _quirks(ctx)
    try:
        ratios, sol = alg.solve_ratio_lp(instance, program, ctx, q)
    except SolverError as exc:  # only reachable with cap_seconds (the model's LP is always feasible)
        return Outcome(status="error", reason=str(exc))
    cost = plan_cost(instance, program, ratios)
    return Outcome(solution=_solution(program, ratios), objective=cost, backend=sol.backend,
                   solver_version=sol.solver_version, stats={"lp_objective": sol.objective})


@PROBLEM.method("alternate", kind="heuristic", fidelity="code", uses_backend=True,
                summary="HAP: program search with ratios fixed <-> ratio LP with program fixed, from F-proportional",
                options={"max_rounds": Option(int, 50, "most LP rounds", bounds=Interval(0, MAX_ROUNDS)), **QUIRK_OPTIONS})
def alternate(instance, ctx: SolveContext) -> Outcome:
    check_value(PROBLEM.name, "option max_rounds", PROBLEM.methods["alternate"].options["max_rounds"],
                ctx.options["max_rounds"])
    def incumbent(program, ratios, cost, trace):
        return Outcome(solution=_solution(program, ratios), objective=cost,
                       stats={"trace": trace, "rounds": len(trace) - 1})
    program, ratios, cost, trace = alg.alternate(instance, ctx, _quirks(ctx), ctx.options["max_rounds"],
                                                 incumbent=incumbent)
    return Outcome(solution=_solution(program, ratios), objective=cost, stats={"trace": trace,
                                                                              "rounds": len(trace) - 1})


@PROBLEM.method(
    "milp-round", kind="approximation", fidelity="ours", uses_backend=True,
    summary="joint MILP, then HAP's largest-remainder rounding of the ratios to integer shard sizes",
    applicable=lambda inst: milp_fits(inst),
    guarantee=Guarantee(
        form="additive", sense="<=", value=lambda inst: alg.rounding_bound(inst), reference="OPT",
        statement="ALG <= OPT + sum_t max_o (a_o / min_d F_d + m_o) / L_{s_o}", source="ours",
        proof="optsched/problems/hetero_sharding/README.md#rounding-bound"))
def milp_round(instance, ctx: SolveContext) -> Outcome:
    program, ratios, sol = alg.solve_joint(instance, ctx)
    if program is None or sol.status != "optimal":
        return Outcome(status=sol.status if sol.status != "optimal" else "error", reason=sol.message,
                       backend=sol.backend, solver_version=sol.solver_version)
    rounded, sizes = alg.round_ratios(instance, ratios)
    cost = plan_cost(instance, program, rounded)
    return Outcome(solution=_solution(program, rounded), objective=cost, backend=sol.backend,
                   solver_version=sol.solver_version,
                   stats={"shard_sizes": sizes, "unrounded_objective": plan_cost(instance, program, ratios),
                          "bound_delta": alg.rounding_bound(instance, program)})


@PROBLEM.method("proportional", kind="baseline", fidelity="code",
                summary="ratios F_d / sum F (HAP's start), the best program for them")
def proportional(instance, ctx: SolveContext) -> Outcome:
    B = alg.proportional_ratios(instance)
    program = alg.best_program(instance, B)
    return Outcome(solution=_solution(program, B), objective=plan_cost(instance, program, B))


@PROBLEM.method("even", kind="baseline", fidelity="ours",
                summary="ratios 1/n (homogeneous SPMD), the best program for them")
def even(instance, ctx: SolveContext) -> Outcome:
    B = alg.even_ratios(instance)
    program = alg.best_program(instance, B)
    return Outcome(solution=_solution(program, B), objective=plan_cost(instance, program, B))
