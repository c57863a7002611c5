"""JSON text and files: the canonical text that instance digests hash, the one reader of every JSON
file (typed errors naming the file), and the size above which an instance is written compactly.
The serialisation side of :mod:`optsched.core.instance` (which re-exports these names)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .errors import InvalidInstanceError

__all__ = ["canonical_json", "load_json_file", "head_problem", "COMPACT_ABOVE", "unique_keys",
           "check_unique_keys"]


def canonical_json(data: Any) -> str:
    """Canonical JSON text (sorted keys, no spaces): what ``instance_sha256`` hashes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _orjson():
    """orjson, imported with Ctrl-C held back (a SIGINT during its first import crashes the
    interpreter; :func:`optsched.core.startup.import_deferring_sigint`), or None without it."""
    from .startup import import_deferring_sigint

    try:
        return import_deferring_sigint("orjson")
    except ImportError:  # pragma: no cover - orjson is a dependency; the fallback keeps it optional
        return None


def load_json_file(path: str | Path, problem: str) -> Any:
    """Read a JSON file, turning I/O and syntax errors into :class:`InvalidInstanceError`.

    Parsed with ``orjson`` when it is installed (several times faster on large files; the same
    values: correctly rounded floats, Python ints), else with the standard library; a file orjson
    rejects is parsed again by the standard library, whose error message names line and column.
    """
    from .textfile import read_raw

    raw = read_raw(path, problem)  # a device such as /dev/urandom is refused, not read without end
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInstanceError(problem, "(file)", f"{path} is not a UTF-8 text (JSON) file: "
                                   f"undecodable byte at offset {exc.start}") from None
    if "\x00" in text:
        raise InvalidInstanceError(problem, "(file)", f"{path} is a binary file (NUL byte at offset "
                                   f"{text.index(chr(0))}), not JSON") from None
    orjson = _orjson()
    if orjson is not None:
        try:
            data = orjson.loads(text)
        except (orjson.JSONDecodeError, RecursionError):
            pass   # the standard library's parser names line and column (or the nesting)
        else:
            check_unique_keys(text, data, path, problem)
            return data
    try:
        return json.loads(text, object_pairs_hook=_pairs_hook(path, problem))
    except RecursionError:
        raise InvalidInstanceError(problem, "(file)", f"{path}: JSON nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise InvalidInstanceError(problem, "(file)", f"{path} is not valid JSON: {exc.msg} at line "
                                   f"{exc.lineno} column {exc.colno}") from None


class _DuplicateKey(Exception):
    pass


def unique_keys(pairs: list) -> dict:
    """An ``object_pairs_hook`` for :func:`json.loads`: the object as a dict, a key given twice
    refused (``ValueError`` naming it) instead of the last value silently winning.

    >>> json.loads('{"a": 1, "a": 2}', object_pairs_hook=unique_keys)
    Traceback (most recent call last):
    ...
    ValueError: duplicate key 'a' in a JSON object
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r} in a JSON object")
            seen.add(key)
    return out


def _pairs_hook(path, problem: str):
    def hook(pairs: list) -> dict:
        try:
            return unique_keys(pairs)
        except ValueError as exc:
            raise InvalidInstanceError(problem, "(file)", f"{path}: {exc} (each key may appear once)") from None
    return hook


#: a JSON string, and whether a colon follows it (a key): every string of a valid JSON text is
#: matched in order (outside strings a JSON text holds no quote), so keys are never mistaken
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?', re.S)


def check_unique_keys(text: str, data: Any, path, problem: str) -> None:
    """Refuse a JSON text one of whose objects gives a key twice (parsers keep the last value
    without a word), the error naming the key: :class:`InvalidInstanceError`. ``data`` is what a
    parser made of ``text``. Cheap on the usual file (every key text distinct, or as many keys in
    the parsed data as in the text: C-level passes, no Python step per number); only a file with
    a duplicate is parsed again, by the standard library, to name it."""
    keys = [key for key, colon in _STRING.findall(text) if colon]
    if len(set(keys)) == len(keys) and not any("\\" in key for key in keys):
        return
    if _parsed_keys(data) == len(keys):
        return
    json.loads(text, object_pairs_hook=_pairs_hook(path, problem))


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _parsed_keys(data: Any) -> int:
    """The number of keys over every object of parsed JSON ``data``, level by level with C-level
    passes (a list of 10^8 numbers is one ``set(map(type, ...))``, never a Python loop)."""
    from itertools import chain

    dicts = [data] if type(data) is dict else []
    lists = [data] if type(data) is list else []
    total = 0
    while dicts or lists:
        total += sum(map(len, dicts))
        next_dicts: list = []
        next_lists: list = []
        for children in (lambda: chain.from_iterable(map(dict.values, dicts)), lambda: chain.from_iterable(lists)):
            kinds = set(map(type, children()))
            if kinds <= _SCALARS:
                continue
            if kinds == {dict}:
                next_dicts.extend(children())
            elif kinds == {list}:
                next_lists.extend(children())
            else:
                for child in children():
                    if type(child) is dict:
                        next_dicts.append(child)
                    elif type(child) is list:
                        next_lists.append(child)
        dicts, lists = next_dicts, next_lists
    return total


#: instances whose top-level lists hold more elements than this are saved compactly
COMPACT_ABOVE = 200_000


def _size_hint(data: dict) -> int:
    """Number of elements in the top-level lists of an instance's JSON data (cheap)."""
    return sum(len(v) for v in data.values() if isinstance(v, list))


#: the head optsched writes on every instance and result file: ``format_version``, then ``problem``
_HEAD = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"format_version"\s*:\s*-?[0-9]+\s*,\s*"problem"\s*:\s*'
                   rb'"([A-Za-z0-9_.\-]+)"\s*[,}]')


def head_problem(path: str | Path) -> str | None:
    """The problem a JSON file names at its head, read from its first 4 kB without parsing the rest
    (a large instance's lists are read once, by its type's own reader): None unless the file is a
    regular, uncompressed file that starts the way optsched writes them (``format_version``, then
    ``problem``); the caller then reads the file the generic way, which checks everything."""
    try:
        p = Path(path)
        if not p.is_file():
            return None
        with open(p, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    m = _HEAD.match(head)
    return m.group(1).decode("ascii") if m else None
