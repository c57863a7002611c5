"""The help texts that come from the registry: each option's type, default and allowed values,
a problem's presets and methods, the import formats, the profile names."""

from __future__ import annotations

import json

from .files import _importers


def _escape(text: str) -> str:
    """Help text for argparse, which %-formats it."""
    return str(text).replace("%", "%%")


def _shown(value) -> str:
    """A default or allowed value as it is typed on the command line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value == "":
        return '""'
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def option_help(opt) -> str:
    """One option's help line: description, type, default and allowed values.

    >>> from optsched.core.registry import Option
    >>> option_help(Option(str, "fast", "fast | exact"))
    'fast | exact [str, default: fast; allowed: fast, exact]'
    """
    allowed = opt.allowed()
    extra = f"; allowed: {', '.join(_shown(v) for v in allowed)}" if allowed else ""
    extra += f"; range: {opt.bounds}" if getattr(opt, "bounds", None) is not None else ""
    return f"{opt.help} [{opt.type.__name__}, default: {_shown(opt.default)}{extra}]"


def _metavar(opt) -> str:
    return {"int": "INT", "float": "NUMBER", "bool": "BOOL", "str": "TEXT"}.get(opt.type.__name__, "VALUE")


def _presets_text(prob) -> str:
    lines = []
    width = max((len(n) for n in prob.presets), default=0)
    for name, params in prob.presets.items():
        shown = " ".join(f"--{k.replace('_', '-')} {_shown(v)}" for k, v in params.items()) or "(the defaults)"
        lines.append(f"  {name:{width}s}  {shown}")
    return "\n".join(lines)


def methods_text(prob) -> str:
    """The methods of ``prob`` with kind, fidelity, guarantee, summary and every option (type,
    default, description, allowed values): the text of ``solve PROBLEM --help``."""
    lines = []
    for m in prob.methods.values():
        mark = " (default)" if m.name == prob.default_method else ""
        lines.append(f"  {m.name}{mark}  [{m.kind}, {m.fidelity}]  {m.summary}")
        if m.guarantee:
            lines.append(f"      guarantee: {m.guarantee.statement} [{m.guarantee.source}]")
        for oname, opt in m.options.items():
            lines.append(f"      --option {oname}=<{opt.type.__name__}>  {option_help(opt)}")
    return "\n".join(lines)


def imports_text() -> str:
    """The import formats, one line each: name, problem, first line of the importer's docstring."""
    table = _importers()
    width = max((len(f) for f in table), default=0)
    lines = []
    for fmt, (prob, loader) in sorted(table.items()):
        first = _first_sentence(loader.__doc__ or "")
        lines.append(f"  {fmt:{width}s}  -> {prob.name}{': ' + first if first else ''}")
    return "\n".join(lines)


def _first_sentence(doc: str, limit: int = 110) -> str:
    """The first sentence of a docstring, without reST markup or a leading usage example.

    >>> _first_sentence("``optsched import x F``: read a file (``.json``) of :class:`Foo`. More.")
    'read a file (.json) of Foo.'
    >>> _first_sentence("Jobs ``a .. b`` of a trace. More.")
    'Jobs a .. b of a trace.'
    """
    import re

    para = " ".join(doc.strip().split("\n\n")[0].split())
    para = re.sub(r"^``optsched [^`]*``:\s*", "", para)
    para = re.sub(r":\w+:`~?([^`]*)`", r"\1", para).replace("``", "")
    m = re.search(r"(?<!\.)\.(\s|$)", para)
    text = para[:m.end()].strip() if m else para
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def _wrap(text: str) -> str:
    import textwrap

    return textwrap.fill(text, 79)


def _profile_names() -> str:
    from ..workloads.profiles import known_profiles

    groups: dict[str, list[str]] = {}
    for name in sorted(known_profiles()):
        if "/" in name:
            folder, short = name.split("/", 1)
            groups.setdefault(folder, []).append(short)
    text = "; ".join(f"{folder}/ {', '.join(shorts)}" for folder, shorts in groups.items())
    return (text + "; the folder may be left out when only one has the name") if text else "none found"
