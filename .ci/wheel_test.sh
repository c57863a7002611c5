#!/usr/bin/env bash
# optsched installed as a library: build the wheel from this checkout, install it with its
# dependencies from the public PyPI (versions pinned by requirements.lock) into a fresh virtual
# environment outside the repository, and use it from a folder that is not the checkout:
#
#   * the wheel holds the package data the code reads (bundled policy weights, the job-type table):
#     every JSON file under optsched/ in the checkout is in the wheel;
#   * its metadata: the console script, and the `learn` extra listing jax and jaxlib;
#   * the CLI: problems, generate, solve (reference and another method), check;
#   * the Python API: generate, solve, check, compare;
#   * every problem generates its first preset (package data found from site-packages);
#   * the learned methods that run from stored weights: online-knapsack/learned,
#     online-packing/learned, interference-online/marl;
#   * `optsched data fetch` into the user cache (XDG_CACHE_HOME in a temporary folder), from a
#     local mirror served on 127.0.0.1 when a data directory is at hand (OPTSCHED_DATA_MIRROR, else
#     OPTSCHED_DATA_DIR, else ../shared/data), from the pinned sources otherwise;
#   * the paper tables the installed problems declare, and `optsched repro` outside a checkout
#     (one line, exit 2: the experiment scripts live in the repository).
#   * the `learn` extra installed from the wheel: jax imports and runs on the CPU.
#
# Usage: .ci/wheel_test.sh  (or `make test-wheel`). PYTHON (default .venv/bin/python, else python3)
# builds the wheel (with its own setuptools when it has one, as `make venv` does) and makes the
# fresh environment. Last, `optsched[learn]` from the wheel (jax and jaxlib, CPU, pinned by
# requirements-learn.lock; about 45 s more on the 2-core machine): OPTSCHED_WHEEL_LEARN=0 skips it.
# Only the public PyPI is used: no pip configuration file, no extra index or local wheel folder.
# pip's download cache is used as usual.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PIP_CONFIG_FILE=/dev/null PIP_INDEX_URL=https://pypi.org/simple PIP_DISABLE_PIP_VERSION_CHECK=1
unset PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_NO_INDEX PIP_CONSTRAINT PIP_REQUIRE_VIRTUALENV PYTHONPATH
if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
DATA_MIRROR="${OPTSCHED_DATA_MIRROR:-${OPTSCHED_DATA_DIR:-$ROOT/../shared/data}}"
unset OPTSCHED_DATA_DIR

