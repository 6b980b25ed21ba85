# deepcrawl — the two commands of the README's quick start are `make demo` and `make test`.
# Each installs what it needs: a virtualenv with the package, a browser, and (for the tests)
# PostgreSQL's server binaries.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The tests run in pytest-xdist workers, three by default (TEST_WORKERS=0: all in this process):
# much of the suite waits on Chromium, child processes and local servers rather than on the CPU,
# so three keep two cores busier than two do (BENCHMARKS.md).
# Each test file runs whole, in order, on one worker (`--dist loadfile`), as it would alone: its
# module fixtures are set up once. The real-site test bed installs its applications into one
# shared folder on first use, each under a lock, so two workers never install one at once.
# Files are handed out in collection order (`--no-loadscope-reorder`), not by their number of
# tests: files marked slow first (the real applications' crawls: the longest), then the
# testpaths of pyproject.toml in order — tests/integration (its long browser files under
# browser/ and crawler/ first), the fixture sites' own tests (fixtures/tests), and the many
# short files of tests/unit, which even out the workers at the end (conftest.py).
TEST_WORKERS ?= 3
PYTEST := $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

.PHONY: demo test test-fast test-real check lint docs docs-serve screenshots install bytecode browser \
	postgres bench bench-real clean

# The demo serves the bundled "books" site, crawls it with `deepcrawl crawl --like`, and prints
# the record recall of what was delivered against the site's ground truth (scripts/demo.py).
demo: install bytecode browser
	$(BIN)/python scripts/demo.py

# What CI runs (.ci/run) and the README's quick start says: the linters, the documentation site
# and every test but those marked `real`; any failing fails it. The linters and the site's build
# run beside the tests, their output kept until the tests end: their half minute of one core (mypy with no cache) fits in the time the
# test workers wait on browsers and servers. Of the real-site test bed (fixtures/real) it keeps
# the tests of its machinery on one application from PyPI (install, truth, counting proxy, a
# crawl scored); the others install applications from Debian, PyPI and npm, minutes of a clean
# machine's time each, and run in `make test-real`.
test: install bytecode browser postgres
	@$(MAKE) --no-print-directory lint docs >$(VENV)/lint.log 2>&1 & linting=$$!; \
	$(PYTEST) -m "not real"; tested=$$?; \
	wait $$linting; linted=$$?; cat $(VENV)/lint.log; \
	if [ $$linted -ne 0 ]; then echo "make test: the linters or the docs failed (above)" >&2; fi; \
	[ $$tested -eq 0 ] && [ $$linted -eq 0 ]

# The real-site test bed's integration tests: each application installed (once, into
# DEEPCRAWL_REAL_HOME or ~/.cache/deepcrawl-real), served and crawled.
test-real: install bytecode browser
	$(PYTEST) -m real

# The unit tests alone (deepcrawl's and the fixture sites'), linted first: no browser install,
# no database server. The lint takes seconds once mypy's cache is warm.
test-fast: install bytecode lint
	$(PYTEST) tests/unit fixtures/tests/unit

check: test

# The house rules: formatting, lint, strict types, and the floors of docs/ARCHITECTURE.md
# (import-linter). About a minute cold (no .mypy_cache), seconds warm.
lint: install
	$(BIN)/ruff format --check deepcrawl fixtures tests benchmarks scripts examples conftest.py
	$(BIN)/ruff check deepcrawl fixtures tests benchmarks scripts examples conftest.py
	$(BIN)/mypy
	$(BIN)/lint-imports

# The documentation site (mkdocs.yml) into site/, every warning an error: the command and
# settings references are generated from the code, the results from docs/results/data/*.json.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The site on http://127.0.0.1:8001/, rebuilt as its pages change.
docs-serve: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:8001

# The site's pictures, taken again from the running programs: the label page in Chromium and the
# plot a bench writes (scripts/docs/screenshots.py; a few minutes).
screenshots: install bytecode browser
	$(BIN)/python scripts/docs/screenshots.py

install: $(STAMP)

# The package's bytecode, compiled once: where the environment sets PYTHONDONTWRITEBYTECODE (CI's
# does), every process the tests start would otherwise compile the modules it imports again,
# about 0.4 s of CPU each. Only files changed since the last run are compiled.
bytecode: install
	$(BIN)/python -m compileall -q -j0 deepcrawl fixtures/deepcrawl_fixtures tests conftest.py

# uv resolves, downloads and installs the packages in parallel and compiles their bytecode on
# every core: a clean install in about a minute where pip took three (BENCHMARKS.md). pip only
# installs uv itself, into the virtualenv.
$(STAMP): pyproject.toml fixtures/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode -e ".[test]" -e fixtures
	touch $(STAMP)

# A Chromium for the crawls and the tests: the one installed, else Playwright's download, else the
# distribution's package (deepcrawl.doctor.install_browser).
browser: install
	$(BIN)/deepcrawl install-browser

postgres:
	bash scripts/ensure-postgres.sh

bench: install browser
	$(BIN)/deepcrawl bench --site books --strategy bfs

# The real-site test bed (fixtures/real/README.md): installs each application on first use.
bench-real: install browser
	$(BIN)/deepcrawl bench --suite real --out bench-real

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist site *.egg-info
