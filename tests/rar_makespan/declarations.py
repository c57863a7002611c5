"""What rar-makespan's tests declare for the cross-problem tests (``tests/declared.py``)."""

from __future__ import annotations

#: ``tests/test_guarantee_constants.py``: per guaranteed method, a (near-)tight family (checked by
#: ``test_guarantee_constants.py`` here) or the sentence saying that none is known
GUARANTEE_TIGHTNESS = {
    "sjf-bco": (
        "no tight instance known (the paper gives none): n_g phi u / l multiplies three worst cases; the statement "
        "is false at n_g = 1 (see test_rar_makespan_theorem5_is_false_at_one_gpu_per_job) and empirical for n_g >= 2"),
}

#: ``tests/test_guarantee_constants.py`` (slow preset sweep): besides the ``tiny`` and ``small``
#: presets, seeds 0-199 of 4-job instances with 1 to 3 GPUs per job (the ``tiny`` preset's other
#: parameters): the family where Theorem 5 failed at n_g = 1 (seeds 117, 301 and 417 of a similar
#: family broke it); (changes to the ``tiny`` preset, number of seeds)
GUARANTEE_PRESET_FAMILIES = [({"jobs": 4, "gpu_choices": "1,2,3"}, 200)]
#: the reference of that sweep: brute's proven OPT
GUARANTEE_REFERENCE = "brute"

#: ``tests/test_cli_failures.py``: fields whose values at 1e308 once made an objective inf or crashed
#: a simulation; they must be refused naming the field ("magnitude")
HUGE_VALUE_FIELDS = ["penalty_slope"]
