"""Machinery shared by the pipeline problems (``pipeline-partition``, ``pipeline-schedule`` and
the adaptive one), below them: the per-stage cost model of a plan (:mod:`.costs`). The exact
simulator of a pipeline iteration lives in the simulation layer (:mod:`optsched.simulation.pipeline`;
``optsched.pipeline.schedule_sim`` is a deprecated alias). Import the sub-modules directly."""
