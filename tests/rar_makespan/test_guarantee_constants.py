"""rar-makespan's Theorem 5 at the number of GPUs per job where it fails (the other guarantee
checks: ``tests/test_guarantee_constants.py``; its classification: ``declarations.py``)."""

from __future__ import annotations

import optsched


def test_rar_makespan_theorem5_is_false_at_one_gpu_per_job():
    """Theorem 5 as stated (makespan <= n_g phi (u / l) OPT) is false at n_g = 1: four single-GPU
    jobs of 4, 12, 11 and 20 slots on two one-GPU servers, no contention, exact estimates. SJF-BCO
    makes 32, OPT is 24 (optsched/problems/rar_makespan/README.md#theorem-5). The registered guarantee applies only
    for n_g >= 2, where it is labelled empirical."""
    from optsched.problems.rar_makespan import THEOREM5, RarMakespanInstance

    jobs = [  # durations (estimate_slots) 4, 12, 11 and 20 slots; compute and model sizes of 4 job types
        {"gpus": 1, "iterations": 22, "model_bytes": 531453344.0, "compute_s": 7.874306549760711,
         "estimate_slots": 4.0, "job_type": "vgg11"},
        {"gpus": 1, "iterations": 58, "model_bytes": 64185600.0, "compute_s": 10.696152465766085,
         "estimate_slots": 12.0, "job_type": "Recommendation"},
        {"gpus": 1, "iterations": 42, "model_bytes": 244403360.0, "compute_s": 14.602122578388991,
         "estimate_slots": 11.0, "job_type": "alexnet"},
        {"gpus": 1, "iterations": 59, "model_bytes": 113144000.0, "compute_s": 16.315899939567828,
         "estimate_slots": 20.0, "job_type": "CycleGAN"}]
    data = {"format_version": 1, "problem": "rar-makespan", "servers": [1, 1], "jobs": jobs, "slot_s": 60.0,
            "intra_bandwidth": 100e9, "inter_bandwidth": 12.5e9, "reduction_speed": 50e9,
            "contention_scale": 0.0, "server_overhead_s": 0.0, "penalty_slope": 0.5, "estimate_lower": 1.0,
            "estimate_upper": 1.0, "horizon": 1200, "name": "theorem5-counterexample",
            "provenance": "rar-makespan generator, seed 117, 4 jobs, 2 servers, gpu_choices 1,2,3"}
    inst = RarMakespanInstance.from_json(data)
    alg = optsched.solve(inst, "sjf-bco").objective
    opt = optsched.solve(inst, "brute").objective
    assert inst.max_gpus == 1 and THEOREM5.value(inst) == 1.0
    assert alg > THEOREM5.value(inst) * opt, (alg, opt)      # the statement fails here ...
    assert not THEOREM5.applies(inst)[0]                     # ... so the registered guarantee excludes it
    assert "empirical" in THEOREM5.statement
