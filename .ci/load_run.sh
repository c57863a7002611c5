#!/usr/bin/env bash
# The load step: the tests marked load_sensitive (they start processes, send signals or take a time
# limit) run again beside CPU-bound processes, two pytest workers on a machine loaded well beyond
# its cores. No test may depend on the machine's speed
# (docs/architecture.md, "Tests: events, not the wall clock"): a test that still does fails
# here. Run by `make test-load` (which builds .venv first) and by .ci/run after `make test`.
#   LOAD_BURNERS  how many CPU-bound processes (default 6)
#   arguments     passed on to pytest (e.g. a test file, or -k)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONHASHSEED="${PYTHONHASHSEED:-0}"
PY=.venv/bin/python
BURNERS="${LOAD_BURNERS:-6}"
burners=()

stop_burners() {
    local pid
    for pid in ${burners[@]+"${burners[@]}"}; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in ${burners[@]+"${burners[@]}"}; do
        wait "$pid" 2>/dev/null || true
    done
    burners=()
}
pytest_pid=
finish() {
    # pytest runs in the background, so that a signal reaches this script at once; stopped early,
    # its workers (its children) and then pytest itself are ended before the burners
    if [ -n "$pytest_pid" ] && kill -0 "$pytest_pid" 2>/dev/null; then
        pkill -TERM -P "$pytest_pid" 2>/dev/null || true
        kill -TERM "$pytest_pid" 2>/dev/null || true
        wait "$pytest_pid" 2>/dev/null || true
    fi
    stop_burners
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

for _ in $(seq "$BURNERS"); do
    "$PY" -c "while True: pass" &
    burners+=("$!")
done
# only the files that mark a test (collecting the whole suite on two loaded workers takes minutes)
mapfile -t files < <(grep -rlw --include='test_*.py' load_sensitive tests | sort)
if [ "${#files[@]}" -eq 0 ]; then
    echo "load_run: no test file marks load_sensitive" >&2
    exit 1
fi
start=$(date +%s)
echo "load_run: ${#files[@]} test files; ${BURNERS} CPU-bound processes on $(getconf _NPROCESSORS_ONLN) cores (load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
status=0
"$PY" -m pytest -q -rs -n 2 -m "load_sensitive and not slow" "$@" "${files[@]}" &
pytest_pid=$!
wait "$pytest_pid" || status=$?
pytest_pid=
echo "load_run: pytest exit ${status} after $(( $(date +%s) - start )) s (load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
stop_burners
exit "$status"
