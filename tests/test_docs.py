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


def test_every_problem_spec_cites_a_page_of_the_project_docs():
    """``Problem.spec`` (shown by ``optsched info``, linked from the site's problem page) names a
    page the repository ships, ``docs/<page>.md`` with an anchor that exists, never a file outside it."""
    for p in optsched.list_problems().values():
        page, _, anchor = p.spec.partition("#")
        assert page.startswith("docs/") and page.endswith(".md"), f"{p.name}: spec {p.spec!r} is not a docs page"
        target = DOCS.parent / page
        assert target.is_file(), f"{p.name}: spec page {page} does not exist"
        if anchor:
            assert anchor in _anchors(target.read_text()), f"{p.name}: no anchor {anchor!r} in {page}"


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
