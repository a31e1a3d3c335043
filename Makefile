# Every target installs what it needs first, so `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: run test check bench package clean venv

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,dev]'
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	@bash scripts/install-desktop-deps.sh || echo "desktop extras not installed; the terminal mode still works"
	$(VENV)/bin/metona-tray

test: $(STAMP)
	@bash scripts/install-test-deps.sh
	bash scripts/run-tests.sh $(PYTEST_ARGS)

check: $(STAMP)
	$(VENV)/bin/ruff check tray_app tests bench
	$(VENV)/bin/ruff format --check tray_app tests bench
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(PY) -m bench

package: $(STAMP)
	$(PY) -m pip install --quiet -e '.[desktop,package]'
	$(VENV)/bin/pyinstaller --noconfirm packaging/metona-tray.spec

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
