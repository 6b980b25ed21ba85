# deepcrawl — the two commands of the README's quick start are `make demo` and `make test`.
# Each installs what it needs: a virtualenv with the package, a browser, and (for the tests)
# PostgreSQL's server binaries.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast check lint install browser postgres bench bench-real clean

# The demo serves the bundled "books" site, crawls it with `deepcrawl crawl --like`, and prints
# the record recall of what was delivered against the site's ground truth (scripts/demo.py).
demo: install browser
	$(BIN)/python scripts/demo.py

test: install browser postgres
	$(BIN)/pytest

# The unit tests alone: no browser install, no database server (about three minutes).
test-fast: install
	$(BIN)/pytest tests/unit

check: install browser postgres lint
	$(BIN)/pytest

lint: install
	$(BIN)/ruff format --check deepcrawl fixtures tests benchmarks scripts
	$(BIN)/ruff check deepcrawl fixtures tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

install: $(STAMP)

$(STAMP): pyproject.toml fixtures/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]" -e fixtures
	touch $(STAMP)

browser: install
	bash scripts/ensure-browser.sh $(BIN)/python

postgres:
	bash scripts/ensure-postgres.sh

bench: install browser
	$(BIN)/deepcrawl bench --site books --strategy bfs

# The real-site test bed (fixtures/real/README.md): installs each application on first use.
bench-real: install browser
	$(BIN)/deepcrawl bench --suite real --out bench-real

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist *.egg-info
