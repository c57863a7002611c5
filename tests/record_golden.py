"""Record the outputs of the previous implementations (``tests/*/legacy_*.py``) on the inputs of
the scale tests into ``tests/<folder>/golden/*.json``, which the tests compare with instead.

Runs only at the commit that still holds the legacy code (named in ``tests/golden.md``):

    PYTHONPATH=$PWD PYTHONHASHSEED=0 python tests/record_golden.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.golden import canonical, digest, dump  # noqa: E402


def srpt() -> None:
    import optsched
    from optsched.problems.srpt import generate
    from tests.online import legacy_srpt, legacy_srpt_generate
    from tests.online.test_srpt_scale import STREAMS

    gen = {}
    for stream in range(len(STREAMS)):
        for seed in range(3):
            old = legacy_srpt_generate.generate(seed, **STREAMS[stream])
            gen[f"stream{stream}/seed{seed}"] = {"sha256": old.sha256(), "jobs": old.num_jobs,
                                                 "distinct_edge_tuples": len({id(j.edges) for j in old.jobs})}
    schedules = {}
    for stream in range(len(STREAMS)):
        for seed in range(2):
            inst = generate(seed, **STREAMS[stream])
            for method in sorted(legacy_srpt.METHODS):
                solution, stats = legacy_srpt.METHODS[method](inst)
                multi = any(len(set(seg["servers"])) > 1 for job in solution["jobs"] for seg in job["segments"])
                schedules[f"{method}/stream{stream}/seed{seed}"] = {
                    "instance_sha256": inst.sha256(), "solution_sha256": digest(solution),
                    "segments": sum(len(job["segments"]) for job in solution["jobs"]),
                    "multi_server_segments": multi, "stats": stats}
    dump(ROOT / "tests/online/golden/srpt_generator.json", gen)
    dump(ROOT / "tests/online/golden/srpt_schedules.json", schedules)


def rar_online() -> None:
    import optsched
    from optsched.core.instance import canonical_json
    from optsched.problems.rar_online import generate
    from tests.ring_allreduce import legacy_rar_generate, legacy_rar_online as legacy
    from tests.ring_allreduce.test_rar_online_scale import GENERATOR_OPTIONS, STREAMS

    gadget = {}
    for stream in range(len(STREAMS)):
        for seed in range(2):
            inst = optsched.generate("rar-online", seed, **STREAMS[stream])
            policy = legacy.GadgetPolicy(inst)
            allocations = legacy.run_policy(inst, policy)
            gadget[f"stream{stream}/seed{seed}"] = {
                "instance_sha256": inst.sha256(), "allocations_sha256": digest(allocations),
                "allocations": len(allocations), "admitted": policy.admitted, "rejected": policy.rejected,
                "spread": any(len(parts) >= 2 for _, _, parts in allocations)}
    baselines = {}
    for seed in range(2):
        for method, make in (("fifo", lambda inst: legacy.FifoRar(inst)),
                             ("tiresias-las", lambda inst: legacy.TiresiasLas(inst, 8.0))):
            for stream in (1, 3, 2):
                inst = optsched.generate("rar-online", seed, **STREAMS[stream])
                allocations = legacy.run_policy(inst, make(inst))
                baselines[f"{method}/stream{stream}/seed{seed}"] = {
                    "instance_sha256": inst.sha256(), "allocations_sha256": digest(allocations),
                    "allocations": len(allocations)}
    gen = {}
    for seed in range(3):
        for k, kw in enumerate(GENERATOR_OPTIONS):
            old = legacy_rar_generate.generate(seed, **kw)
            gen[f"options{k}/seed{seed}"] = {"canonical_json_sha256": digest_text(canonical_json(old.to_json())),
                                            "jobs": len(old.jobs)}
            assert old.sha256() == gen[f"options{k}/seed{seed}"]["canonical_json_sha256"]
    dump(ROOT / "tests/ring_allreduce/golden/rar_online.json",
         {"gadget": gadget, "baselines": baselines, "generator": gen})


def digest_text(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def cluster() -> None:
    from tests.simulation import legacy_cluster as old
    from tests.simulation.test_compact_engine import KINDS, _policies, _run, _run_options, _stream

    runs = {}
    for seed in range(4):
        for kind in KINDS:
            rows = _stream(seed)
            want = _run(old, rows, _policies(old)[kind](seed), **_run_options(seed))
            runs[f"{kind}/seed{seed}"] = {
                "log_sha256": digest([tuple(e) for e in want.log]), "events": len(want.log),
                **{f"{field}_sha256": digest(list(getattr(want, field).items()))
                   for field in ("completion", "start_first", "arrival", "preemptions", "gpu_seconds")},
                **canonical({"unfinished": list(want.unfinished), "end_time": want.end_time,
                             "total_flow_time": want.total_flow_time, "makespan": want.makespan,
                             "preemptions": sum(want.preemptions.values())})}
    dump(ROOT / "tests/simulation/golden/cluster.json", runs)


if __name__ == "__main__":
    srpt()
    rar_online()
    cluster()
