"""What pipeline-graph's tests declare for the cross-problem tests (``tests/declared.py``)."""

#: ``tests/test_status_honesty.py``: antichain-dp may stop and still prove OPT (a lower bound of its
#: own search meets the plan); there ``optimal`` needs that bound, checked against the proven OPT
#: (and ``test_pipeline_graph_antichain_dp_stopped_by_its_deadline`` here)
STATUS_BOUND_PROOF = {"antichain-dp"}

#: ``tests/test_extreme_values.py``: (field, largest valid value, other fields set for the run at it) of
#: each field whose value a method iterates over (docs/io.md, "Numeric limits")
EXTREME_BOUNDS = [("workers", 1024, {})]
