"""Generated documentation stays in step with the registry."""

from __future__ import annotations

import re
from pathlib import Path

import optsched
from optsched.docs_build import BEGIN, END, guarantee_table, render_guarantees_page

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_guarantees_page_renders_from_the_registry():
    text = (DOCS / "guarantees.md").read_text()
    assert render_guarantees_page(text) == text, "docs/guarantees.md is stale: run python -m optsched.docs_build"


def test_every_registered_guarantee_is_in_the_table_with_a_proof_that_exists():
    table = guarantee_table()
    for p in optsched.list_problems().values():
        for m in p.methods.values():
            if m.guarantee is None:
                continue
            assert f"`{p.name}` / `{m.name}`" in table
            page, _, anchor = m.guarantee.proof.partition("#")
            target = DOCS.parent / page
            assert target.is_file(), f"{p.name}/{m.name}: proof page {page} does not exist"
            if anchor:
                assert anchor in _anchors(target.read_text()), f"{p.name}/{m.name}: no anchor {anchor!r} in {page}"


def _anchors(text: str) -> set[str]:
    """Explicit ``<a id=...>`` anchors and GitHub's slugs of the headings."""
    ids = set(re.findall(r'<a id="([^"]+)"', text))
    for heading in re.findall(r"^#+\s+(.*)$", text, re.M):
        ids.add(re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-"))
    return ids


def test_every_problem_spec_cites_its_folders_readme():
    """``Problem.spec`` (shown by ``optsched info``; the site's problem page is that README) names
    the problem's own page, ``optsched/problems/<folder>/README.md``, with an anchor that exists."""
    for p in optsched.list_problems().values():
        folder = p.package.rsplit(".", 1)[-1]
        page, _, anchor = p.spec.partition("#")
        assert page == f"optsched/problems/{folder}/README.md", f"{p.name}: spec {p.spec!r} is not its folder's README"
        target = DOCS.parent / page
        assert target.is_file(), f"{p.name}: spec page {page} does not exist"
        if anchor:
            assert anchor in _anchors(target.read_text()), f"{p.name}: no anchor {anchor!r} in {page}"


def test_no_problem_page_is_left_in_docs():
    """A problem's page lives in its folder: no page of ``docs/`` is named after a problem."""
    names = set()
    for p in optsched.list_problems().values():
        names |= {p.name, p.package.rsplit(".", 1)[-1]}
    assert not sorted(f.stem for f in DOCS.glob("*.md") if f.stem in names)


def test_the_site_index_names_no_problem():
    """``docs/index.md`` lists the shared pages; the problems' pages come from the registry."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_one_folder import mentions

    assert not mentions(["docs/index.md"])


def test_every_local_link_of_a_problem_readme_resolves():
    """The READMEs are read on GitHub too: every relative link names a file that exists (and an
    anchor that exists, for a Markdown page)."""
    broken = []
    for readme in sorted((DOCS.parent / "optsched" / "problems").glob("*/README.md")):
        for target in re.findall(r"\]\(([^)\s]+)\)", readme.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue
            page, _, anchor = target.partition("#")
            path = (readme.parent / page).resolve() if page else readme
            if not path.exists():
                broken.append(f"{readme.parent.name}: {target}")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path.read_text()):
                broken.append(f"{readme.parent.name}: {target} (no anchor)")
    assert not broken, broken


def test_markers_present_once():
    text = (DOCS / "guarantees.md").read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1


def test_docs_img_holds_every_problems_picture_and_the_readme_shows_existing_ones():
    """``make figures`` (``python -m optsched.gallery docs/img``) draws one picture per problem."""
    import re

    import optsched
    from optsched.gallery import image_name

    assert all((DOCS / "img" / image_name(p)).is_file() for p in optsched.list_problems())
    shown = re.findall(r"!\[[^]]*\]\((docs/img/[^)]+)\)", (DOCS.parent / "README.md").read_text())
    assert shown and all((DOCS.parent / path).is_file() for path in shown)
