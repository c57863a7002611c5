"""Slot-by-slot placement: the engine behind the repair of ``rr``, ``fifo-locality`` and ``drf``.

A :class:`SlotSchedule` walks the slots in order; in each slot the caller places jobs on the free
capacity of that slot (co-located on one machine, or spread unit by unit), and the schedule
tracks each job's remaining workload. Every placement respects capacity, the worker cap and
parameter-server coverage by construction, and gives a job no more workers than it needs to
finish, so the schedules it produces always pass the checker (if every job finishes).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .instance import CAPACITY_RTOL, PROGRESS_RTOL, PsLocalityInstance

__all__ = ["SlotSchedule", "fifo_locality", "drf"]


class SlotSchedule:
    """Incremental slotted schedule over an instance (or the residual of one, for online use)."""

    def __init__(self, instance: PsLocalityInstance, remaining: np.ndarray | None = None):
        self.inst = instance
        self.dw, self.dp = instance.worker_demand, instance.ps_demand
        self.fan, self.W = instance.ps_fan, instance.max_workers
        self.e_in, self.e_ex = instance.e_in, instance.e_ex
        self.remaining = instance.workload.copy() if remaining is None else remaining.astype(float).copy()
        self.entries: list[tuple[int, int, int, int, int, int, int]] = []
        self.completion = np.full(instance.num_jobs, -1, dtype=np.int64)
        self.slot = -1
        self.free = instance.capacity.copy()
        self._alloc: dict[int, tuple] = {}

    # -- slots ---------------------------------------------------------------------------------
    def begin(self, t: int) -> None:
        """Start slot ``t``: full capacity, no allocation yet."""
        self.slot, self.free, self._alloc = t, self.inst.capacity.copy(), {}

    def unfinished(self, i: int) -> bool:
        return self.remaining[i] > self.inst.workload[i] * PROGRESS_RTOL

    def active(self) -> np.ndarray:
        """Jobs arrived by the current slot and not finished, by index."""
        arrived = self.inst.arrival <= self.slot
        return np.flatnonzero(arrived & (self.remaining > self.inst.workload * PROGRESS_RTOL))

    def need(self, i: int, spread: bool) -> int:
        """Workers that finish job i in this slot (at least 1, at most max_workers)."""
        e = self.e_ex[i] if spread else self.e_in[i]
        w = int(np.ceil(self.remaining[i] * (1 - PROGRESS_RTOL) * e - 1e-9))
        return int(min(self.W[i], max(1, w)))

    def end(self) -> None:
        """Close the slot: record its allocations and advance the jobs' progress."""
        t = self.slot
        for i, (mode, cols) in sorted(self._alloc.items()):
            if mode == "colo":
                h, w, ps = cols
                self.entries.append((i, h, t, w, ps, 0, 0))
                self.remaining[i] -= w / self.e_in[i]
            else:
                wy, wq = cols
                for h in np.flatnonzero((wy + wq) > 0):
                    self.entries.append((i, int(h), t, 0, 0, int(wy[h]), int(wq[h])))
                self.remaining[i] -= wy.sum() / self.e_ex[i]
            if not self.unfinished(i) and self.completion[i] < 0:
                self.completion[i] = t

    # -- placements ----------------------------------------------------------------------------
    def workers(self, i: int) -> int:
        """Workers job i holds in the current slot."""
        a = self._alloc.get(i)
        if a is None:
            return 0
        return a[1][1] if a[0] == "colo" else int(a[1][0].sum())

    def allocation(self, i: int):
        """Job i's allocation of the current slot: ("colo", (machine, workers, PSs)) or
        ("spread", (workers per machine, PSs per machine)), or None."""
        return self._alloc.get(i)

    def colo_widths(self, i: int, target: int, free: np.ndarray | None = None) -> np.ndarray:
        """Per machine, the most workers (<= target) that fit co-located with their PSs."""
        free = self.free if free is None else free
        w = np.arange(target + 1)
        need = w[:, None] * self.dw[i] + (-(-w // self.fan[i]))[:, None] * self.dp[i]          # (w, R)
        ok = np.all(need[None, :, :] <= free[:, None, :] * (1 + CAPACITY_RTOL) + CAPACITY_RTOL, axis=2)
        return np.where(ok, w[None, :], 0).max(axis=1)

    def release(self, i: int) -> None:
        """Give back job i's allocation of the current slot."""
        a = self._alloc.pop(i, None)
        if a is None:
            return
        if a[0] == "colo":
            h, w, ps = a[1]
            self.free[h] += w * self.dw[i] + ps * self.dp[i]
        else:
            wy, wq = a[1]
            self.free += wy[:, None] * self.dw[i] + wq[:, None] * self.dp[i]

    def place_colo(self, i: int, h: int, target: int) -> int:
        """Co-locate up to ``target`` workers of job i on machine h; returns the workers placed."""
        self.release(i)
        w = int(self.colo_widths(i, target)[h]) if target > 0 else 0
        if w > 0:
            ps = -(-w // int(self.fan[i]))
            self.free[h] -= w * self.dw[i] + ps * self.dp[i]
            self._alloc[i] = ("colo", (h, w, ps))
        return w

    def place_spread(self, i: int, target: int, prefer: np.ndarray | None = None) -> int:
        """Spread up to ``target`` workers of job i, one unit at a time (a PS whenever the
        workers placed so far outgrow the PSs), each on the first machine in ``prefer`` order (then
        by index) with room. Returns the workers placed."""
        self.release(i)
        H = self.inst.num_machines
        order = np.arange(H) if prefer is None else np.asarray(prefer)
        wy, wq = np.zeros(H, np.int64), np.zeros(H, np.int64)
        free, dw, dp, fan = self.free, self.dw[i], self.dp[i], int(self.fan[i])
        tol = lambda f: f * (1 + CAPACITY_RTOL) + CAPACITY_RTOL  # noqa: E731
        fits_w = np.all(dw <= tol(free), axis=1)
        placed = 0
        while placed < target:
            ps_at = None
            if placed + 1 > fan * wq.sum():
                ok = np.flatnonzero(np.all(dp <= tol(free[order]), axis=1))
                if ok.size == 0:
                    break
                ps_at = order[ok[0]]
                free[ps_at] -= dp
                wq[ps_at] += 1
                fits_w = np.all(dw <= tol(free), axis=1)
            ok = np.flatnonzero(fits_w[order])
            if ok.size == 0:
                if ps_at is not None:
                    free[ps_at] += dp
                    wq[ps_at] -= 1
                break
            h = order[ok[0]]
            free[h] -= dw
            wy[h] += 1
            fits_w[h] = np.all(dw <= tol(free[h]))
            placed += 1
        if placed:
            self._alloc[i] = ("spread", (wy, wq))
        return placed

    def place_best(self, i: int) -> int:
        """Place job i in the mode that makes the most progress this slot (ties: co-located)."""
        widths = self.colo_widths(i, self.need(i, spread=False))
        h = int(np.argmax(widths))
        colo_rate = widths[h] / self.e_in[i]
        w_spread = self.place_spread(i, self.need(i, spread=True))
        if w_spread / self.e_ex[i] > colo_rate:
            return w_spread
        return self.place_colo(i, h, int(widths[h]))

    def grow(self, i: int) -> int:
        """Let job i use free room this slot, in its current mode (any mode if it has none)."""
        a = self._alloc.get(i)
        if a is None:
            return self.place_best(i)
        if a[0] == "colo":
            return self.place_colo(i, a[1][0], self.need(i, spread=False))
        prefer = np.argsort(-a[1][0], kind="stable")
        return self.place_spread(i, self.need(i, spread=True), prefer)

    def solution(self) -> dict:
        return {"allocations": [list(map(int, e)) for e in self.entries]}

    def objective(self) -> float | None:
        if np.any(self.completion < 0):
            return None
        return float(np.sum(self.completion - self.inst.arrival + 1))


def fifo_locality(instance: PsLocalityInstance, poll: Callable[[], None] | None = None) -> SlotSchedule:
    """FIFO with locality (baseline [ours]): in each slot, jobs in arrival
    order (ties by index) are co-located with the workers they need (at most max_workers) on the
    first machine where all of them fit; otherwise spread with as many as fit; otherwise wait.
    Re-decided every slot (the model has no migration cost). O(T n (H R W + W H)). ``poll`` (the
    caller's clock check, raising to stop) runs once per slot and once per job placed."""
    s = SlotSchedule(instance)
    order = np.lexsort((np.arange(instance.num_jobs), instance.arrival))
    for t in range(instance.horizon_slots):
        if poll is not None:
            poll()
        s.begin(t)
        for i in order:
            if instance.arrival[i] > t or not s.unfinished(i):
                continue
            if poll is not None:
                poll()
            want = s.need(i, spread=False)
            fits = np.flatnonzero(s.colo_widths(i, want) >= want)
            if fits.size:
                s.place_colo(i, int(fits[0]), want)
            else:
                s.place_spread(i, s.need(i, spread=True))
        s.end()
        if not s.active().size and np.all(instance.arrival <= t):
            break
    return s


def drf(instance: PsLocalityInstance, poll: Callable[[], None] | None = None) -> SlotSchedule:
    """DRF-style fair share with spread placement (baseline [ours]): in each
    slot, repeatedly give one more spread worker (and a PS when needed) to the active job with the
    smallest dominant share of the cluster's total capacity that can still grow, until no job can.
    O(T w n (R + H)) for w workers placed per slot. ``poll`` (the caller's clock check, raising
    to stop) runs once per slot and once per worker offered."""
    s = SlotSchedule(instance)
    total = instance.capacity.sum(axis=0)
    total = np.where(total > 0, total, np.inf)
    for t in range(instance.horizon_slots):
        if poll is not None:
            poll()
        s.begin(t)
        jobs = list(s.active())
        share = {i: 0.0 for i in jobs}
        while jobs:
            if poll is not None:
                poll()
            i = min(jobs, key=lambda j: (share[j], j))
            have = s.workers(i)
            if have >= s.need(i, spread=True) or s.place_spread(i, have + 1) <= have:
                if s.workers(i) < have:  # the re-placement lost room: restore the previous width
                    s.place_spread(i, have)
                jobs.remove(i)
                continue
            w = have + 1
            ps = -(-w // int(instance.ps_fan[i]))
            share[i] = float(np.max((w * instance.worker_demand[i] + ps * instance.ps_demand[i]) / total))
        s.end()
        if not s.active().size and np.all(instance.arrival <= t):
            break
    return s
