# Every target sets up .venv on first use, so a fresh clone needs only Python 3.11.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint fuzz bench bench-peers bench-distributed conformance clean

$(STAMP): pyproject.toml
	@echo "[setup 1/3] creating $(VENV)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "[setup 2/3] upgrading pip"
	@$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@echo "[setup 3/3] installing duograd (editable) with its test tools and every optional extra"
	@PYTHONWARNINGS=ignore $(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(STAMP)

DEMO_STAMP := $(VENV)/.demo-installed

$(DEMO_STAMP): $(STAMP)
	@echo "[setup] installing the demo extras (tqdm, tensorboard)"
	@PYTHONWARNINGS=ignore $(PY) -m pip install --quiet --disable-pip-version-check -e '.[demo]'
	@touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	@echo "[demo] running examples/breast_cancer.py"
	@$(PY) examples/breast_cancer.py

test: lint
	$(PY) -m pytest

# Static checks: ruff (pyflakes + bugbear) and mypy over the package (config in
# pyproject.toml). mypy sees the checkout as package `duograd` through a symlink.
TYPECHECK_ROOT := $(VENV)/typecheck
lint: $(STAMP)
	$(PY) -m ruff check .
	mkdir -p $(TYPECHECK_ROOT)
	ln -sfn $(CURDIR) $(TYPECHECK_ROOT)/duograd
	cd $(TYPECHECK_ROOT) && $(CURDIR)/$(PY) -m mypy --config-file $(CURDIR)/pyproject.toml -p duograd

# Differential fuzzing with a large budget (DUOGRAD_FUZZ_EXAMPLES programs, default 3000).
fuzz: $(STAMP)
	DUOGRAD_FUZZ=1 $(PY) -m pytest tests/ops/test_fuzz_programs.py -k random_programs

bench: $(STAMP)
	$(PY) -m benchmarks.run
	$(PY) -m benchmarks.recompute_memory

bench-distributed: $(STAMP)
	$(PY) -m benchmarks.distributed

bench-peers:
	bash benchmarks/peers/run.sh

# TensorFlow's own gradient tests (../shared/tfsuite) and the differential suite
# (conformance/) under tensorflow-cpu 2.21 in .venv-conformance; not part of `make test`.
conformance:
	bash conformance/run.sh

clean:
	rm -rf $(VENV) build dist *.egg-info
