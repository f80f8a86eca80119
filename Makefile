# VRAM Atlas. `make build` and `make test` set up everything they need on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
JOBS ?=
STRICT ?= 0
BUILD_FLAGS := $(if $(filter 1,$(STRICT)),--strict,) $(if $(JOBS),--jobs $(JOBS),)

.PHONY: build test test-fast serve i18n check lint prices-report accuracy bench bench-scale audit browser node clean golden

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

build: $(STAMP)
	$(PY) -m generator build $(BUILD_FLAGS)

check: lint
	$(PY) -m generator check

# ruff and mypy, as configured in pyproject.toml (a few seconds).
lint: $(STAMP)
	$(VENV)/bin/ruff check generator tests
	$(VENV)/bin/mypy

# Cloud offers by age, oldest first: which prices to read again.
prices-report: $(STAMP)
	$(PY) -m generator prices-report

i18n: $(STAMP)
	$(VENV)/bin/pybabel extract --mapping-file babel.cfg --output-file locales/messages.pot --no-location --sort-output --project "VRAM Atlas" .
	$(VENV)/bin/pybabel update --input-file locales/messages.pot --output-dir locales --domain messages --no-fuzzy-matching --ignore-obsolete

serve: build
	$(PY) -m generator serve

accuracy: $(STAMP)
	$(PY) -m generator accuracy

# A browser for Playwright: Debian's Chromium where we are root and none is installed, else Playwright's own.
browser: $(STAMP)
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else $(VENV)/bin/playwright install chromium; fi

# vnu-jar and Lighthouse from the npm registry, run on the machine's Java and Chromium.
node:
	@if [ -f package.json ]; then \
	  command -v java >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null; }; \
	  [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error; \
	fi

# One pytest worker per core (TEST_JOBS=0: one process), a test module at a time so that module fixtures are built
# once; the workers share one build of the real catalogue's site (tests/site/conftest.py).
TEST_JOBS ?= auto
PYTEST := $(PY) -m pytest -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder

test: lint $(STAMP) browser node
	$(PYTEST)

# No full-catalogue build, browser, Lighthouse, Java or Node, and no test that runs builds one after another.
test-fast: $(STAMP)
	$(PYTEST) -m "not slow and not browser and not builds and not external"

bench: $(STAMP)
	$(PY) -m generator.bench

# Full builds of the catalogue and of a synthetic one 10 times its size (models cloned): time and peak memory.
bench-scale: $(STAMP)
	$(PY) -m generator.bench --scale 10

audit: build node browser
	$(PY) -m tests.audit

golden: $(STAMP)
	$(PY) -m tests.golden.refresh

clean:
	rm -rf site .cache
