"""The public data sets: where each comes from (a repository at a pinned commit), their files'
SHA-256, and ``optsched data fetch`` that downloads them into the data directory.

The data directory is ``OPTSCHED_DATA_DIR`` when set, else the user cache
(:func:`optsched.core.data.default_data_dir`: ``~/.cache/optsched/data`` on Linux,
``~/Library/Caches/optsched/data`` on macOS). Each file is downloaded from
``https://raw.githubusercontent.com/<repo>/<commit>/<path>`` (or from a mirror of the data
directory's layout, ``--from URL``) with pooch, into a temporary file beside its destination; only
a download whose SHA-256 equals the pinned one is moved into place. A mismatch is one line,
:class:`DataFetchError` (exit 1), and leaves nothing behind: no partial file, and a stale or
corrupted file already at the destination is removed before the download, never used.

>>> sorted(DATASETS)[:3]
['dnn-partitioning', 'gavel-throughputs', 'gavel-traces']
>>> DATASETS["mknap"].url("mknapcb1.txt")
'https://raw.githubusercontent.com/talentam/AI_method_memetic_algorithm/7261e27aa87913cb8284ebab5dda4bd43533e64f/mknapcb1.txt'
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .data import data_target, sha256_file
from .errors import OptschedError, UnknownNameError

__all__ = ["DataSet", "DATASETS", "DataFetchError", "fetch", "status"]


class DataFetchError(OptschedError):
    """A data file could not be downloaded, or its bytes are not the pinned ones (exit 1)."""


@dataclass(frozen=True)
class DataSet:
    """One public data set: ``folder`` inside the data directory, the source ``repo`` at
    ``commit``, and ``files``: ``(name inside folder, path inside the repository, sha256)``."""

    name: str
    folder: str
    repo: str
    commit: str
    summary: str
    licence: str
    files: tuple

    def url(self, source_path: str) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{source_path}"

    def entries(self, mirror: str | None = None):
        """``(relative path in the data directory, url, sha256)`` of every file."""
        for name, source, digest in self.files:
            rel = f"{self.folder}/{name}"
            url = f"{mirror.rstrip('/')}/{rel}" if mirror else self.url(source)
            yield rel, url, digest


def _select(names: Iterable[str] | None) -> list[DataSet]:
    if not names:
        return [DATASETS[n] for n in sorted(DATASETS)]
    out = []
    for n in names:
        if n not in DATASETS:
            raise UnknownNameError("data set", n, sorted(DATASETS))
        out.append(DATASETS[n])
    return out


def status(names: Iterable[str] | None = None, root: str | Path | None = None) -> list[tuple[str, str, str]]:
    """``(data set, relative path, "ok" | "missing" | "corrupted")`` of every file in ``root``
    (default: the data directory)."""
    root = Path(root) if root is not None else data_target()
    rows = []
    for ds in _select(names):
        for rel, _, digest in ds.entries():
            path = root / rel
            state = "missing" if not path.is_file() else ("ok" if sha256_file(path) == digest else "corrupted")
            rows.append((ds.name, rel, state))
    return rows


def _download(url: str, path: Path, digest: str) -> None:
    """Download ``url`` to ``path`` through a temporary file beside it; keep it only when its
    SHA-256 is ``digest``."""
    import pooch

    pooch.get_logger().setLevel(logging.WARNING)  # one summary line per data set instead
    try:
        pooch.retrieve(url, known_hash=f"sha256:{digest}", fname=path.name, path=path.parent, progressbar=False)
    except ValueError as exc:
        if "hash" not in str(exc).lower():
            raise
        raise DataFetchError(f"{url}: the downloaded bytes do not have the pinned SHA-256 {digest[:12]}... "
                             f"(corrupted, or changed at the source); discarded, nothing written") from None
    except Exception as exc:  # requests' errors derive from OSError (IOError); urllib3's do not
        if not isinstance(exc, OSError) and not _is_urllib3_error(exc):
            raise
        raise DataFetchError(_unreachable(url, exc)) from None


def _is_urllib3_error(exc: BaseException) -> bool:
    try:
        from urllib3.exceptions import HTTPError
    except ImportError:  # pragma: no cover - requests (hence pooch) needs urllib3
        return False
    return isinstance(exc, HTTPError)


#: what to do when the source cannot be reached: the two options of ``optsched data fetch``
_OFFLINE_HINT = ("use --from URL (a mirror laid out like the data directory) or --dir DIR (a data "
                 "directory copied from elsewhere: its files are checked, not downloaded)")


def _causes(exc: BaseException):
    """``exc`` and everything it wraps: ``__cause__``/``__context__``, urllib3's ``reason`` and
    the exceptions among ``args`` (requests wraps urllib3's ``MaxRetryError`` there)."""
    seen, todo = set(), [exc]
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen or not isinstance(e, BaseException):
            continue
        seen.add(id(e))
        yield e
        todo += [e.__cause__, e.__context__, getattr(e, "reason", None)]
        todo += [a for a in getattr(e, "args", ()) if isinstance(a, BaseException)]


def network_reason(exc: BaseException) -> str:
    """Why a download failed, in a few words: ``DNS lookup failed``, ``connection refused``,
    ``timed out``, ``HTTP 404``, ... (from the exception and what it wraps, never its raw text)."""
    chain = list(_causes(exc))
    names = {type(e).__name__ for e in chain}
    for e in chain:
        response = getattr(e, "response", None)
        code = getattr(response, "status_code", None)
        if code is not None:
            return f"HTTP {code}"
    text = " ".join(str(e) for e in chain).lower()
    import socket

    if (names & {"NameResolutionError", "gaierror"} or any(isinstance(e, socket.gaierror) for e in chain)
            or "name or service not known" in text or "temporary failure in name resolution" in text
            or "nodename nor servname" in text or "getaddrinfo failed" in text):
        return "DNS lookup failed: the name does not resolve; offline?"
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "connection refused" in text:
        return "connection refused"
    if (any(isinstance(e, (TimeoutError, socket.timeout)) for e in chain)
            or names & {"ConnectTimeout", "ReadTimeout", "Timeout", "ConnectTimeoutError", "ReadTimeoutError"}
            or "timed out" in text):
        return "timed out"
    if names & {"SSLError", "SSLCertVerificationError"}:
        return "TLS/SSL handshake failed"
    if any(isinstance(e, ConnectionResetError) for e in chain) or "reset by peer" in text:
        return "connection reset"
    if any(isinstance(e, (ConnectionError, OSError)) and getattr(e, "strerror", None) for e in chain):
        e = next(e for e in chain if isinstance(e, OSError) and getattr(e, "strerror", None))
        return e.strerror.lower()
    return f"connection failed ({type(exc).__name__})"


def _unreachable(url: str, exc: BaseException) -> str:
    """One line: which host could not be reached, why, and the offline options."""
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or url
    reason = network_reason(exc)
    if reason.startswith("HTTP "):
        return f"{url}: download failed: {host} answered {reason}"
    return f"cannot reach {host} ({reason}) to download {url}; {_OFFLINE_HINT}"


#: the URL schemes a mirror (``--from``) may use: what the downloader speaks
MIRROR_SCHEMES = ("https", "http", "ftp", "sftp")


def check_mirror(mirror: str | None) -> None:
    """Raise :class:`~optsched.core.errors.InvalidOptionError` (``data``, ``--from``) unless
    ``mirror`` is None or a URL of a scheme in :data:`MIRROR_SCHEMES` with a host.

    >>> check_mirror("https://example.org/optsched-data")
    >>> check_mirror("::bogus::")
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidOptionError: data: field '--from': must be a URL of a mirror laid out like the data directory (https://, http://, ftp:// or sftp://HOST/...) (got '::bogus::')
    """
    from urllib.parse import urlsplit

    from .errors import InvalidOptionError

    if mirror is None:
        return
    rule = ("must be a URL of a mirror laid out like the data directory "
            f"({', '.join(s + '://' for s in MIRROR_SCHEMES[:-1])} or {MIRROR_SCHEMES[-1]}://HOST/...)")
    if not isinstance(mirror, str):
        raise InvalidOptionError("data", "--from", rule, mirror)
    try:
        parts = urlsplit(mirror.strip())
    except ValueError:  # e.g. an unbalanced [ in the host
        raise InvalidOptionError("data", "--from", rule, mirror) from None
    if parts.scheme.lower() not in MIRROR_SCHEMES or not parts.netloc:
        raise InvalidOptionError("data", "--from", rule, mirror)


def fetch(names: Iterable[str] | None = None, root: str | Path | None = None, mirror: str | None = None,
          log: Callable[[str], None] | None = print) -> list[Path]:
    """Download the data sets ``names`` (default: all) into ``root`` (default: the data directory,
    created if needed), checking every file's SHA-256; files already there with the right bytes
    are kept. Returns the paths of the files. Raises :class:`DataFetchError` on the first file
    that cannot be had (files fetched before it stay: each of them is verified)."""
    check_mirror(mirror)  # before anything is created or downloaded
    root = Path(root) if root is not None else data_target()
    sets = _select(names)
    paths = []
    for ds in sets:
        got = kept = 0
        for rel, url, digest in ds.entries(mirror):
            path = root / rel
            if path.is_file():
                if sha256_file(path) == digest:
                    kept += 1
                    paths.append(path)
                    continue
                try:
                    path.unlink()  # a stale or corrupted copy is never used
                except OSError as exc:
                    raise DataFetchError(f"{path}: has the wrong SHA-256 and cannot be removed: {exc.strerror}") from None
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise DataFetchError(f"{path.parent}: cannot create the folder: {exc.strerror}") from None
            _download(url, path, digest)
            got += 1
            paths.append(path)
        if log:
            log(f"{ds.name}: {len(ds.files)} files in {root / ds.folder} ({got} downloaded, {kept} already there), "
                f"SHA-256 checked; source {ds.repo}@{ds.commit[:12]}")
    return paths


DATASETS: dict[str, DataSet] = {d.name: d for d in (
    DataSet("dnn-partitioning", "graphs/dnn-partitioning", "msr-fiddle/dnn-partitioning", "b207b6ad27a1407d321f1e028cea96d7f2c90e3e",
            "per-layer and per-operator DAGs of BERT, GNMT, Inception-v3, ResNet-50", "MIT", (
        ("LICENSE.txt", "LICENSE.txt",
         "18be128bd58efbb57f3d221da4a4735a06f5cb241f7bbc2fa0ef432581b7f8dd"),
        ("latency-inputs/LayerGraphs/bert24_inference.json", "latency-inputs/LayerGraphs/bert24_inference.json",
         "a1140cc38ee90e032683e769203bc160f42b2bb67ebae17c4a269580cd07d95f"),
        ("latency-inputs/LayerGraphs/gnmt_inference.json", "latency-inputs/LayerGraphs/gnmt_inference.json",
         "9a6b57da6b1536abaa54e1d09e91d9a10e6823a27a55f38bceca07714258f638"),
        ("latency-inputs/LayerGraphs/inceptionv3_inference.json", "latency-inputs/LayerGraphs/inceptionv3_inference.json",
         "32dee439d5b8a195797ff6cb483a6d1dcadef3924ffa4751b4861f33ad5946ff"),
        ("latency-inputs/LayerGraphs/resnet50_inference.json", "latency-inputs/LayerGraphs/resnet50_inference.json",
         "61eb40ca178ff2cccb2a90f2c0e2eb44bff592717728cadba2ed7be82dc0a82e"),
        ("latency-inputs/OperatorGraphs/bert_l-12_inference.json", "latency-inputs/OperatorGraphs/bert_l-12_inference.json",
         "66360c658c05e6399723e91e40f1d6ba75b4e2cb33433359a872102a30f2a302"),
        ("latency-inputs/OperatorGraphs/bert_l-3_inference.json", "latency-inputs/OperatorGraphs/bert_l-3_inference.json",
         "56968af73dd6fd5c3f4c25054541f0a12dc5cb99763f46cc77a473e0caf179fd"),
        ("latency-inputs/OperatorGraphs/bert_l-6_inference.json", "latency-inputs/OperatorGraphs/bert_l-6_inference.json",
         "3aa64b00474289b5e329cf994eab495072564af95dfd2bad0f5a102d69562e35"),
        ("latency-inputs/OperatorGraphs/resnet50_inference.json", "latency-inputs/OperatorGraphs/resnet50_inference.json",
         "008f983eda0b0282a5898f1d6848557a3f62266626c58ea7f300ddb58c8ace9c"),
        ("throughput-inputs/LayerGraphs/bert24_inference.json", "throughput-inputs/LayerGraphs/bert24_inference.json",
         "94263bae71fbb8d282e110dc19a0b16d5f80178fd49c875b9a0476911e89fbdb"),
        ("throughput-inputs/LayerGraphs/bert24_training.json", "throughput-inputs/LayerGraphs/bert24_training.json",
         "8edcf0e9300b16faa608a9eaf3083c6641dec751984f8ee82be8cdfe2126413c"),
        ("throughput-inputs/LayerGraphs/gnmt_inference.json", "throughput-inputs/LayerGraphs/gnmt_inference.json",
         "db56efc77d7028848c45369edd8a1a824d11bdc9291df07b4594038c59bcb062"),
        ("throughput-inputs/LayerGraphs/gnmt_training.json", "throughput-inputs/LayerGraphs/gnmt_training.json",
         "452964e4b25c711b2153771b47ba1251dc0b9833bfb41bbcfad5d29c0fb33819"),
        ("throughput-inputs/LayerGraphs/inceptionv3_inference.json", "throughput-inputs/LayerGraphs/inceptionv3_inference.json",
         "3ad6c35dddbf98bbfeb15ac1ad5cd64dd52b773a4e6fa751d8bda80b4c1132a9"),
        ("throughput-inputs/LayerGraphs/inceptionv3_training.json", "throughput-inputs/LayerGraphs/inceptionv3_training.json",
         "a910adbb9503247239e95cd9ef33798c7672005638e34ca21d5fafabc5b3b769"),
        ("throughput-inputs/LayerGraphs/resnet50_inference.json", "throughput-inputs/LayerGraphs/resnet50_inference.json",
         "9a287c4346e3379922ca2dc390d2f19ab6cc83934a4a7b6c0fda4cac360adeb4"),
        ("throughput-inputs/LayerGraphs/resnet50_training.json", "throughput-inputs/LayerGraphs/resnet50_training.json",
         "b32cf4d2c2cdeb9241d1f12177a06c569cc551b1a4511bc41a51c883edb5ed8a"),
        ("throughput-inputs/OperatorGraphs/bert_L-12_training.json", "throughput-inputs/OperatorGraphs/bert_L-12_training.json",
         "edc924ad581d4adca57699691a1702769a1a62adf112883eb94c909943685a08"),
        ("throughput-inputs/OperatorGraphs/bert_l-12_inference.json", "throughput-inputs/OperatorGraphs/bert_l-12_inference.json",
         "4762b1a1253896ff0cb10ec001f23753b7700737554628e56aaa7965c49baa26"),
        ("throughput-inputs/OperatorGraphs/bert_l-3_inference.json", "throughput-inputs/OperatorGraphs/bert_l-3_inference.json",
         "1608440c352c6bcf48c0b94146e096690a85c88ccee4ca3ff8e6f1bb7a084f8d"),
        ("throughput-inputs/OperatorGraphs/bert_l-3_training.json", "throughput-inputs/OperatorGraphs/bert_l-3_training.json",
         "988a0fb36d5d6a14177575f4e0c88ea8c6c9811f0e22d3036736687cd72619b7"),
        ("throughput-inputs/OperatorGraphs/bert_l-6_inference.json", "throughput-inputs/OperatorGraphs/bert_l-6_inference.json",
         "aa46cf8c54fcc994b08872ad12658e8f6047f4ed04d117fbd1f583037f155e3d"),
        ("throughput-inputs/OperatorGraphs/bert_l-6_training.json", "throughput-inputs/OperatorGraphs/bert_l-6_training.json",
         "4dfa95ffb403b8f058183122f4bbcb52e7397695b413fe1fceb41987049de19d"),
        ("throughput-inputs/OperatorGraphs/resnet50_inference.json", "throughput-inputs/OperatorGraphs/resnet50_inference.json",
         "cf857f11d4f69db258f2f6197e3184c1cde78b296d6a2756f52abb8a67f55dfa"),
        ("throughput-inputs/OperatorGraphs/resnet50_training.json", "throughput-inputs/OperatorGraphs/resnet50_training.json",
         "328ab3288b757d5a6b85c458d4c9e88d844556c1fa08e58bc4857881da5cfe6b"),
    )),
    DataSet("gavel-throughputs", "throughputs/gavel", "stanford-futuredata/gavel", "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c",
            "Gavel's measured throughputs, alone and co-located", "MIT", (
        ("LICENSE", "LICENSE",
         "436e0eaa343c3d2c0be22bb1ecb2fd4c8b3add8cae8679c780385f7d3b0f41ef"),
        ("simulation_throughputs.json", "scheduler/simulation_throughputs.json",
         "17111f7295f03265fd9e5118d7eba31e3dd9d6e50a2e215c13ad3d3f91f74381"),
    )),
    DataSet("gavel-traces", "traces/gavel_philly", "stanford-futuredata/gavel", "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c",
            "three Philly-derived job traces of Gavel", "MIT (repository), Philly data CC-BY-4.0", (
        ("2869ce.trace", "scheduler/traces/msr/seed=0/2869ce.trace",
         "f2ea5209f8d8d2844aefc2ffc0cd9e7e08a53ec0c3f8bbe9d6f336e29d93fa3c"),
        ("7f04ca.trace", "scheduler/traces/msr/seed=0/7f04ca.trace",
         "e999948ee9c399c0c2cd247ecd6d057309e9939004af4d57fe92c213882e1647"),
        ("LICENSE", "LICENSE",
         "436e0eaa343c3d2c0be22bb1ecb2fd4c8b3add8cae8679c780385f7d3b0f41ef"),
        ("e13805.trace", "scheduler/traces/msr/seed=0/e13805.trace",
         "76a5d2119774f81f1107091833fb18039faed8618cd7829cbf5829f74231fe2d"),
    )),
    DataSet("iopddl", "iopddl", "google/iopddl", "8a61c4359c5a330a04c8ef1780402cc254d28f29",
            "ASPLOS/EuroSys 2025 IOPDDL contest benchmarks (A, B, G, M, S) and the example", "Apache-2.0", (
        ("LICENSE", "LICENSE",
         "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"),
        ("asplos-2025-iopddl-A.json.gz", "benchmarks/asplos-2025-iopddl-A.json.gz",
         "a8553bda5720d9914e4fb2a25e40c8784d6cbc9b121df76afb394bf017e36970"),
        ("asplos-2025-iopddl-B.json.gz", "benchmarks/asplos-2025-iopddl-B.json.gz",
         "03d742412734762fe2e9cebcdfe381a6508c2e33be14a44625156256f55215f2"),
        ("asplos-2025-iopddl-G.json.gz", "benchmarks/asplos-2025-iopddl-G.json.gz",
         "c63898defb2136a47ea1cd8c264891dac82ae0223c6348884e6940ba986cd2bf"),
        ("asplos-2025-iopddl-M.json.gz", "benchmarks/asplos-2025-iopddl-M.json.gz",
         "b488b646e0a519c90853314c25a6d5a3dccfa3b782f341d2e7448427376b971c"),
        ("asplos-2025-iopddl-S.json.gz", "benchmarks/asplos-2025-iopddl-S.json.gz",
         "6db629bd9d689dfbae94c814ec822bc77daf70f13cc11261e4b779b17ba4d2e1"),
        ("example.json", "example.json",
         "bbad1e3c9092f00e34b764d63d5a30082c85a7a585a9afda2e810e46ee89dbec"),
    )),
    DataSet("mknap", "mknap", "talentam/AI_method_memetic_algorithm", "7261e27aa87913cb8284ebab5dda4bd43533e64f",
            "OR-Library mknapcb1 (Chu & Beasley 1998): 30 instances, 5 x 100, best known and LP values", "OR-Library, redistributed with citation", (
        ("FORMAT.txt", "file-format.txt",
         "5b891d624aa47b55c58783918fea874dc17a73406fffdb83689c0f81dd90efab"),
        ("best-feasible-slns.txt", "best-feasible-slns.txt",
         "b7965362550910ce93220f0522a0f5dbd7e6e3ea30640576ba1359a4ddfe9607"),
        ("mknapcb1.txt", "mknapcb1.txt",
         "04acfbfd6f7cd1e35cff2bcdbbad8b6adfce0eeedb2a63f4cc4c75a74a137876"),
    )),
    DataSet("pipedream", "profiles/pipedream", "msr-fiddle/pipedream", "7db6a1c3e64996d5b319faec6ca38cb31bfea1c4",
            "per-layer DNN profiles (VGG-16, ResNet-50, Inception-v3, DenseNet-121, ResNeXt-101, GNMT, GNMT-large)", "MIT", (
        ("LICENSE", "LICENSE.txt",
         "f177ff41be08b33d2360c93ef97d3e6cbe493c11320e1cd9bbdc00ab4c723a67"),
        ("densenet121.graph.txt", "profiler/image_classification/profiles/densenet121/graph.txt",
         "17d21dcaf4b621ebe6d5dc40323fba8b62b039d5db79110f5fb216ebc65dbfcb"),
        ("gnmt.graph.txt", "profiler/translation/profiles/gnmt/graph.txt",
         "2c5b8415ed45b34b7530d051023de388a7e0dbc02cec38f9e43610f29211dc5a"),
        ("gnmt_large.graph.txt", "profiler/translation/profiles/gnmt_large/graph.txt",
         "290023c21f9c09eb4a191bdcf820f970b8709a9cc35e7a8920f9c6504272b4e6"),
        ("inception_v3.graph.txt", "profiler/image_classification/profiles/inception_v3/graph.txt",
         "f51d9262119d7a4cb5f6cae4363a4f8ea94eead947d232c1c53f3cc11b9885cd"),
        ("resnet50.graph.txt", "profiler/image_classification/profiles/resnet50/graph.txt",
         "5fc27812d75d7fa39946ef32ac8089cc277b0debc78c6d8200de3cb5c62ca7d2"),
        ("resnext101.graph.txt", "profiler/image_classification/profiles/resnext101/graph.txt",
         "375e0fc17197faffbec14ba194193e5824341fe62920f4811d296421dc80a102"),
        ("vgg16.graph.txt", "profiler/image_classification/profiles/vgg16/graph.txt",
         "3e914ff5290644c6b1c871002d278e57fcc486c22ac07283480b7779f28e5b08"),
    )),
    DataSet("planetoid", "graphs/planetoid", "kimiyoung/planetoid", "af6abf468a772cc055bec88c52e4d6f51b7c37e3",
            "Cora and Citeseer citation graphs and their test-node ids", "MIT", (
        ("LICENSE", "LICENSE",
         "8eeeea48c8b4bc197ad1d7ab01143ac43d52053e560b175bca7ca722c4047234"),
        ("ind.citeseer.graph", "data/ind.citeseer.graph",
         "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7"),
        ("ind.citeseer.test.index", "data/ind.citeseer.test.index",
         "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4"),
        ("ind.cora.graph", "data/ind.cora.graph",
         "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d"),
        ("ind.cora.test.index", "data/ind.cora.test.index",
         "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875"),
    )),
    DataSet("tiresias", "traces/tiresias", "SymbioticLab/Tiresias", "959f9b08f44fa1b4f2b3aed79b01e4d439264a94",
            "Tiresias' 60-job trace and cluster specs", "Apache-2.0", (
        ("60_job.csv", "simulator/60_job.csv",
         "17575949a6e570960db42bc5576739de9c334ed4c664859841c4f01ede38bd1b"),
        ("LICENSE", "LICENSE",
         "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4"),
        ("cluster_spec.csv", "simulator/cluster_spec.csv",
         "58c1241b524064b2226012547eba1c9033f0820818c79b85e85a984c4d6b1867"),
        ("n160g8.csv", "simulator/n160g8.csv",
         "fce43270fc374e465862a062b3dc90fde93c2bd98800adb5e1b4efae7cfa5abe"),
        ("n32g4.csv", "simulator/n32g4.csv",
         "ca71313259ebdaad478afbe118b0dc92d5c1c59b2463f8500aa540dd92e77144"),
    )),
)}
