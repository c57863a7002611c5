"""Read an importer's input file: plain or gzip, UTF-8 (with or without BOM), any line endings.

Every importer reads its file through :func:`read_text` (text formats) or :func:`read_bytes`
(binary formats), so a missing file, a directory, a gzip file, a truncated gzip stream or bytes
that are not text give one typed :class:`~optsched.core.errors.InvalidInstanceError` naming the
problem and the field ``(file)`` (CLI exit status 2), never a traceback.

>>> import tempfile, os, gzip
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "a.txt.gz")
>>> with gzip.open(p, "wt") as f:
...     _ = f.write("\\ufeff1 2\\r\\n3\\r\\n")
>>> read_text(p, "demo")
'1 2\\n3\\n'
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from optsched.core.errors import InvalidInstanceError

__all__ = ["read_bytes", "read_text"]

_GZIP_MAGIC = b"\x1f\x8b"


def read_bytes(path: str | Path, problem: str, field: str = "(file)") -> bytes:
    """The file's bytes, gunzipped when they start with the gzip magic number (whatever the name)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInstanceError(problem, field, f"cannot read {path}: {exc.strerror or exc}") from None
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InvalidInstanceError(problem, field, f"{path.name}: not a readable gzip file ({exc})") from None
    return raw


def read_text(path: str | Path, problem: str, field: str = "(file)") -> str:
    """The file as text: gzip or plain, UTF-8 with an optional BOM, line endings normalized to ``\\n``."""
    raw = read_bytes(path, problem, field)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInstanceError(problem, field, f"{Path(path).name}: not UTF-8 text "
                                   f"(byte {exc.start}: {raw[exc.start:exc.start + 1]!r})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
