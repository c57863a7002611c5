"""Hypothesis profiles for the suite, chosen with ``HYPOTHESIS_PROFILE`` (imported by ``tests/conftest.py``).

* ``ci`` (default, ``make test``): derandomized, 15 examples, no deadline: the same inputs on
  every run, fast and reproducible.
* ``dev``: 100 random examples.
* ``bench`` (``make bench``): the same properties with a fresh random seed on every run and many
  more examples: every test's example budget is raised to ``max(BENCH_FACTOR x its own
  max_examples, BENCH_MIN_EXAMPLES)`` (tests that fix ``@settings(max_examples=...)`` are raised
  too). The session seed is printed in the header and, for any failing property, next to the
  failure with the command that replays it. ``OPTSCHED_HYPOTHESIS_SEED=N`` replays seed N.

``tests/conftest.py`` uses it with one line (after its own profile lines)::

    from tests.hypothesis_profiles import *  # noqa: F401,F403  (ci / dev / bench profiles and their hooks)
"""

from __future__ import annotations

import os
import secrets

from hypothesis import HealthCheck, settings

__all__ = ["BENCH_FACTOR", "BENCH_MIN_EXAMPLES", "PROFILE", "SEED", "pytest_report_header",
           "pytest_collection_modifyitems", "pytest_runtest_makereport"]

#: bench: each property runs this many times its own example budget ...
BENCH_FACTOR = 20
#: ... and at least this many examples
BENCH_MIN_EXAMPLES = 300

settings.register_profile("ci", deadline=None, max_examples=15, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=100)
settings.register_profile("bench", deadline=None, max_examples=BENCH_MIN_EXAMPLES, derandomize=False,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)

#: bench: the session's seed (fresh unless OPTSCHED_HYPOTHESIS_SEED is set); None otherwise
SEED: int | None = None
if PROFILE == "bench":
    SEED = int(os.environ.get("OPTSCHED_HYPOTHESIS_SEED") or secrets.randbits(32))
    from hypothesis import core as _core

    _core.global_force_seed = SEED


def bench_settings(current: settings) -> settings:
    """The bench budget for a test whose own settings are ``current``."""
    return settings(current, max_examples=max(BENCH_FACTOR * current.max_examples, BENCH_MIN_EXAMPLES),
                    derandomize=False, deadline=None, print_blob=True)


def _replay_command(nodeid: str) -> str:
    return f"HYPOTHESIS_PROFILE=bench OPTSCHED_HYPOTHESIS_SEED={SEED} python -m pytest '{nodeid}'"


def pytest_report_header(config):
    if SEED is not None:
        return [f"optsched: hypothesis profile 'bench', seed {SEED} (replay: OPTSCHED_HYPOTHESIS_SEED={SEED})"]
    return None


def pytest_collection_modifyitems(config, items):
    if PROFILE != "bench":
        return
    for item in items:
        test = getattr(item, "obj", None)
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is not None:
            test._hypothesis_internal_use_settings = bench_settings(current)


def pytest_runtest_makereport(item, call):
    if SEED is None or call.when != "call" or call.excinfo is None:
        return
    if getattr(getattr(item, "obj", None), "_hypothesis_internal_use_settings", None) is None:
        return
    line = f"hypothesis seed {SEED}: replay with {_replay_command(item.nodeid)}"
    item.add_report_section("call", "optsched hypothesis seed", line)
    print(f"\n{line}")
