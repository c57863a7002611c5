"""The verbs that describe what is installed: ``problems``, ``methods``, ``backends``."""

from __future__ import annotations

from .exits import EXIT_OK
from .helptext import _presets_text, methods_text, option_help


def cmd_problems(args) -> int:
    import optsched

    for name, prob in sorted(optsched.core.registry.problems().items()):
        print(f"{name:22s} {prob.sense}  {prob.title}  [methods: {', '.join(prob.methods)}]")
    return EXIT_OK


def cmd_methods(args) -> int:
    import optsched

    prob = optsched.get_problem(args.problem)
    print(f"{prob.name}: {prob.title} ({prob.sense})")
    print(f"objective: {prob.objective}")
    print(f"solution:  {prob.solution_schema}")
    print(f"spec:      {prob.spec}")
    print()
    print("methods (solve --method NAME; options as --option NAME=VALUE):")
    print(methods_text(prob))
    if prob.presets:
        print()
        print("generator presets (generate --preset NAME):")
        print(_presets_text(prob))
    if prob.generator_options:
        print()
        print("generator options (generate --name VALUE):")
        for k, o in prob.generator_options.items():
            print(f"  --{k.replace('_', '-')} <{o.type.__name__}>  {option_help(o)}")
    return EXIT_OK


def cmd_backends(args) -> int:
    from ..core.backends import BACKENDS, DEFAULT_BACKEND

    for name, be in BACKENDS.items():
        try:
            version = be.version() if be.available() else "not available"
        except Exception as exc:  # a broken install is reported, not raised
            version = f"not available ({type(exc).__name__})"
        mark = " (default)" if name == DEFAULT_BACKEND else ""
        print(f"{name}{mark}: {be.description}")
        print(f"    version: {version}")
        print(f"    bound:   {be.bound_support}")
        print(f"    watchdog: {'in-process cancel' if be.watchdog == 'cancel' else 'child process, killed on overrun'}")
    return EXIT_OK
