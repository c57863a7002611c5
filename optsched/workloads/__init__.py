"""Workloads shared by every problem, below the problem packages: DNN layer profiles
(:mod:`.profiles`), the analytic profile calculator behind ``models/``, device topologies
(:mod:`.topology`) and job traces (:mod:`.traces`). Import the sub-modules directly."""
