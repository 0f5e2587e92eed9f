# ppdm: one command sets up and runs the demo, one sets up and runs the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXTRAS ?= test,dask,app,bn

.PHONY: demo test venv weka chromium lint format bench clean

$(BIN)/ppdm: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[$(EXTRAS)]"
	@touch $(BIN)/ppdm

venv: $(BIN)/ppdm

demo: venv
	$(BIN)/ppdm demo

# Weka's J48 is the reference C4.5 for the equivalence tests (Debian package `weka`).
weka:
	@if [ ! -f /usr/share/java/weka.jar ]; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq weka) >/dev/null \
	      || echo "warning: could not install weka; J48 tests will be skipped"; \
	  else echo "warning: weka not installed and not root; J48 tests will be skipped"; fi; \
	fi

# The app's tests drive a real headless Chromium (Debian package `chromium`) with Playwright.
chromium:
	@if ! command -v chromium >/dev/null; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null \
	      || echo "warning: could not install chromium; the app's browser tests will be skipped"; \
	  else echo "warning: chromium not installed and not root; the app's browser tests will be skipped"; fi; \
	fi

test: venv weka chromium
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n 2 -p no:cacheprovider

lint: venv
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

format: venv
	$(BIN)/ruff format src tests benchmarks
	$(BIN)/ruff check --fix src tests benchmarks

# The peers (pure-LDP, multi-freq-ldpy, ...) are installed even into an existing .venv.
bench: venv
	$(BIN)/pip install -q -e ".[$(EXTRAS),bench]"
	$(BIN)/python benchmarks/perturb.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache
