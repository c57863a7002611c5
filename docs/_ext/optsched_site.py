"""Generated pages of the optsched site, written when the build starts (``builder-inited``).

* ``_generated/gallery.md``: every problem's picture, drawn now from the example its folder's
  ``plot.py`` declares (``optsched.gallery``), with the command that draws it;
* ``_generated/problems/<problem>.md``: one page per problem: its folder's ``README.md`` (the
  formulation, assumptions and proofs; the page its ``spec`` line cites), its links rewritten for the
  site, followed by what the registry records (objective, solution, the methods with kind,
  fidelity, summary and guarantee) and the figure. A folder without a ``README.md`` gets the
  registry part alone, with a link to the ``docs/`` page its ``spec`` cites;
* ``_generated/problems/index.md``: the list;
* ``_generated/repro/``: the committed repro tables (``paper_repro/results``) with their figures;
* ``_generated/more.md``: every other page of ``docs/`` that ``index.md`` does not list.

Links of the ``docs/`` pages into a problem folder's ``README.md`` (``../optsched/problems/<folder>/
README.md#anchor``, as on GitHub) are rewritten, when Sphinx reads the page, to that problem's page
of the site (``source-read``). Nothing here names a problem: every page comes from the registry.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

GENERATED = "_generated"
PROBLEMS = f"{GENERATED}/problems"
_LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)(\))")


def _doc_page(docs: Path, spec: str) -> tuple[str, str] | None:
    """The page of ``docs/`` (stem, anchor) that documents a problem: its ``spec`` line
    (``docs/<page>.md#anchor``); None if it names no page there."""
    page, _, anchor = spec.partition("#")
    path = docs.parent / page
    if not (page.startswith("docs/") and path.is_file()):
        return None
    return path.relative_to(docs).with_suffix("").as_posix(), anchor


def folder_readme(p) -> Path | None:
    """The ``README.md`` of problem ``p``'s folder (its package), or None."""
    if not p.package:
        return None
    try:
        module = importlib.import_module(p.package)
    except ImportError:
        return None
    path = Path(module.__file__).resolve().parent / "README.md"
    return path if path.is_file() else None


def _readme_pages() -> dict[Path, str]:
    """Every registered problem's folder ``README.md`` (absolute path) -> its site page name."""
    import optsched

    pages = {}
    for name, p in optsched.core.registry.problems().items():
        readme = folder_readme(p)
        if readme is not None:
            pages[readme] = name
    return pages


def rewrite_links(text: str, source: Path, page_dir: Path, docs: Path, readmes: dict[Path, str]) -> str:
    """``text`` (read from file ``source``) with its relative links retargeted for a site page in
    folder ``page_dir`` (absolute, under ``docs``): a link into ``docs/`` stays a link to that page, a
    link to a problem folder's ``README.md`` becomes a link to that problem's site page, a link to
    any other file of the repository becomes its path in code (the site does not carry it)."""
    root = docs.parent

    def fix(m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return m.group(0)
        path, sep, anchor = target.partition("#")
        resolved = Path(os.path.normpath(source.parent / path))
        if resolved in readmes:
            new = os.path.relpath(docs / PROBLEMS / f"{readmes[resolved]}.md", page_dir)
        elif resolved == docs or docs in resolved.parents:
            new = os.path.relpath(resolved, page_dir)
        else:
            try:
                shown = resolved.relative_to(root).as_posix()
            except ValueError:
                shown = path
            label = m.group(1)[:-2].lstrip("!").removeprefix("[")  # the link's text
            return f"{label} (`{shown}`)"
        return f"{m.group(1)}{Path(new).as_posix()}{sep}{anchor}{m.group(3)}"

    return _LINK.sub(fix, text)


def _cell(text) -> str:
    return str(text or "").replace("|", "\\|").replace("\n", " ")


def example_command(name: str, ex: dict) -> str:
    """The command lines that draw ``name``'s example picture."""
    from optsched.gallery import image_name

    return (f"optsched generate {name} --preset {ex['preset']} --seed {ex['seed']} -o i.json && "
            f"optsched solve {name} i.json --method {ex['method']} -o r.json && "
            f"optsched plot {name} i.json r.json -o {image_name(name, '.pdf')}")


def _registry_part(p, *, level: int) -> list[str]:
    """What the registry records about ``p`` (objective, solution, reference, methods, picture)."""
    from optsched.gallery import image_name
    from optsched.plot import example

    name, ex = p.name, example(p.name)
    h = "#" * level
    lines = [f"**Objective** ({p.sense}): {_cell(p.objective)}", "",
             f"**Solution**: `{_cell(p.solution_schema)}`", "",
             f"**Reference method**: `{p.reference_method}`" if p.reference_method else
             "**Reference method**: none", ""]
    lines += [f"{h} Registered methods", "", "| method | kind | fidelity | summary | guarantee |",
              "|---|---|---|---|---|"]
    for m in p.methods.values():
        g = m.guarantee.statement if m.guarantee else ""
        lines.append(f"| `{m.name}` | {m.kind} | {m.fidelity} | {_cell(m.summary)} | {_cell(g)} |")
    lines += ["", f"{h} Picture", "", f"![{name}](../img/{image_name(name)})", "",
              f"Drawn from preset `{ex['preset']}`, seed {ex['seed']}, method `{ex['method']}`:", "",
              "```text", example_command(name, ex), "```", ""]
    return lines


def problem_page(p, docs: Path, readmes: dict[Path, str] | None = None) -> str:
    """The site's page of problem ``p`` (a registry record): its folder's ``README.md`` with the
    links retargeted, then the registry's part (objective, solution, reference method, methods and
    picture). Without a README: a title, the registry's part and a link to its ``spec`` page."""
    readme = folder_readme(p)
    if readme is not None:
        readmes = readmes if readmes is not None else {readme: p.name}
        text = rewrite_links(readme.read_text(), readme, docs / PROBLEMS, docs, readmes).rstrip()
        lines = [text, "", "## From the registry", "",
                 f"What `optsched info {p.name}` and `optsched methods {p.name}` report, generated when this "
                 "site was built.", ""]
        return "\n".join(lines + _registry_part(p, level=3))
    lines = [f"# `{p.name}`", "", _cell(p.title), ""]
    page = _doc_page(docs, p.spec)
    if page:
        stem, anchor = page   # the page, not the anchor: raw-HTML anchors are no Sphinx targets
        where = f" (section `{anchor}`)" if anchor else ""
        lines += [f"Formulation, assumptions and proofs: [{stem}](../../{stem}.md){where}.", ""]
    return "\n".join(lines + _registry_part(p, level=2))


def write_pages(app) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import optsched
    from optsched.gallery import image_name, render_gallery
    from optsched.plot import example

    docs = Path(app.srcdir).resolve()
    out = docs / GENERATED
    (out / "problems").mkdir(parents=True, exist_ok=True)
    img = out / "img"
    render_gallery(img, formats=(".png",), dpi=90)
    problems = optsched.core.registry.problems()
    readmes = _readme_pages()
    gallery = ["# Gallery", "",
               "Every problem's picture, drawn when this site was built, from the example its folder's "
               "`plot.py` declares (`optsched plot PROBLEM INSTANCE RESULT -o FILE.pdf` draws any result; "
               "`make figures` redraws `docs/img/`).", ""]
    index = ["# Problems", "",
             "One page per registered problem, generated from the registry and each problem's folder "
             "(`optsched/problems/<folder>/README.md`).", "",
             "```{toctree}", ":maxdepth: 1", ""]
    for name in sorted(problems):
        p = problems[name]
        ex = example(name)
        cmd = example_command(name, ex)
        gallery += [f"## {name}", "", f"{p.title} ([page](problems/{name}.md))", "",
                    f"![{name}](img/{image_name(name)})", "", "```text", cmd, "```", ""]
        index.append(name)
        (out / "problems" / f"{name}.md").write_text(problem_page(p, docs, readmes))
    index += ["```", ""]
    (out / "problems" / "index.md").write_text("\n".join(index))
    (out / "gallery.md").write_text("\n".join(gallery))
    _copy_repro(docs.parent / "paper_repro" / "results", out / "repro")
    _more_pages(docs, out / "more.md")


def _retarget_docs_page(app, docname: str, source: list[str]) -> None:
    """``source-read``: a hand-written page of ``docs/`` links a problem's folder README (as GitHub
    shows it); on the site, that link goes to the problem's page."""
    if docname.startswith(GENERATED + "/"):
        return
    docs = Path(app.srcdir).resolve()
    path = docs / f"{docname}.md"
    if path.is_file() and "optsched/problems/" in source[0]:
        source[0] = rewrite_links(source[0], path, path.parent, docs, _readme_pages())


def _more_pages(docs: Path, target: Path) -> None:
    """A page listing every Markdown page of ``docs/`` that ``index.md`` does not name, so a new
    page joins the site without an edit here (Sphinx -W fails on a page in no toctree)."""
    index = (docs / "index.md").read_text()
    named = set(re.findall(r"^([\w/.-]+)\s*$", index, flags=re.M))
    skip = {"index", "api"} | named
    pages = sorted(p.relative_to(docs).with_suffix("").as_posix() for p in docs.rglob("*.md")
                   if not p.relative_to(docs).parts[0].startswith(("_", ".")) and p.parent.name != "img")
    extra = [p for p in pages if p not in skip]
    lines = ["# More pages", "", "Pages of `docs/` not listed above.", "", "```{toctree}", ":maxdepth: 1", ""]
    lines += [f"../{p}" for p in extra] + ["```", ""]
    target.write_text("\n".join(lines))


def _copy_repro(results: Path, target: Path) -> None:
    """The committed repro tables and their figures (``paper_repro/results``), as pages: the
    index first, every table page under it."""
    import shutil

    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    pages = []
    for path in sorted(results.iterdir()):
        if path.is_file() and path.suffix in (".md", ".png", ".svg", ".csv"):
            shutil.copy2(path, target / path.name)
            if path.suffix == ".md" and path.stem != "index":
                pages.append(path.stem)
    index = (target / "index.md").read_text() if (target / "index.md").exists() else "# Repro results\n"
    figures = sorted(p.name for p in target.glob("*.png"))
    if figures:
        index += "\n## Figures\n\n" + "\n\n".join(f"![{name}]({name})" for name in figures) + "\n"
    index += "\n```{toctree}\n:hidden:\n\n" + "\n".join(pages) + "\n```\n"
    (target / "index.md").write_text(index)


def setup(app):
    app.connect("builder-inited", write_pages)
    app.connect("source-read", _retarget_docs_page)
    return {"version": "1", "parallel_read_safe": True}


__all__ = ["setup", "write_pages", "problem_page", "example_command", "rewrite_links", "folder_readme"]
