# optsched: set-up and entry points. Every target builds .venv from the pinned lock on first use.
SHELL := /bin/bash
# The newest supported Python found on PATH (3.13, 3.12, 3.11), unless PYTHON is given.
SUPPORTED_PYTHONS := python3.13 python3.12 python3.11
PYTHON ?= $(firstword $(foreach p,$(SUPPORTED_PYTHONS),$(if $(shell $(p) -c 'import sys; print(sys.version_info[:2] >= (3, 11))' 2>/dev/null | grep True),$(p),)))
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SHARED_DATA := $(abspath ../shared/data)
# The real data sets live outside the repository; point at them when they are there.
ifeq ($(origin OPTSCHED_DATA_DIR), undefined)
ifneq ($(wildcard $(SHARED_DATA)),)
export OPTSCHED_DATA_DIR := $(SHARED_DATA)
endif
endif
export PYTHONHASHSEED := 0
QUICK ?=
JOBS ?= 2
PYTEST_ARGS ?=
# the tests of the learned methods (run again in .venv-learn, where training can run)
LEARN_TESTS ?= $(sort $(dir $(shell grep -l 'importorskip."jax"' tests/*/test_*.py)))
# the tests that pin seeded instances and stored reference values
PORTABLE_TESTS ?= tests/test_instance_hashes.py tests/test_instances.py $(wildcard tests/test_quality.py tests/*/test_quality.py) tests/core/test_portable.py
# The learned methods' training (JAX on the CPU) lives in its own environment: the base install,
# `make test` and `make repro` do not need it.
LEARN_VENV := .venv-learn
LEARN_PY := $(LEARN_VENV)/bin/python
LEARN_STAMP := $(LEARN_VENV)/.installed
# pytest-xdist: one worker per core (the suite is deterministic per test, whatever the order)
TEST_WORKERS ?= auto
PIP := -m pip install --quiet --disable-pip-version-check
UV ?= uv

.PHONY: venv venv-learn check-python test test-learn test-portable test-wheel bench bench-bounds repro instances models docs figures lock clean help

help:
	@echo "make test      run the test suite and the docstring examples (creates .venv)"
	@echo "make test-load the process, signal and time-limit tests again beside six CPU-bound processes"
	@echo "make repro     regenerate paper_repro/results (QUICK=1 for the reduced run)"
	@echo "make bench     run the benchmarks, heavy cases and every property test with fresh seeds"
	@echo "make bench-bounds every method at every declared generator bound, --time-limit 5, through the CLI"
	@echo "make instances regenerate instances/ and their reference values"
	@echo "make models    regenerate the analytic DNN profiles in models/"
	@echo "make docs      build the documentation site (Sphinx, warnings as errors) into docs/_build/html"
	@echo "make figures   regenerate the figures of docs/img/ (one per problem)"
	@echo "make test-portable the instance-identity tests with numpy's SIMD code paths disabled"
	@echo "make test-learn the learned methods' tests with the learn extra (JAX, CPU) in .venv-learn"
	@echo "make test-wheel build the wheel, install it from PyPI into a fresh venv outside the checkout and use it there"
	@echo "make lock      re-resolve requirements.lock and requirements-learn.lock (needs network and uv)"

check-python:
	@v=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); \
	case "$$v" in 3.11|3.12|3.13) ;; \
	*) echo "optsched needs Python 3.11, 3.12 or 3.13 (found: $${v:-none as '$(PYTHON)'}); install one, or run make PYTHON=/path/to/python3.13"; exit 2;; esac

venv: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@$(MAKE) --no-print-directory check-python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) $(PIP) --require-hashes --no-deps -r requirements.lock
	$(PY) $(PIP) --no-deps --no-build-isolation -e .
	@touch $(STAMP)

venv-learn: $(LEARN_STAMP)

