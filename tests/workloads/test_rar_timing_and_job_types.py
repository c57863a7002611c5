"""The shared RAR timing function and the job-type table."""

from __future__ import annotations

import json
import math

import pytest

from optsched.core.errors import UnknownNameError
from optsched.workloads import job_types as jt
from optsched.workloads.rar_timing import (contention_degree, iteration_time, iterations_per_slot, penalty,
                                           spread_bandwidth)
from optsched.workloads.traces import load_gavel_trace, load_tiresias_jobs
from tests.conftest import require_data


def test_iteration_time_by_hand():
    # m = 1.2e8 bytes on w = 3 workers: chunk 4e7; 2 * 2 * 4e7 / 1e9 = 0.16 s transfers,
    # 2 * 4e7 / 4e9 = 0.02 s reductions, 0.3 s overhead, 0.5 s compute
    tau = iteration_time(model_bytes=1.2e8, workers=3, compute_s=0.5, bandwidth=1e9, reduction_speed=4e9,
                         overhead_s=0.3)
    assert tau == pytest.approx(0.16 + 0.02 + 0.3 + 0.5, rel=1e-12)  # float rounding only


def test_one_worker_has_no_ring():
    assert iteration_time(model_bytes=1e12, workers=1, compute_s=0.25, bandwidth=1.0, reduction_speed=1.0) == 0.25


def test_contention_floor_and_penalty():
    assert contention_degree(sharing=5, xi1=0.1) == 1.0  # xi1 p = 0.5 < 1: the [ours] floor
    assert contention_degree(sharing=5, xi1=0.4) == 2.0
    assert penalty(1.0, theta=3.0) == 1.0  # no contention, no penalty whatever theta
    assert penalty(2.0, theta=0.5) == 2.5
    assert spread_bandwidth(1e10, sharing=5, xi1=0.4, theta=0.5) == 1e10 / 2.5
    # contention never makes a ring faster than the uncontended one
    for p in range(1, 10):
        for xi1 in (0.0, 0.05, 0.3, 2.0):
            assert spread_bandwidth(1e10, p, xi1, 0.7) <= 1e10


def test_iterations_per_slot_guards_rounding():
    assert iterations_per_slot(0.1, 0.3) == 3  # 0.3 / 0.1 = 2.9999999999999996 in floats
    assert iterations_per_slot(0.7, 2.0) == 2
    assert iterations_per_slot(2.0, 2.0) == 1


def test_job_type_table_derivations_are_consistent():
    data = json.loads(jt.TABLE_PATH.read_text())
    assert data["tag"] == "[ours]"
    for name, row in data["types"].items():
        assert row["tag"] == "[ours]" and row["derivation"], name
        assert row["model_bytes"] == data["bytes_per_parameter"] * row["parameters"], name
        # forward time = FLOPs / effective throughput, backward = 2 x forward: floats only
        assert math.isclose(row["forward_s_per_sample"], row["forward_flops_per_sample"] / data["effective_flops"],
                            rel_tol=1e-12), name
        assert math.isclose(row["backward_s_per_sample"], data["backward_to_forward"] * row["forward_s_per_sample"],
                            rel_tol=1e-12), name


def test_job_type_names():
    t = jt.job_type("Transformer (batch size 128)")
    assert (t.model, t.mini_batch) == ("Transformer", 128)
    assert t.compute_s() == pytest.approx(128 * 3 * t.forward_s_per_sample)
    assert jt.job_type("A3C").mini_batch == 20
    assert set(jt.job_types()) >= {"ResNet-18", "ResNet-50", "LM", "Recommendation", "A3C", "CycleGAN",
                                   "Transformer", "vgg19", "vgg11", "inception4", "resnet50"}
    with pytest.raises(UnknownNameError, match="GPT-9"):
        jt.job_type("GPT-9 (batch size 4)")


def test_every_trace_name_is_in_the_table():
    for trace in ("2869ce", "7f04ca", "e13805"):
        for job in load_gavel_trace(require_data(f"traces/gavel_philly/{trace}.trace")):
            assert jt.job_type(job.job_type).model_bytes > 0
    for job in load_tiresias_jobs(require_data("traces/tiresias/60_job.csv")):
        assert jt.job_type(job.model).model_bytes > 0
