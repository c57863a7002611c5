"""The README's Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no Python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_readme_names_the_two_commands():
    text = README.read_text()
    assert "make test" in text and "make repro" in text
