"""An independent reader of planetoid's ``ind.<name>.graph`` pickles for the importers' tests.

Deliberately not the project's importer: the tests compare what it imports with this plain read
(a restricted unpickler that admits only the dict-of-lists the format holds).
"""

from __future__ import annotations

import pickle


class _AdjacencyOnly(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("collections", "defaultdict"):
            import collections

            return collections.defaultdict
        if (module, name) in (("__builtin__", "list"), ("builtins", "list")):
            return list
        raise pickle.UnpicklingError(f"{module}.{name}")


def read_adjacency(path) -> dict:
    """The adjacency dict of a planetoid graph pickle (Python 2 pickles: latin-1 strings)."""
    with open(path, "rb") as fh:
        return _AdjacencyOnly(fh, encoding="latin1").load()
