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
    for p in optsched.core.registry.problems().values():
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
    for p in optsched.core.registry.problems().values():
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
    for p in optsched.core.registry.problems().values():
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

    assert all((DOCS / "img" / image_name(p)).is_file() for p in optsched.core.registry.problems())
    shown = re.findall(r"!\[[^]]*\]\((docs/img/[^)]+)\)", (DOCS.parent / "README.md").read_text())
    assert shown and all((DOCS.parent / path).is_file() for path in shown)


# -- the generated cross-cutting pages (docs/_templates/<topic>.md + every problem's fragments) -----

def test_every_cross_cutting_page_is_generated_and_fresh():
    """Each template of ``docs/_templates`` gives ``docs/<topic>.md``, committed as
    ``python -m optsched.docs_build`` writes it (the first line says so)."""
    from optsched.docs_build import TEMPLATES, cross_pages

    pages = cross_pages()
    topics = {p.stem for p in (DOCS.parent / TEMPLATES).glob("*.md")}
    assert {p.stem for p in pages} == topics and {"status", "checkers", "io", "cli"} <= topics
    for path, text in pages.items():
        assert path.parent == DOCS and path.is_file(), f"{path.name} missing: run python -m optsched.docs_build"
        assert path.read_text() == text, f"docs/{path.name} is stale: run python -m optsched.docs_build"
        assert text.startswith("<!-- Generated by `python -m optsched.docs_build` from docs/_templates/")


def test_every_fragment_is_used():
    """Every ``optsched/problems/<folder>/docs/*.md`` belongs to a registered problem's folder, has
    a template, and each of its parts fills a marker of that template: none is silently dropped."""
    from optsched.docs_build import _MARKER, FRAGMENTS, TEMPLATES, problem_folders, read_fragment

    folders = {folder.resolve() for _, folder in problem_folders()}
    found = sorted((DOCS.parent / "optsched" / "problems").glob(f"*/{FRAGMENTS}/*"))
    assert found, "no fragment at all: the pages would name no problem's part"
    for path in found:
        assert path.suffix == ".md", f"{path}: a fragment is a .md file"
        assert path.parent.parent.resolve() in folders, f"{path}: not in a registered problem's folder"
        template = DOCS.parent / TEMPLATES / path.name
        assert template.is_file(), f"{path}: no template {TEMPLATES}/{path.name}"
        markers = {m.group(2) for m in _MARKER.finditer(template.read_text())}
        parts = read_fragment(path.read_text(), str(path))
        assert parts and set(parts) <= markers, (path, sorted(set(parts) - markers))
        page = (DOCS / path.name).read_text()
        for name, text in parts.items():
            assert text in page, f"{path}: part {name} is not in docs/{path.name}"


