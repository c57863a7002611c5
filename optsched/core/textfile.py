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
import os
import stat
import zlib
from pathlib import Path

from optsched.core.errors import InvalidInstanceError

__all__ = ["read_bytes", "read_text", "read_raw", "read_head", "MAX_STREAM_BYTES", "HEAD_BYTES"]

#: the most a pipe (``<(zcat f)``, ``/dev/stdin``) may hold: beyond it the input is refused, never
#: read until memory runs out (a regular file's size is known before it is read)
MAX_STREAM_BYTES = 8 << 30


def read_raw(path: str | Path, problem: str, field: str = "(file)") -> bytes:
    """The bytes of a regular file or a pipe, as they are; a device (``/dev/urandom``,
    ``/dev/zero``), a socket or a pipe longer than :data:`MAX_STREAM_BYTES` is invalid input
    (``InvalidInstanceError`` naming ``field``), never a read without end.

    >>> read_raw("/dev/zero", "demo")
    Traceback (most recent call last):
    ...
    optsched.core.errors.InvalidInstanceError: demo: field '(file)': /dev/zero is a character device, not a file
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return path.read_bytes()  # a folder raises IsADirectoryError below
        if not stat.S_ISFIFO(mode):
            kind = ("a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
            raise InvalidInstanceError(problem, field, f"{path} is {kind}, not a file")
        with open(path, "rb") as stream:
            raw = stream.read(MAX_STREAM_BYTES + 1)
    except OSError as exc:
        raise InvalidInstanceError(problem, field, f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_STREAM_BYTES:
        raise InvalidInstanceError(problem, field, f"{path}: more than {MAX_STREAM_BYTES} bytes from a pipe")
    return raw

_GZIP_MAGIC = b"\x1f\x8b"

#: how much of a file's start :func:`read_head` gives (after gunzipping)
HEAD_BYTES = 4096


def read_head(path: str | Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of a regular file's content, gunzipped when it starts with the gzip
    magic number, without a UTF-8 BOM: what a format's content sniffer looks at. Never an error:
    a file that cannot be read (or a pipe, a device, a folder, a broken gzip stream) gives the
    bytes read so far, possibly none; the reader that then takes the file names what is wrong.

    >>> import tempfile, os, gzip
    >>> p = os.path.join(tempfile.mkdtemp(), "h.gz")
    >>> with gzip.open(p, "wb") as f:
    ...     _ = f.write(b'\\xef\\xbb\\xbf{"a": 1}')
    >>> read_head(p), read_head("/dev/zero"), read_head("/no/such/file")
    (b'{"a": 1}', b'', b'')
    """
    head = b""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        with open(path, "rb") as fh:
            head = fh.read(size)
            if head[:2] == _GZIP_MAGIC:
                fh.seek(0)
                head = b""
                with gzip.GzipFile(fileobj=fh) as gz:
                    while len(head) < size + 3:
                        piece = gz.read(size + 3 - len(head))
                        if not piece:
                            break
                        head += piece
    except (OSError, EOFError, zlib.error):
        pass
    return head.removeprefix(b"\xef\xbb\xbf")[:size]


def read_bytes(path: str | Path, problem: str, field: str = "(file)") -> bytes:
    """The file's bytes, gunzipped when they start with the gzip magic number (whatever the name)."""
    path = Path(path)
    raw = read_raw(path, problem, field)
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
