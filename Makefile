# Railpost — `make help` lists the targets.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000

.PHONY: help venv run test lint bench conformance campaign fuzz soak scale-test soak-faults clean

help: ## show this help
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(BIN)/railpost: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -e '.[dev]'
	@touch $@

venv: $(BIN)/railpost ## create the virtualenv and install everything

run: venv ## run gateway + rules worker + notifier (embedded SQLite/file queue unless DATABASE_URL/REDIS_URL are set)
	PORT=$(PORT) $(BIN)/python -m services.run

# make test: every test but the `alone` ones spread over TEST_WORKERS processes (pytest-xdist), then those alone
TEST_WORKERS ?= 2
test: venv ## run the whole test suite on TEST_WORKERS cores (starts PostgreSQL/Redis if they are not running)
	bash infra/ensure-services.sh
	$(BIN)/ruff check .
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup -m "not alone"
	$(BIN)/pytest -q -m alone

lint: venv ## ruff
	$(BIN)/ruff check .

bench: venv ## benchmarks: replay speed, per-action latency, legal-actions against a game's load, the page's first render, a turn mail's commit-to-SMTP time, service load and its floor, notifier latency
	$(BIN)/python -m bench

conformance: venv ## every public game in replay and live mode, every refusals file: the README's table
	$(BIN)/python -m bench.conformance_table

CAMPAIGN_GAMES ?= 1
CAMPAIGN_BANK ?= var/campaign/bank
CAMPAIGN_FLAGS ?=
campaign: venv ## differential campaign against the reference (needs Ruby + REF_18XX; never CI): docs/conformance.md
	$(BIN)/python -m bench.campaign forward --bank $(CAMPAIGN_BANK) --games $(CAMPAIGN_GAMES) $(CAMPAIGN_FLAGS)
	$(BIN)/python -m bench.campaign reverse --games $(CAMPAIGN_GAMES)
	-$(BIN)/python -m bench.conformance_table > var/campaign/corpus.md
	$(BIN)/python -m bench.campaign table --write --corpus var/campaign/corpus.md

soak: venv ## the random-play soaks at full size (200 games per title, 200 clocked games; make test plays fewer)
	SOAK_1825=200 SOAK_1828=200 SOAK_1840=200 SOAK_1833NE=200 $(BIN)/pytest -q -k soak tests/engine
	CLOCK_SOAK_200=200 $(BIN)/pytest -q tests/clock/test_clock_soak_200.py

fuzz: venv ## schema fuzzing: >= 10,000 generated requests against the embedded default and PostgreSQL + Redis
	bash infra/ensure-services.sh
	$(BIN)/python -m bench.fuzz --budget 10000

scale-test: venv ## the service as 3 hosts in network namespaces (needs root): games over REST through host faults
	$(BIN)/python -m bench.scale_test

soak-faults: venv ## 30 minutes of the scale test's hosts under faults (needs root; SOAK_MINUTES, SOAK_GAMES)
	$(BIN)/python -m bench.soak_faults

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache var