$(LEARN_STAMP): requirements-learn.lock pyproject.toml
	@$(MAKE) --no-print-directory check-python
	@test -x $(LEARN_PY) || $(PYTHON) -m venv $(LEARN_VENV)
	$(LEARN_PY) $(PIP) --require-hashes --no-deps -r requirements-learn.lock
	$(LEARN_PY) $(PIP) --no-deps --no-build-isolation -e .
	@touch $(LEARN_STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -rs -n $(TEST_WORKERS) -m "not slow" $(PYTEST_ARGS)

# The tests marked load_sensitive (processes, signals, time limits) again, beside six CPU-bound
# processes (.ci/load_run.sh; LOAD_BURNERS=n for another count): none may depend on the speed.
.PHONY: test-load
test-load: $(STAMP)
	.ci/load_run.sh $(PYTEST_ARGS)

# The instance-identity and stored-reference tests again with numpy's CPU dispatch narrowed to
# the baseline code paths (every SIMD feature this CPU has is disabled): same hashes, same figures.
test-portable: $(STAMP)
	NPY_DISABLE_CPU_FEATURES="$$($(PY) -m optsched.core.simd --cpu-features)" $(PY) -m pytest -q -rs -n $(TEST_WORKERS) -m "not slow" $(PYTEST_ARGS) $(PORTABLE_TESTS)

test-learn: $(LEARN_STAMP)
	$(LEARN_PY) -m pytest -q -rs -n $(TEST_WORKERS) -m "not slow" $(PYTEST_ARGS) $(LEARN_TESTS)

# The wheel as a user installs it (.ci/wheel_test.sh): built from the checkout with .venv's
# setuptools, installed with its dependencies from PyPI (pinned by requirements.lock) into a fresh
# environment in a temporary folder, and used from there (CLI, API, stored weights, data fetch).
test-wheel: $(STAMP)
	PYTHON=$(abspath $(PY)) .ci/wheel_test.sh

bench: $(STAMP)
# a problem's benchmarks are tests/<folder>/bench_*.py (not collected by `make test`), the
# cross-problem ones benchmarks/test_bench_*.py
	HYPOTHESIS_PROFILE=bench $(PY) -m pytest -q -m "slow or hypothesis" -o python_files="test_*.py bench_*.py" --benchmark-columns=min,mean,max,rounds $(PYTEST_ARGS) tests benchmarks

# every method at every declared generator bound, through the CLI with --time-limit 5 (a table,
# not a test: wall times are machine figures; LIMIT=... PROBLEMS="a b" to narrow it)
bench-bounds: $(STAMP)
	$(PY) benchmarks/declared_bounds.py --limit $(or $(LIMIT),5) --out declared_bounds.csv $(if $(PROBLEMS),--problem $(PROBLEMS))

repro: $(STAMP)
	@$(VENV)/bin/optsched data fetch --all || echo "make repro: the tables that need the real data will be skipped; fetch it with: $(VENV)/bin/optsched data fetch --all"
	$(VENV)/bin/optsched repro $(if $(QUICK),--quick,) --jobs $(JOBS)

instances: $(STAMP)
	$(PY) -m optsched.instances_build

models: $(STAMP)
	$(VENV)/bin/optsched models --out models

# Both locks are universal (every platform, Python 3.11-3.13) and take only PyPI's packages.
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

figures: $(STAMP)
	$(PY) -m optsched.gallery docs/img

lock:
	$(UV) pip compile pyproject.toml --extra test --extra bench --extra solvers --extra docs --universal --python-version 3.11 --generate-hashes --index-url https://pypi.org/simple -c constraints.txt -o requirements.lock
	$(UV) pip compile pyproject.toml --extra test --extra bench --extra solvers --extra docs --extra learn --universal --python-version 3.11 --generate-hashes --index-url https://pypi.org/simple -c constraints.txt -c requirements.lock -o requirements-learn.lock

clean:
	rm -rf $(VENV) $(LEARN_VENV) build *.egg-info
