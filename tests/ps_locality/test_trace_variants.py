"""ps-locality's Gavel trace format on traces unlike the ones in the data directory: the 10-column
layout end to end, an unknown job type, and the default slot length and window over long traces
(traces: ``tests/trace_files.py``)."""

from tests.trace_files import gavel_cli_end_to_end_without_data, gavel_unknown_job_type_is_exit_2_naming_the_line
from tests.trace_files import seven_columns as _seven_columns


def test_gavel_cli_end_to_end_without_data(tmp_path):
    gavel_cli_end_to_end_without_data(tmp_path, "gavel-trace-ps", "ps-locality")


def test_gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys):
    gavel_unknown_job_type_is_exit_2_naming_the_line(tmp_path, capsys, "gavel-trace-ps")


def test_ps_locality_window_over_days_stays_small(tmp_path):
    from optsched.problems.ps_locality.trace import MAX_DEFAULT_SLOTS, load_philly_trace

    # five jobs a day apart: 600 s slots would give a horizon of 576+ slots
    rows = [("ResNet-18 (batch size 32)", 20000, k * 86400.0, 2) for k in range(5)]
    trace = _seven_columns(tmp_path / "days.trace", rows)
    inst = load_philly_trace(trace)
    assert inst.horizon_slots <= MAX_DEFAULT_SLOTS and inst.slot_s == 600.0
    arrivals = [j.arrival for j in inst.jobs]
    assert arrivals == sorted(arrivals) and arrivals[-1] <= MAX_DEFAULT_SLOTS // 2 and len(set(arrivals)) == 5
    assert "arrival_scale=1.0" not in inst.provenance  # the compression is recorded
    explicit = load_philly_trace(trace, slot_s=600.0)
    assert explicit.horizon_slots > 4 * 144  # an explicit slot length is kept


def test_ps_locality_long_jobs_get_longer_slots(tmp_path):
    """When the jobs themselves run past the cap at 600 s slots (arrivals already within half of
    it: no compression), the default slot is doubled, to the first length that fits, and the
    provenance records it."""
    from optsched.problems.ps_locality.trace import MAX_DEFAULT_SLOTS, load_philly_trace

    rows = [("ResNet-18 (batch size 32)", 10**8, k * 3600.0, 2) for k in range(3)]
    trace = _seven_columns(tmp_path / "long.trace", rows)
    assert load_philly_trace(trace, slot_s=600.0, workload_scale=0.1).horizon_slots > MAX_DEFAULT_SLOTS
    inst = load_philly_trace(trace, workload_scale=0.1)
    assert inst.horizon_slots <= MAX_DEFAULT_SLOTS
    assert inst.slot_s > 600.0 and (inst.slot_s / 600.0).is_integer()
    assert f"slot_s={inst.slot_s}" in inst.provenance and "arrival_scale=1.0" in inst.provenance
    # the first doubling that fits: half of it would not
    half = load_philly_trace(trace, slot_s=inst.slot_s / 2, workload_scale=0.1)
    assert half.horizon_slots > MAX_DEFAULT_SLOTS
