"""Generated pages of the optsched site, written when the build starts (``builder-inited``).

* ``_generated/gallery.md``: every problem's picture, drawn now from the example its folder's
  ``plot.py`` declares (``optsched.gallery``), with the command that draws it;
* ``_generated/problems/<problem>.md``: one page per problem: title, objective, solution schema,
  the methods (kind, fidelity, summary, guarantee), the figure, and a link to its documentation
  page (the ``docs/`` page its ``spec`` line cites);
* ``_generated/problems/index.md``: the list;
* ``_generated/repro/``: the committed repro tables (``paper_repro/results``) with their figures;
* ``_generated/more.md``: every other page of ``docs/`` that ``index.md`` does not list.

Nothing here names a problem: every page comes from the registry.
"""

from __future__ import annotations

import re
from pathlib import Path

GENERATED = "_generated"


def _doc_page(docs: Path, spec: str) -> tuple[str, str] | None:
    """The page of ``docs/`` (stem, anchor) that documents a problem: its ``spec`` line
    (``docs/<page>.md#anchor``, checked by ``tests/test_docs.py``); None if it names no page here."""
    page, _, anchor = spec.partition("#")
    path = docs.parent / page
    if not (page.startswith("docs/") and path.is_file()):
        return None
    return path.relative_to(docs).with_suffix("").as_posix(), anchor


def _cell(text) -> str:
    return str(text or "").replace("|", "\\|").replace("\n", " ")


def example_command(name: str, ex: dict) -> str:
    """The command lines that draw ``name``'s example picture."""
    from optsched.gallery import image_name

    return (f"optsched generate {name} --preset {ex['preset']} --seed {ex['seed']} -o i.json && "
            f"optsched solve {name} i.json --method {ex['method']} -o r.json && "
            f"optsched plot {name} i.json r.json -o {image_name(name, '.pdf')}")


def problem_page(p, docs: Path) -> str:
    """The site's page of problem ``p`` (a registry record): title, objective, solution, reference
    method, the link to its docs page, its methods and its picture."""
    from optsched.gallery import image_name
    from optsched.plot import example

    name, ex = p.name, example(p.name)
    cmd = example_command(name, ex)
    page = _doc_page(docs, p.spec)
    lines = [f"# `{name}`", "", _cell(p.title), "", f"**Objective** ({p.sense}): {_cell(p.objective)}", "",
             f"**Solution**: `{_cell(p.solution_schema)}`", "",
             f"**Reference method**: `{p.reference_method}`" if p.reference_method else
             "**Reference method**: none", ""]
    if page:
        stem, anchor = page   # the page, not the anchor: raw-HTML anchors are no Sphinx targets
        where = f" (section `{anchor}`)" if anchor else ""
        lines += [f"Formulation, assumptions and proofs: [{stem}](../../{stem}.md){where}.", ""]
    lines += ["## Methods", "", "| method | kind | fidelity | summary | guarantee |", "|---|---|---|---|---|"]
    for m in p.methods.values():
        g = m.guarantee.statement if m.guarantee else ""
        lines.append(f"| `{m.name}` | {m.kind} | {m.fidelity} | {_cell(m.summary)} | {_cell(g)} |")
    lines += ["", "## Picture", "", f"![{name}](../img/{image_name(name)})", "",
              f"Drawn from preset `{ex['preset']}`, seed {ex['seed']}, method `{ex['method']}`:", "",
              "```text", cmd, "```", ""]
    return "\n".join(lines)


def write_pages(app) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import optsched
    from optsched.gallery import image_name, render_gallery
    from optsched.plot import example

    docs = Path(app.srcdir)
    out = docs / GENERATED
    (out / "problems").mkdir(parents=True, exist_ok=True)
    img = out / "img"
    render_gallery(img, formats=(".png",), dpi=90)
    problems = optsched.list_problems()
    gallery = ["# Gallery", "",
               "Every problem's picture, drawn when this site was built, from the example its folder's "
               "`plot.py` declares (`optsched plot PROBLEM INSTANCE RESULT -o FILE.pdf` draws any result; "
               "`make figures` redraws `docs/img/`).", ""]
    index = ["# Problems", "", "One page per registered problem (generated from the registry).", "",
             "```{toctree}", ":maxdepth: 1", ""]
    for name in sorted(problems):
        p = problems[name]
        ex = example(name)
        cmd = example_command(name, ex)
        gallery += [f"## {name}", "", f"{p.title} ([page](problems/{name}.md))", "",
                    f"![{name}](img/{image_name(name)})", "", "```text", cmd, "```", ""]
        index.append(name)
        (out / "problems" / f"{name}.md").write_text(problem_page(p, docs))
    index += ["```", ""]
    (out / "problems" / "index.md").write_text("\n".join(index))
    (out / "gallery.md").write_text("\n".join(gallery))
    _copy_repro(docs.parent / "paper_repro" / "results", out / "repro")
    _more_pages(docs, out / "more.md")


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
    return {"version": "1", "parallel_read_safe": True}


__all__ = ["setup", "write_pages", "problem_page", "example_command"]
