"""Machinery shared by the two pipeline problems (``pipeline-partition`` and
``pipeline-schedule``), below them: the per-stage cost model of a plan (:mod:`.costs`) and the
exact event simulator of a synchronous pipeline iteration (:mod:`.schedule_sim`). Import the
sub-modules directly."""