START=$SECONDS
TMP="$(mktemp -d "${TMPDIR:-/tmp}/optsched-wheel.XXXXXX")"
SERVER_PID=""
cleanup() {
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$TMP"
}
trap cleanup EXIT
case "$TMP/" in "$ROOT"/*) echo "wheel_test: the temporary folder $TMP is inside the checkout" >&2; exit 2;; esac
step() { printf '\n== %s (%ds)\n' "$*" "$((SECONDS - START))"; }
fail() { echo "wheel_test: FAILED: $*" >&2; exit 1; }

step "build the wheel from a copy of the checkout's files (no build/ or *.egg-info left in the checkout)"
mkdir -p "$TMP/src" "$TMP/dist"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$TMP/src"
if "$PYTHON" -c 'import setuptools' 2>/dev/null; then ISOLATION=--no-build-isolation; else ISOLATION=; fi
"$PYTHON" -m pip wheel --quiet --no-deps $ISOLATION -w "$TMP/dist" "$TMP/src"
WHEEL="$(ls "$TMP"/dist/optsched-*.whl)"
echo "$(basename "$WHEEL"): $(du -k "$WHEEL" | cut -f1) kB"

step "the wheel's package data and metadata"
(cd "$ROOT" && git ls-files 'optsched/*.json') > "$TMP/package-data.txt"
"$PYTHON" - "$WHEEL" "$TMP/package-data.txt" <<'EOF'
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
names = set(wheel.namelist())
wanted = [line.strip() for line in open(sys.argv[2]) if line.strip()]
missing = [n for n in wanted if n not in names]
assert not missing, f"package data missing from the wheel (pyproject.toml [tool.setuptools.package-data]): {missing}"
assert any(n.startswith("optsched/problems/online_knapsack/weights/") for n in wanted), "no bundled weights found"
meta = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
requires = [line.split(":", 1)[1].strip() for line in meta.splitlines() if line.startswith("Requires-Dist:")]
for dist in ("jax", "jaxlib"):
    assert any(r.startswith(dist) and 'extra == "learn"' in r for r in requires), f"the learn extra lacks {dist}: {requires}"
assert "Provides-Extra: learn" in meta
entry = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
assert "optsched = optsched.cli:main" in entry, entry
print(f"{len(wanted)} package-data files present; learn extra: "
      + ", ".join(r for r in requires if 'extra == "learn"' in r))
EOF

step "a fresh virtual environment outside the checkout; the wheel and its dependencies (pinned by requirements.lock) from PyPI"
# the lock without its hashes, as a constraints file: pip resolves the wheel's own dependencies
# (not the test, docs or solver extras) at the lock's versions
grep -v -E '^\s*(#|--hash)' "$ROOT/requirements.lock" | sed -e 's/ *\\$//' | grep -v '^\s*$' > "$TMP/constraints.txt"
"$PYTHON" -m venv "$TMP/venv"
V="$TMP/venv/bin"
"$V/python" -m pip install --quiet --only-binary :all: -c "$TMP/constraints.txt" "$WHEEL"
"$V/python" -m pip check

mkdir -p "$TMP/work" "$TMP/cache"
cd "$TMP/work"
export XDG_CACHE_HOME="$TMP/cache"

step "optsched is imported from the environment, not from the checkout"
"$V/python" - "$TMP/venv" "$ROOT" <<'EOF'
import sys
from pathlib import Path
import optsched
where = Path(optsched.__file__).resolve()
assert Path(sys.argv[1]).resolve() in where.parents, where
assert Path(sys.argv[2]).resolve() not in where.parents, where
print(where)
EOF

step "the CLI"
"$V/optsched" --version
"$V/optsched" problems > problems.txt
grep -q '^mknap ' problems.txt || fail "optsched problems does not list mknap"
"$V/optsched" generate mknap --preset tiny -o x.json
"$V/optsched" solve mknap x.json -o opt.json
"$V/optsched" solve mknap x.json --method greedy -o greedy.json
"$V/optsched" check mknap x.json opt.json
"$V/optsched" check mknap x.json greedy.json
set +e
"$V/optsched" solve mknap missing.json -o never.json 2> err.txt; code=$?
set -e
[[ $code -eq 2 && $(wc -l < err.txt) -eq 1 && ! -e never.json ]] \
    || fail "a missing instance file: exit $code (2 expected), $(wc -l < err.txt) line(s) on stderr: $(cat err.txt)"

step "the Python API, every problem's first preset, and the learned methods from their stored weights"
"$V/python" - <<'EOF'
import optsched

inst = optsched.generate("mknap", seed=1, preset="tiny")
exact = optsched.solve(inst, "milp")
greedy = optsched.solve(inst, "greedy")
assert exact.status == "optimal", exact.status
for result in (exact, greedy):
    report = optsched.check(inst, result)
    assert report.feasible, report
assert greedy.objective <= exact.objective + 1e-9        # a maximization: nothing beats the optimum
frame = optsched.compare([inst], ["greedy"], reference="milp")
assert len(frame) == 1 and frame["ratio"].iloc[0] >= 1 - 1e-9, frame
print(f"mknap: milp {exact.objective}, greedy {greedy.objective}")

problems = optsched.list_problems()                      # the table of the problems, a row each
for name in problems["name"]:
    optsched.generate(name, seed=0, preset=next(iter(optsched.get_problem(name).presets)))
print(f"{len(problems)} problems generate their first preset")

for name, preset, method in (("online-knapsack", "small", "learned"), ("online-packing", "small", "learned"),
                             ("interference-online", "tiny", "marl")):
    inst = optsched.generate(name, seed=0, preset=preset)
    result = optsched.solve(inst, method)
    assert optsched.check(inst, result).feasible, (name, method)
    print(f"{name}/{method} (stored weights): objective {result.objective}")
EOF

step "optsched data fetch into the user cache (XDG_CACHE_HOME)"
if [[ -d "$DATA_MIRROR/mknap" ]]; then
    PORT="$("$V/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "$V/python" -m http.server "$PORT" --bind 127.0.0.1 --directory "$DATA_MIRROR" > /dev/null 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 50); do
        "$V/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/')" 2>/dev/null && break
        sleep 0.2
    done
    echo "from the local mirror $DATA_MIRROR (http://127.0.0.1:$PORT)"
    "$V/optsched" data fetch mknap --from "http://127.0.0.1:$PORT"
else
    echo "no local data directory at $DATA_MIRROR: from the pinned source"
    "$V/optsched" data fetch mknap
fi
"$V/optsched" data list mknap | tee list.txt
grep -q 'files ok' list.txt || fail "optsched data list: mknap is not complete and checked"
ls "$XDG_CACHE_HOME/optsched/data/mknap" > /dev/null || fail "nothing in the user cache"

step "the paper tables the installed problems declare; optsched repro outside a checkout"
mkdir -p no_scripts
"$V/python" - <<'EOF'
from optsched.repro.discovery import discover

scripts = discover("no_scripts")
broken = [(s.id, s.error) for s in scripts if s.experiment is None]
assert not broken, broken
ids = sorted({s.id for s in scripts})
assert {"T1", "T15"} <= set(ids), ids
print(f"{len(ids)} tables declared by the installed problems: {' '.join(ids)}")
EOF
set +e
"$V/optsched" repro --quick --only T1 2> err.txt; code=$?
set -e
[[ $code -eq 2 && $(wc -l < err.txt) -eq 1 ]] || fail "optsched repro outside a checkout: exit $code: $(cat err.txt)"
cat err.txt

if [[ "${OPTSCHED_WHEEL_LEARN:-1}" != 0 ]]; then
    step "the learn extra from the wheel (pinned by requirements-learn.lock)"
    grep -v -E '^\s*(#|--hash)' "$ROOT/requirements-learn.lock" | sed -e 's/ *\\$//' | grep -v '^\s*$' \
        > "$TMP/constraints-learn.txt"
    "$V/python" -m pip install --quiet --only-binary :all: -c "$TMP/constraints-learn.txt" "$WHEEL[learn]"
    "$V/python" -c 'import jax, jax.numpy as jnp; assert float(jnp.arange(4.0).sum()) == 6.0; print("jax", jax.__version__, jax.devices())'
else
    step "the learn extra skipped (OPTSCHED_WHEEL_LEARN=0)"
fi

step "ok: $(basename "$WHEEL") installs from PyPI and works outside the checkout in $((SECONDS - START)) s"
