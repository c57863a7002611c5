"""Practitioners' baselines of ``interference-online`` beyond FIFO-pack and least-interference.

All are non-preemptive and work-conserving with backfilling (a job that fits nowhere now does
not block later ones), and look at the first ``LOOKAHEAD`` waiting jobs in arrival order, like
the other policies (:mod:`.policies`).

* :class:`TiresiasLas` [ours, adaptation of Tiresias' discretized 2D-LAS, Gu et al., NSDI 2019]:
  Tiresias ranks jobs by attained GPU service (GPUs x time run) and preempts; without preemption
  a waiting job has attained nothing, so 2D-LAS alone is FIFO. The adaptation keeps the two
  dimensions known at arrival: the waiting jobs are ranked by GPU demand (the rate at which they
  would attain service; smallest first, arrival order within a demand), and placed consolidated
  (fewest servers, best fit), interference-oblivious as Tiresias is.
* :class:`GandivaPack` [ours, after Gandiva's packing, Xiao et al., OSDI 2018, without
  migration]: FIFO with backfilling; a job is packed onto occupied servers only when every
  co-location is *profitable* by the measured pair slowdowns -- the pair's combined progress
  ``1/(1 + beta_ab) + 1/(1 + beta_ba)`` exceeds 1, Gandiva's packing test on profiled
  throughputs -- and, among the candidates, prefers servers already running jobs of the same
  GPU demand (Gandiva's affinity, which limits fragmentation), then best fit. Unprofitable
  packing is used only when nothing else fits (no migration later repairs it).
* :class:`SjfLeastInterference` [ours, a duration-aware reference, not a practitioner's
  scheduler]: the waiting jobs by increasing isolated run time, each on least-interference's
  candidate. It reads the job's isolated seconds, as every method of this problem may (the
  instance gives them), and shows how much of a gap comes from ordering by duration.
"""

from __future__ import annotations

from optsched.workloads.colocation import candidates, greedy_placement

from .policies import InterferencePolicy

__all__ = ["TiresiasLas", "GandivaPack", "SjfLeastInterference"]


def _pack_key(free):
    return lambda p: (len(p), sum(free[s] for s in p), min(p))


class TiresiasLas(InterferencePolicy):
    def choose(self, sim, waiting, now):
        snap = self.snapshot(sim, waiting, reject_cost=1.0)
        free, placed, out = list(snap.free), {}, []
        order = sorted(range(len(waiting)), key=lambda j: (waiting[j].gpus, waiting[j].arrival, waiting[j].id))
        for j in order:
            cands = candidates(snap, j, free, placed)
            if not cands:
                continue
            p = min(cands, key=_pack_key(free))
            placed[j] = p
            for s, g in p.items():
                free[s] -= g
            out.append((waiting[j].id, p))
        return out


class GandivaPack(InterferencePolicy):
    def choose(self, sim, waiting, now):
        snap = self.snapshot(sim, waiting, reject_cost=1.0)
        beta = snap.beta
        free, placed, out = list(snap.free), {}, []
        # the types and GPU demands on each server: residents, then jobs placed in this event
        types = [[] for _ in free]
        sizes = [[] for _ in free]
        running = sim.running()   # the snapshot's residents, in this order
        for r, servers in enumerate(snap.res_servers):
            for s in servers:
                types[s].append(snap.res_types[r])
                sizes[s].append(self.by_id[running[r].id].gpus)

        def profitable(tj, s):
            return all(1.0 / (1.0 + beta[tj][tk]) + 1.0 / (1.0 + beta[tk][tj]) > 1.0 for tk in types[s])

        for j, job in enumerate(waiting):
            cands = candidates(snap, j, free, placed)
            if not cands:
                continue
            tj = job.type

            def key(p):
                bad = sum(not profitable(tj, s) for s in p)
                affinity = sum(sizes[s].count(job.gpus) for s in p)
                return (bad > 0, len(p), -affinity, sum(free[s] for s in p), min(p))

            p = min(cands, key=key)
            placed[j] = p
            for s, g in p.items():
                free[s] -= g
                types[s].append(tj)
                sizes[s].append(job.gpus)
            out.append((job.id, p))
        return out


class SjfLeastInterference(InterferencePolicy):
    def choose(self, sim, waiting, now):
        snap = self.snapshot(sim, waiting, reject_cost=float("inf"))
        order = sorted(range(len(waiting)), key=lambda j: (waiting[j].isolated_time, waiting[j].id))
        return [(job.id, p) for job, p in zip(waiting, greedy_placement(snap, "least-interference", order=order))
                if p is not None]
