"""Argument values: argparse types that name the option, the parser whose usage errors are
invalid options (exit 2), and the problem-specific ``--name value`` options of ``generate``."""

from __future__ import annotations

import argparse
import json
from typing import Sequence

from ..core.errors import InvalidOptionError, did_you_mean
from ..core.params import check_value, checked_float


def _int_at_least(name: str, minimum: int | None, maximum: int | None = None):
    """An argparse type: an integer >= ``minimum`` (and <= ``maximum``), the error naming the
    option; out of range is an error, never clamped."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer (got {text!r})") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be >= {minimum} (got {value})")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{name} must be <= {maximum} (got {value})")
        return value
    return parse


def _positive_int(name: str):
    return _int_at_least(name, 1)


def _nonnegative_int(name: str):
    return _int_at_least(name, 0)


def _positive_number(name: str):
    """An argparse type: a positive finite number, the error naming the option."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {text!r})") from None
        if not (0 < value < float("inf")):
            raise argparse.ArgumentTypeError(f"{name} must be a positive finite number (got {text})")
        return value
    return parse


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--time-limit must be a number of seconds (got {text!r})") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"--time-limit must be a positive finite number of seconds (got {text})")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors are invalid input: exit 2, one line
        raise InvalidOptionError("cli", "arguments", _suggest_flag(self, _suggest_choice(message)))


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every ``--flag`` of ``parser`` and of its sub-commands, at any depth."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(s for s in action.option_strings if s.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _option_strings(sub)
    return found


def _suggest_flag(parser: argparse.ArgumentParser, message: str) -> str:
    """argparse's ``unrecognized arguments: --time-limt 5`` with the close flags named:
    ``--time-limt`` suggests ``--time-limit``."""
    prefix = "unrecognized arguments: "
    if not message.startswith(prefix):
        return message
    flags = sorted(_option_strings(parser))
    for token in message[len(prefix):].split():
        if token.startswith("--"):
            hint = did_you_mean(token.split("=", 1)[0], flags)
            if hint:
                return f"{message}{hint}"
    return message


def _suggest_choice(message: str) -> str:
    """argparse's ``invalid choice: 'X' (choose from 'a', 'b')`` with the close choices named
    (:func:`~optsched.core.errors.did_you_mean`): ``optsched sovle`` suggests ``solve``."""
    import re

    m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if m:
        choices = re.findall(r"'([^']*)'", m.group(2)) or [c.strip() for c in m.group(2).split(",")]
        hint = did_you_mean(m.group(1), choices)
        if hint:
            return message.replace(f"invalid choice: '{m.group(1)}'", f"invalid choice: '{m.group(1)}'{hint}", 1)
    return message


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _extra_options(extra: Sequence[str], where: str) -> dict:
    """``--name value`` pairs (problem-specific options) into a dict, names with underscores."""
    out, i = {}, 0
    items = list(extra)
    while i < len(items):
        tok = items[i]
        if not tok.startswith("--"):
            raise InvalidOptionError("cli", where, f"unexpected argument {tok!r}")
        key = tok[2:].replace("-", "_")
        if "=" in key:
            key, value = key.split("=", 1)
            out[key] = _parse_value(value)
            i += 1
        elif i + 1 < len(items) and not items[i + 1].startswith("--"):
            out[key] = _parse_value(items[i + 1])
            i += 2
        else:
            out[key] = True
            i += 1
    return out


def _coerce(options: dict, schema: dict, problem: str, what: str) -> dict:
    out = {}
    for key, value in options.items():
        if key not in schema:
            flags = ['--' + k.replace('_', '-') for k in schema]
            raise InvalidOptionError(problem, f"--{key.replace('_', '-')}", f"unknown {what}"
                                       f"{did_you_mean('--' + key.replace('_', '-'), flags)} "
                                       f"(known: {', '.join(flags) or 'none'})")
        want = schema[key].type
        if want is str and not isinstance(value, str):
            value = json.dumps(value) if isinstance(value, (list, dict)) else str(value)
        elif want is float and isinstance(value, int) and not isinstance(value, bool):
            value = checked_float(problem, f"--{key.replace('_', '-')}", value)   # 10**400: an error, not OverflowError
        # the declared type and interval (optsched.core.params), as optsched.generate checks them
        out[key] = check_value(problem, f"--{key.replace('_', '-')}", schema[key], value)
    return out


def _method_options(items: Sequence[str], meth, problem: str) -> dict:
    """``--option NAME=VALUE`` items into the dict ``optsched.solve`` checks
    (:meth:`~optsched.core.registry.Method.resolve_options`, the API's one check): a value is read
    as JSON (``8``, ``true``, ``2.5``) or else as text; a string option keeps the text as typed
    (``--option program=0`` is the string ``"0"``)."""
    options = {}
    for item in items:
        if "=" not in item:
            raise InvalidOptionError(problem, "--option", "must be NAME=VALUE", item)
        k, v = item.split("=", 1)
        decl = meth.options.get(k)
        options[k] = v if decl is not None and decl.type is str else _parse_value(v)
    return options
