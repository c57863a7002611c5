"""What pipeline-graph's tests declare for the cross-problem tests (``tests/declared.py``)."""

#: ``tests/test_status_honesty.py``: antichain-dp may stop and still prove OPT (a lower bound of its
#: own search meets the plan); there ``optimal`` needs that bound, checked against the proven OPT
#: (and ``test_pipeline_graph_antichain_dp_stopped_by_its_deadline`` here)
STATUS_BOUND_PROOF = {"antichain-dp"}
