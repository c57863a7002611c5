"""The verbs that make and convert instances: ``generate``, ``import``, ``export``."""

from __future__ import annotations

from ..core.errors import InvalidOptionError, UnknownNameError, did_you_mean
from .args import _coerce, _extra_options
from .exits import EXIT_OK
from .files import _check_output, _importers, _load_instance, _load_result, _sync_sidecar, _write, _write_instance


def cmd_generate(args, extra) -> int:
    import optsched

    prob = optsched.get_problem(args.problem)
    _check_output(args.output, prob.name)
    options = _coerce(_extra_options(extra, "generator options"), prob.generator_options, prob.name,
                      "generator option")
    inst = optsched.generate(args.problem, seed=args.seed, preset=args.preset, **options)
    _write_instance(inst, args.output)
    _sync_sidecar(args.output, inst.to_json, args.sidecar, prob.name)
    return EXIT_OK


def cmd_import(args) -> int:
    table = _importers()
    if args.format not in table:
        raise UnknownNameError("import format", args.format, list(table))
    prob, loader = table[args.format]
    _check_output(args.output, prob.name)
    kwargs = {} if args.index is None else {"index": args.index}
    if args.batch_size is not None:
        import inspect

        if "batch_size" not in inspect.signature(loader).parameters:
            raise InvalidOptionError(prob.name, "--batch-size", f"format {args.format!r} takes no batch size")
        kwargs["batch_size"] = args.batch_size
    inst = loader(args.file, **kwargs)
    _write_instance(inst, args.output)
    _sync_sidecar(args.output, inst.to_json, args.sidecar, prob.name)
    return EXIT_OK


def cmd_export(args) -> int:
    import optsched
    from optsched.core.backends import write_mps

    prob = optsched.get_problem(args.problem)
    if args.solution or args.format:
        if not (args.solution and args.format):
            raise InvalidOptionError(prob.name, "--format", "--solution and --format go together")
        if args.format not in prob.solution_exporters:
            raise InvalidOptionError(prob.name, "--format", f"unknown solution format"
                                       f"{did_you_mean(args.format, prob.solution_exporters)} (known: "
                                       f"{', '.join(prob.solution_exporters) or 'none'})", args.format)
        _check_output(args.output, prob.name)
        inst = _load_instance(prob, args.instance)
        result = _load_result(args.solution, prob.name)
        if result.solution is None:
            raise InvalidOptionError(prob.name, "--solution", f"the result has no solution (status {result.status})")
        _write(prob.solution_exporters[args.format](inst, result.solution), args.output)
        print(f"wrote {args.output}: the {args.format} solution of {result.method}'s result")
        return EXIT_OK
    if prob.build_model is None:
        raise InvalidOptionError(prob.name, "export", "this problem has no linear model to export")
    _check_output(args.output, prob.name)
    inst = _load_instance(prob, args.instance)
    model = prob.build_model(inst)
    if args.lp_relaxation:
        model = model.relaxed()
    if not str(args.output).endswith(".mps"):
        raise InvalidOptionError(prob.name, "-o", "the output file must end in .mps", args.output)
    write_mps(model, args.output)
    print(f"wrote {args.output}: {model.num_cols} columns ({int(model.integrality.sum())} integer), "
          f"{model.num_rows} rows, {model.matrix.nnz} nonzeros")
    return EXIT_OK
