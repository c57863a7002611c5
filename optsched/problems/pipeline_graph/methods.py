"""The methods of ``pipeline-graph``: kind, fidelity, guarantee, options and applicability of each."""

from __future__ import annotations

from optsched.core.errors import InvalidInstanceError
from optsched.core.registry import Option

from . import algorithms
from .algorithms import BRUTE_MAX_LAYERS, BRUTE_MAX_WORKERS
from .baselines import PIPEDREAM_MAX_STATES, PIPEDREAM_TOO_MANY, pipedream_states
from .problem import PROBLEM


def _brute_ok(inst) -> tuple[bool, str]:
    ok = inst.num_layers <= BRUTE_MAX_LAYERS and inst.workers <= BRUTE_MAX_WORKERS
    return ok, (f"n = {inst.num_layers}, N = {inst.workers}; brute needs n <= {BRUTE_MAX_LAYERS}, "
                f"N <= {BRUTE_MAX_WORKERS}")


#: up to this many layers the states are counted before the run (under a second); above, the count
#: (O(n^2) bit operations before the first state: 80 s at 10,000 layers) runs under the method's
#: clock, which refuses past the limit with the same error [ours]
PIPEDREAM_PRECOUNT_LAYERS = 1_000


def _pipedream_ok(inst) -> tuple[bool, str]:
    if inst.num_layers > PIPEDREAM_PRECOUNT_LAYERS:
        return True, (f"{inst.num_layers} layers: PipeDream's states are counted under the method's clock "
                      f"(refused past {PIPEDREAM_MAX_STATES})")
    try:
        S = len(pipedream_states(inst).masks)
    except MemoryError:
        return False, PIPEDREAM_TOO_MANY
    return True, f"{S} PipeDream states <= {PIPEDREAM_MAX_STATES}"


def _chain_ok(inst) -> tuple[bool, str]:
    """With one source the walk covers every layer [ours; proof: a layer outside the walk's down-set
    whose predecessors are all inside has one, a, that is on the augmented antichain (maximal,
    or an open predecessor of a maximal layer), and moving a to it grows the down-set], so the
    walk (quadratic in the layers) is run here only for graphs with several sources."""
    if sum(1 for v in range(inst.num_layers) if not inst.dag.pred[v]) == 1:
        return True, "one source: the one-path linearization covers the graph"
    try:
        algorithms.one_path(inst)
    except InvalidInstanceError as exc:  # the path cannot cover a graph not connected from its first source
        return False, f"the one-path linearization does not cover the graph ({exc})"
    return True, "the one-path linearization covers the graph"


PROBLEM.method("antichain-dp", color="#000000", kind="exact", fidelity="ours",
               summary="bisection on T + min-workers DP over every down-set (PipeDream's antichain space)"
               )(algorithms.antichain_dp)

PROBLEM.method("chain-dp", kind="heuristic", fidelity="ours", applicable=_chain_ok,
               summary="the same DP on optsched's one-path linearization (exact on chains only)")(algorithms.chain_dp)

PROBLEM.method("pipedream", kind="baseline", fidelity="code", applicable=_pipedream_ok,
               summary="PipeDream's planner DP over its antichain DAG (all N machines, transfers per instance)",
               options={"activation_compression_ratio": Option(
                   str, "instance", "PipeDream's --activation_compression_ratio: 'instance' (the instance's), "
                                    "'none' (transfers ignored, PipeDream's default) or a number > 0")},
               )(algorithms.pipedream)

PROBLEM.method("brute", kind="exact", fidelity="ours", applicable=_brute_ok,
               summary=f"every down-set chain and replica split (n <= {BRUTE_MAX_LAYERS}, N <= {BRUTE_MAX_WORKERS})"
               )(algorithms.brute)
