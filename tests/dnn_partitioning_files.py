"""Hand-written graphs of the dnn-partitioning JSON format (msr-fiddle's operator graphs), for the
importer tests of the problems that read it."""

import gzip
import json


def node(i, back=False, **kw):  # only the required fields (no colorClass, isBackwardNode, supportedOnFpga)
    d = {"id": i, "name": f"op{i}", "cpuLatency": 2.0, "fpgaLatency": 1.0, "size": 4.0 * i}
    if back:
        d["isBackwardNode"] = True
    d.update(kw)
    return d


def chain(ids, nbytes=8.0):
    return [{"sourceId": a, "destId": b, "cost": 0.1, "size": nbytes} for a, b in zip(ids, ids[1:])]


def write(path, doc, gz=False):
    data = json.dumps(doc).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path
