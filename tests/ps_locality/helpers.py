"""Hand-built ps-locality instances whose optimum is worked out by hand in the tests."""

from __future__ import annotations

from optsched.problems.ps_locality import PsLocalityInstance


def job(name, workload, *, arrival=0, compute_slots=0.5, gradient_mb=0.0, worker=(1.0,), ps=(0.0,),
        max_workers=1, ps_fan=1):
    return {"name": name, "arrival": arrival, "workload": workload, "compute_slots": compute_slots,
            "gradient_mb": gradient_mb, "worker_demand": worker, "ps_demand": ps, "max_workers": max_workers,
            "ps_fan": ps_fan}


def instance(jobs, *, machines=1, gpus=1.0, horizon=5, b_in=1000.0, b_ex=100.0, **kw) -> PsLocalityInstance:
    machine_list = [{"name": f"m{h}", "capacity": [gpus]} for h in range(machines)]
    return PsLocalityInstance(resources=["gpu"], machines=machine_list, jobs=jobs, bandwidth_in=b_in,
                              bandwidth_ex=b_ex, horizon_slots=horizon, **kw)


def two_jobs_one_gpu() -> PsLocalityInstance:
    """One machine with one GPU; a worker does 2 mini-batches per slot (compute 0.5 slot, no
    gradient). Job a needs 2 mini-batches (1 slot), job b 6 (3 slots): shortest first gives
    completion times 1 + 4 = 5, the other order 3 + 4 = 7; running both at once is impossible."""
    return instance([job("a", 2.0), job("b", 6.0)], horizon=5)
