"""The documentation site builds with warnings as errors, and every link of every page resolves.

``make docs`` runs ``sphinx -W`` on ``docs/``; this test does the same into a temporary folder
(skipped, with the reason, when the ``docs`` extra is not installed), then reads every built HTML
page and checks each local ``href`` and ``src``: the file exists and, for ``page.html#id``, the page
has that id. External (http) links are not fetched.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::PendingDeprecationWarning")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and tag in ("a", "img", "link", "script"):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("sphinx", reason="the docs extra (pip install -e .[docs]) is not installed")
    pytest.importorskip("myst_parser", reason="the docs extra (pip install -e .[docs]) is not installed")
    from sphinx.cmd.build import build_main

    out = tmp_path_factory.mktemp("site")
    code = build_main(["-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"), str(out)])
    assert code == 0, "sphinx -W failed (see the warnings above)"
    return out


def test_site_builds_with_a_page_and_a_figure_per_problem(site):
    import optsched
    from optsched.gallery import image_name

    gallery = (site / "_generated" / "gallery.html").read_text()
    for problem in optsched.core.registry.problems():
        assert (site / "_generated" / "problems" / f"{problem}.html").is_file()
        assert image_name(problem) in gallery
    assert (site / "api.html").is_file() and "compare" in (site / "api.html").read_text()
    repro = (site / "_generated" / "repro" / "index.html").read_text()
    shown = {name for name in re.findall(r'<img[^>]+src="[^"]*?([^"/]+\.png)"', repro)}
    assert shown == {p.name for p in (ROOT / "paper_repro" / "results").glob("*.png")}


def test_every_local_link_resolves(site):
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    broken = []
    for page, parsed in pages.items():
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//") or link.startswith("mailto:"):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no id {parts.fragment!r})")
    assert not broken, "broken links:\n" + "\n".join(sorted(set(broken))[:50])


def test_problem_pages_show_their_folders_readme_and_the_registry(site):
    """Each problem's page is its folder's ``README.md`` (its first heading and its raw-HTML
    anchors come through) followed by the registry's methods table."""
    import html

    import optsched

    for name, p in optsched.core.registry.problems().items():
        readme = ROOT / "optsched" / "problems" / p.package.rsplit(".", 1)[-1] / "README.md"
        page = (site / "_generated" / "problems" / f"{name}.html").read_text()
        text = readme.read_text()
        words = lambda s: " ".join(re.findall(r"\w+", s))   # Sphinx curls the quotes  # noqa: E731
        title = words(text.splitlines()[0])
        shown = words(html.unescape(re.sub(r"<[^>]+>", " ", page)))
        assert title in shown, f"{name}: the README's title {title!r} is not on its page"
        ids = _parse(site / "_generated" / "problems" / f"{name}.html").ids
        missing = set(re.findall(r'<a id="([^"]+)"', text)) - ids
        assert not missing, f"{name}: anchors of the README missing on its page: {missing}"
        assert "Registered methods" in shown and all(words(m) in shown for m in p.methods)


def test_links_are_retargeted_for_the_site(tmp_path):
    """A README's links, as GitHub reads them, become the site's: a ``docs/`` page stays that page, a
    problem folder's README becomes the problem's page, any other file of the repository its path in
    code; anchors and external links are kept (no Sphinx needed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("optsched_site_under_test", ROOT / "docs" / "_ext" / "optsched_site.py")
    site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(site)
    docs = tmp_path / "docs"
    folder = tmp_path / "optsched" / "problems" / "a_b"
    other = tmp_path / "optsched" / "problems" / "c_d" / "README.md"
    readmes = {folder / "README.md": "a-b", other: "c-d"}
    text = ("[g](../../../docs/guarantees.md#x) [o](../c_d/README.md#y) [s](#z) [w](https://e.org/a.md) "
            "[r](../../../paper_repro/t1.py) ![i](../../../docs/img/a_b.png)")
    out = site.rewrite_links(text, folder / "README.md", docs / "_generated" / "problems", docs, readmes)
    assert out == ("[g](../../guarantees.md#x) [o](c-d.md#y) [s](#z) [w](https://e.org/a.md) "
                   "r (`paper_repro/t1.py`) ![i](../../img/a_b.png)")
    page = docs / "guarantees.md"
    back = site.rewrite_links("[p](../optsched/problems/c_d/README.md#t)", page, docs, docs, readmes)
    assert back == "[p](_generated/problems/c-d.md#t)"