def test_a_new_problems_fragment_appears_in_the_pages(tmp_path, monkeypatch):
    """A problem registered from a folder outside the package, with fragments for two pages: its
    table row joins the table (between the other problems' rows and the rows after the marker) and
    its paragraph the list, with no other file changed."""
    from optsched.core.registry import register_problem, unregister_problem
    from optsched.docs_build import cross_pages
    from tests.test_add_a_problem import make_problem

    package = tmp_path / "toy_fragment_problem"
    (package / "docs").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    row = "| toy-fragments / lpt | a sort, then one pass | nothing to stop | `test_none` |"
    (package / "docs" / "status.md").write_text(
        f"<!-- part: honesty-rows -->\n{row}\n\n<!-- part: bounds-compared -->\n- toy-fragments: lpt\n")
    (package / "docs" / "portability.md").write_text(
        "<!-- part: residual-risks -->\n`toy-fragments`: none, its durations are integers.\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    problem = make_problem(name="toy-fragments")
    problem.package = "toy_fragment_problem"
    register_problem(problem)
    try:
        pages = cross_pages()
    finally:
        unregister_problem("toy-fragments")
    status = pages[DOCS / "status.md"].splitlines()
    at = status.index(row)
    # inside the table: a row before and after it, the generic rows after the marker still follow
    assert status[at - 1].startswith("| ") and status[at + 1].startswith("| ")
    assert status.index("| portfolio back-end | members racing on one model"
                        " | no member proved: `time_limit`, best point, tightest member bound (an erring member's bound "
                        "ignored) | `test_portfolio_combination_keeps_the_tightest_bound_and_no_proof` |") > at
    # in name order: right after the bullet of the last registered problem whose name sorts before it
    bullets = [line for line in status if line.startswith("- ") and ": " in line]
    assert "- toy-fragments: lpt" in bullets
    before = max(name for name in optsched.core.registry.problems() if name < "toy-fragments")
    assert bullets[bullets.index("- toy-fragments: lpt") - 1].startswith(f"- {before}: ")
    assert "`toy-fragments`: none, its durations are integers." in pages[DOCS / "portability.md"]
    # the committed pages do not have it (the registration was the only change)
    assert "toy-fragments" not in (DOCS / "status.md").read_text()


def test_fragment_errors_name_the_file():
    import pytest

    from optsched.docs_build import FragmentError, render_cross_page

    template = "# T\n\n| a | b |\n|---|---|\n<!-- rows: r -->\n| last | row |\n\n<!-- paragraphs: p -->\n"
    with pytest.raises(FragmentError, match="x.md: part\\(s\\) q used by no marker"):
        render_cross_page("t", template, [("x.md", "<!-- part: q -->\ntext\n")])
    with pytest.raises(FragmentError, match="y.md: text before the first"):
        render_cross_page("t", template, [("y.md", "stray\n<!-- part: r -->\n| 1 | 2 |\n")])
    with pytest.raises(FragmentError, match="z.md: part 'r' appears twice"):
        render_cross_page("t", template, [("z.md", "<!-- part: r -->\n| 1 | 2 |\n<!-- part: r -->\n| 3 | 4 |\n")])
    # no fragment: the table stays whole (no blank line where the marker was)
    page = render_cross_page("t", template, [])
    assert "|---|---|\n| last | row |" in page and "<!--" not in page.split("\n", 1)[1]
    # two fragments: rows one per line, paragraphs separated by a blank line, in the given order
    page = render_cross_page("t", template, [("a.md", "<!-- part: r -->\n| 1 | 2 |\n<!-- part: p -->\nOne.\n"),
                                             ("b.md", "<!-- part: p -->\nTwo.\n<!-- part: r -->\n| 3 | 4 |\n")])
    assert "|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| last | row |" in page and "One.\n\nTwo.\n" in page


def test_the_templates_name_no_problem():
    """The hand-written part of the generated pages is problem-free (the matcher of
    ``tests/test_one_folder.py``): a problem's text belongs in its folder's fragment."""
    from optsched.docs_build import TEMPLATES
    from tests.test_one_folder import mentions

    templates = sorted(p.relative_to(DOCS.parent).as_posix() for p in (DOCS.parent / TEMPLATES).glob("*.md"))
    assert templates
    found = mentions(templates)
    assert not found, "a template names a problem:\n" + "\n".join(found)


def test_help_excerpts_in_the_fragments_are_the_real_help():
    """A fragment of ``docs/cli.md`` that shows ``--help`` output (a ```text block after
    "(`optsched ... --help`, ...):") shows lines the command really prints, so it cannot go stale."""
    import os
    import subprocess
    import sys

    shown = 0
    for path in sorted((DOCS.parent / "optsched" / "problems").glob("*/docs/cli.md")):
        for command, block in re.findall(r"\(`optsched ([^`]+ --help)`[^)]*\):\n\n```text\n(.*?)```", path.read_text(), re.S):
            env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(DOCS.parent)}
            out = subprocess.run([sys.executable, "-m", "optsched.cli", *command.split()], capture_output=True,
                                 text=True, env=env, timeout=120, cwd=DOCS.parent).stdout.splitlines()
            lines = [line for line in block.splitlines() if line.strip() not in ("", "...")]
            assert lines and all(line in out for line in lines), (path, command, [x for x in lines if x not in out])
            shown += 1
    assert shown >= 2
