"""Machinery shared by the pipeline problems, below them: the per-stage cost model of a plan
(:mod:`.costs`), the chain partition of a plan (:mod:`.partition`: its instance format, checker,
generators and exact DPs) and the cuts of a layer DAG (:mod:`.antichain`). The exact
simulator of a pipeline iteration lives in the simulation layer (:mod:`optsched.simulation.pipeline`;
``optsched.pipeline.schedule_sim`` is a deprecated alias). Import the sub-modules directly."""
