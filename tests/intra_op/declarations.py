"""What intra-op's tests declare for the cross-problem tests (``tests/declared.py``)."""

#: ``tests/test_status_honesty.py``: anytime's bound combines the MILP stage with its Lagrangian
#: bound (a proof that needs no model solve and may meet the plan, so with every solve stopped it
#: may still be optimal); ``test_intra_op_anytime_with_its_milp_stopped`` (``test_status_honesty.py``
#: here) turns the Lagrangian stage off and checks status and bound
STATUS_OWN_BOUND_TEST = {"anytime"}
STATUS_OTHER_PROOF = {"anytime"}
