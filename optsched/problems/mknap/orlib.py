"""Loader for OR-Library multidimensional knapsack files (``mknapcb*.txt``, Chu & Beasley 1998).

Format (``FORMAT.txt`` beside the data): the number of problems K, then per problem: n, m, the
header value (best known solution value, 0 if unavailable), n profits, m rows of n weights, m
capacities. All whitespace-separated numbers (line breaks anywhere); plain or gzip.

The header value is stored as ``reference_value`` with its provenance: it is the best *known*
value, not a proven optimum.
"""

from __future__ import annotations

import math
from pathlib import Path

from optsched.core.data import sha256_file
from optsched.core.errors import InvalidInstanceError, InvalidOptionError
from optsched.core.textfile import read_text

from .instance import MknapInstance

__all__ = ["load_orlib", "count_orlib", "parse_orlib"]


class _Tokens:
    def __init__(self, text: str, source: str):
        self.items: list[str] = []
        self.lines: list[int] = []     # the 1-based line of each token, for error messages
        for number, line in enumerate(text.splitlines(), start=1):
            words = line.split()
            self.items += words
            self.lines += [number] * len(words)
        self.pos = 0
        self.source = source

    def take(self, count: int, what: str, integer: bool = False) -> list[float]:
        if self.pos + count > len(self.items):
            raise InvalidInstanceError("mknap", what, f"{self.source} ends early: expected {count} "
                                       f"number(s), found {len(self.items) - self.pos}")
        out = []
        for at in range(self.pos, self.pos + count):
            tok = self.items[at]
            where = f"{self.source} line {self.lines[at]}"
            try:
                value = float(tok)
            except ValueError:
                raise InvalidInstanceError("mknap", what, f"{where}: not a number", tok) from None
            if not math.isfinite(value):   # "nan", "inf": float() reads them, the format has none
                raise InvalidInstanceError("mknap", what, f"{where}: must be a finite number", tok)
            if integer and value != int(value):
                raise InvalidInstanceError("mknap", what, f"{where}: must be an integer", tok)
            out.append(int(value) if integer else value)
        self.pos += count
        return out


def parse_orlib(text: str, source: str = "<text>") -> list[dict]:
    """Every problem in an OR-Library MKP file, as dicts of instance fields (validated later)."""
    tokens = _Tokens(text, source)
    (count,) = tokens.take(1, "(file) number of problems", integer=True)
    if count < 1:
        raise InvalidInstanceError("mknap", "(file) number of problems", f"{source}: must be >= 1", count)
    problems = []
    for k in range(count):
        where = f"(file) problem {k}"
        n, m, header = tokens.take(3, f"{where} header (n, m, value)")
        if n != int(n) or n < 1 or m != int(m) or m < 1:
            raise InvalidInstanceError("mknap", f"{where} header", f"{source}: n and m must be positive integers", (n, m))
        n, m = int(n), int(m)
        profits = tokens.take(n, f"{where} profits")
        weights = [tokens.take(n, f"{where} weights row {i}") for i in range(m)]
        capacities = tokens.take(m, f"{where} capacities")
        problems.append({"profits": profits, "weights": weights, "capacities": capacities,
                         "header": header})
    if tokens.pos != len(tokens.items):
        raise InvalidInstanceError("mknap", "(file)", f"{source}: {len(tokens.items) - tokens.pos} "
                                   f"unexpected trailing number(s) after {count} problem(s)")
    return problems


def count_orlib(path: str | Path) -> int:
    return len(parse_orlib(_read(path), str(path)))


def _read(path: str | Path) -> str:
    return read_text(path, "mknap")


def load_orlib(path: str | Path, index: int = 0) -> MknapInstance:
    """Problem ``index`` (0-based) of an OR-Library MKP file as a :class:`MknapInstance`."""
    path = Path(path)
    problems = parse_orlib(_read(path), path.name)
    if not 0 <= index < len(problems):
        raise InvalidOptionError("mknap", "index", f"{path.name} holds problems 0..{len(problems) - 1}", index)
    p = problems[index]
    header = p.pop("header")
    provenance = (f"OR-Library {path.name} (sha256 {sha256_file(path)}), problem {index}; "
                  f"reference_value = the file's header value, the best known solution value "
                  f"(Chu & Beasley 1998), not a proven optimum")
    return MknapInstance(name=f"{path.stem}-{index}", reference_value=float(header) if header else None,
                         provenance=provenance if header else provenance.split(";")[0] + "; no reference value",
                         **p)
