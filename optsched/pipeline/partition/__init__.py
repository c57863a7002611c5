"""The chain partition of a pipeline plan, shared by the problems that plan or schedule pipelines:
the plan instance format and its checker (:mod:`.instance`), its generators (:mod:`.generate`),
and the exact chain DPs with replication and device mapping (:mod:`.dp` over the search spaces of
:mod:`.spaces`, with the stage arithmetic of :mod:`.stages` and the clock polling of
:mod:`.clock`). :func:`.dp.best_plan` is the plan a schedule starts from when it is given a
profile instead of a plan. Import the sub-modules directly.
"""
