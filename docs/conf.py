"""Sphinx configuration of the optsched documentation site (``make docs``).

The Markdown pages of ``docs/`` are read through MyST; the gallery, one page per problem (its
folder's ``README.md`` with the registry's record) and the method tables are generated at build time
by ``_ext/optsched_site.py`` (the figures are drawn then, from the example each problem's folder
declares); the API reference comes from the docstrings (autodoc).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))            # the optsched package of this checkout
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

project = "optsched"
author = "The optsched developers"
copyright = "The optsched developers"  # noqa: A001
release = __import__("optsched").__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax", "optsched_site"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# _templates: the problem-free templates of the generated cross-cutting pages (python -m
# optsched.docs_build writes docs/<topic>.md from them and the problems' fragments); not pages
exclude_patterns = ["_build", "img/README.md", "_templates"]
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "dollarmath"]
# The pages mark sections with HTML anchors (<a id="x"></a>, which GitHub renders too); MyST checks
# links only against heading slugs, so it would call those links missing. tests/test_docs_site.py
# checks every link of the built HTML instead (file and anchor), which is the stronger check.
suppress_warnings = ["myst.xref_missing"]
autodoc_member_order = "bysource"
autodoc_typehints = "none"
html_theme = "alabaster"
html_title = "optsched"
html_static_path: list[str] = []
nitpicky = False
