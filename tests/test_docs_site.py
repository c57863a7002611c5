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
    for problem in optsched.list_problems():
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


def test_problem_pages_link_their_documentation(site):
    linked = 0
    for page in (site / "_generated" / "problems").glob("*.html"):
        if page.stem == "index":
            continue
        linked += bool(re.search(r'href="\.\./\.\./[a-z_]+\.html"', page.read_text()))
    assert linked >= 20          # a few problems may document themselves in a shared page
