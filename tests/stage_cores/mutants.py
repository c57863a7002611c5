"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("sc-min-cores", "stage-cores", "checker", PP + "stage_cores/instance.py",
      "for i, x in enumerate(c) if x < instance.min_cores]", "for i, x in enumerate(c) if x < 0]",
      "min_cores per stage not enforced"),
    M("sc-core-budget", "stage-cores", "checker", PP + "stage_cores/instance.py",
      "if sum(c) > instance.cores:", "if sum(c) > instance.cores + 1:", "one core more than available accepted"),
    # -- status, bounds, guarantees (docs/status.md) -----------------------------------------------
    M("sc-baseline-bound-value", "stage-cores", "bound", PP + "stage_cores/methods.py",
      'bound=value if status == "optimal" else instance.upper_bound)', "bound=value)",
      "a stage-cores baseline reports its own throughput as an upper bound on OPT"),
    M("sc-guarantee-loosened", "stage-cores", "guarantee", PP + "stage_cores/methods.py",
      "guarantee=Guarantee(form=\"multiplicative\", sense=\">=\", value=lambda inst: 1.0,",
      "guarantee=Guarantee(form=\"multiplicative\", sense=\">=\", value=lambda inst: 1.01,",
      "greedy's exactness (ratio 1) loosened to 1.01"),
    # -- the MILP's least core count ---------------------------------------------------------------------
    M("sc-milp-min-cores-dropped", "stage-cores", "step", PP + "stage_cores/model.py",
      'c = b.add_block("c", S, lower=float(instance.min_cores), upper=float(instance.cores), integer=True)',
      'c = b.add_block("c", S, lower=0.0, upper=float(instance.cores), integer=True)',
      "the MILP drops c >= min_cores"),
]
FAST = ["tests/stage_cores/test_stage_cores.py::test_min_cores_binds_the_exact_methods"]

