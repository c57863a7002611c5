"""The mutants of this problem's code, and of shared code this problem's tests kill: records for
the hand mutation driver ``tests/mutations.py`` (which runs them and explains the fields)."""

from tests.mutations import Mutation as M

PP = "optsched/problems/"
MUTATIONS = [
    # -- checkers, importers and declared generator ranges (issue 35) ---------------------------------
    M("commit-scheme-type", "commit-rate", "error-path", PP + "commit_rate/instance.py",
      "    if not isinstance(kind, str):\n", "    if False:\n", "a list as scheme crashes the checker"),
    M("cr-bandwidth-cap", "commit-rate", "checker", PP + "commit_rate/instance.py",
      "bad = [c for c in cs if not 1 <= c <= instance.max_commits]", "bad = [c for c in cs if not 1 <= c]",
      "commits above the bandwidth cap accepted"),
    M("cr-workers-unbounded", "commit-rate", "error-path", PP + "commit_rate/problem.py",
      '"workers": Option(int, 6, "workers", bounds=Interval(1, 256))', '"workers": Option(int, 6, "workers")',
      "the workers option declares no interval (--workers 0 reaches the generator)"),
]
