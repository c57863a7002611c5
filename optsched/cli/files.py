"""The files a verb reads and writes: instances and result records (a result where an instance
belongs is named as such, exit 2), the output path checked before any work, atomic writes with
their sidecars, and the import formats of every problem."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import InvalidInstanceError, InvalidOptionError


def _check_output(path: str | None, problem: str, option: str = "-o") -> None:
    """Refuse an output path whose folder does not exist, or that exists and is not a regular file
    (a folder, a device such as ``/dev/full``, a FIFO), before any work is done (exit 2)."""
    from ..core.atomic import check_target

    if path in (None, "-"):
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidOptionError(problem, option, f"folder {str(folder)!r} does not exist", str(path))
    check_target(target, problem, option)
    from ..core.sidecar import sidecar_path

    check_target(sidecar_path(target), problem, option)  # written (--sidecar) or removed next to it


def _looks_like_result(data) -> bool:
    return isinstance(data, dict) and "method" in data and "status" in data and "format_version" in data


def _looks_like_instance(data) -> bool:
    return (isinstance(data, dict) and "format_version" in data and "problem" in data
            and "method" not in data and "status" not in data)


def _load_instance(prob, path, sidecar: bool = True):
    """The problem's instance in ``path`` (from its ``.npz`` sidecar when one exists and
    ``sidecar``), or a file of a format the problem reads directly (``Problem.direct_formats``, by
    content); a result record there is named as such (exit 2)."""
    from ..core.registry import not_an_instance, read_direct
    from ..core.sidecar import read_json_data, sidecar_path

    if not (sidecar and sidecar_path(path).exists()):
        inst = read_direct(path, prob.name)   # a foreign format the problem reads as it is
        if inst is not None:
            return inst
        fast = getattr(prob.instance_type, "load_fast", None)   # None, or None back: the generic reader
        inst = fast(path) if fast is not None else None
        if inst is not None:
            return inst
    data = read_json_data(path, prob.name, sidecar=sidecar)
    if _looks_like_result(data):
        raise InvalidInstanceError(prob.name, "(file)", f"{path} is a result record (method "
                                   f"{data.get('method')!r}), not a {prob.name} instance")
    if isinstance(data, dict) and "format_version" not in data:
        raise not_an_instance(path, prob.name)
    return prob.instance_type.from_json(data)


def _load_result(path: str, problem: str):
    from ..core.result import Result
    from ..core.sidecar import read_json_data

    data = read_json_data(path, problem)
    if _looks_like_instance(data):
        raise InvalidInstanceError(problem, "(file)", f"{path} is an instance, not a result record")
    if not (isinstance(data, dict) and "format_version" in data and "method" in data):
        raise InvalidInstanceError(problem, "(file)", f"{path} is not a result record (write one with solve -o)")
    result = Result.from_json(data)
    if result.problem != problem:
        raise InvalidInstanceError(problem, "problem", f"result is for {result.problem!r}", result.problem)
    return result


def _sync_sidecar(output, data, write: bool, problem: str) -> None:
    """Write the ``.npz`` sidecar of the JSON just written (``--sidecar``), else remove a stale one.
    A sidecar that cannot be written takes the JSON file with it: the command leaves nothing.
    ``data`` may be a function making the JSON data, called only when a sidecar is written (an
    instance's data as Python lists can be several times its arrays' size)."""
    from ..core.atomic import OutputError
    from ..core.sidecar import sync_sidecar

    if callable(data):
        data = data() if write and output not in (None, "-") else None
    try:
        sync_sidecar(output, data, write=write, problem=problem)
    except OutputError:
        if output not in (None, "-"):
            Path(output).unlink(missing_ok=True)
        raise


def _write(text: str, output: str | None) -> None:
    """Print ``text``, or write it to ``output`` atomically (a failure leaves no file: exit 1)."""
    from ..core.atomic import write_text

    if output in (None, "-"):
        print(text)
    else:
        write_text(output, text + "\n")


def _write_instance(inst, output: str | None) -> None:
    """An instance as indented JSON, printed or written atomically to ``output`` piece by piece
    (``json_chunks``: a type with very large arrays never holds its whole text)."""
    from ..core.atomic import atomic_open

    chunks = getattr(inst, "json_chunks", None)
    if output in (None, "-") or chunks is None:
        _write(inst.dumps(indent=1), output)
        return
    with atomic_open(output, "w") as fh:
        for piece in chunks(indent=1):
            fh.write(piece)
        fh.write("\n")


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)


def _importers() -> dict:
    import optsched

    table = {}
    for prob in optsched.core.registry.problems().values():
        for fmt, loader in prob.importers.items():
            table[fmt] = (prob, loader)
    return table
