"""An installed optsched has the data files it reads beside its modules (the bundled policy weights,
the job-type table): every JSON file under ``optsched/`` matches a pattern of pyproject.toml's
``[tool.setuptools.package-data]``, with setuptools' glob rules (``*`` stays within one folder).

This is the fast part of ``make test-wheel`` (``.ci/wheel_test.sh``), which builds the wheel,
installs it outside the checkout and runs the methods that read those files.
"""

from __future__ import annotations

import tomllib
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]


def _matches(path: str, pattern: str) -> bool:
    """setuptools' package-data glob: one ``*`` matches within one path component."""
    parts, wanted = PurePosixPath(path).parts, PurePosixPath(pattern).parts
    return len(parts) == len(wanted) and all(fnmatchcase(p, w) for p, w in zip(parts, wanted))


def test_matches_follows_setuptools_globs():
    assert _matches("problems/some_folder/x.json", "problems/*/*.json")
    assert not _matches("problems/some_folder/weights/x.json", "problems/*/*.json")
    assert _matches("problems/some_folder/weights/x.json", "problems/*/weights/*.json")


def test_every_json_file_of_the_package_is_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["optsched"]
    package = ROOT / "optsched"
    files = sorted(p.relative_to(package).as_posix() for p in package.rglob("*.json") if "__pycache__" not in p.parts)
    assert "workloads/job_types.json" in files and any("/weights/" in f for f in files)
    missing = [f for f in files if not any(_matches(f, pattern) for pattern in patterns)]
    assert not missing, f"not in the wheel (add to [tool.setuptools.package-data] in pyproject.toml): {missing}"
