# Every target installs what it needs first, so `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: run test check bench tool-schemas docs-images package package-test clean venv

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,dev]'
	@git config core.hooksPath scripts/hooks 2>/dev/null || true
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
	bash scripts/lint-js.sh
	bash scripts/check-commit-subjects.sh

bench: $(STAMP)
	$(PY) -m bench

# The pictures in docs/images/, taken again by the screenshot tests (scripts/docs_images.py).
docs-images: $(STAMP)
	@bash scripts/install-test-deps.sh
	$(PY) scripts/docs_images.py

# After changing a built-in tool's argument model (tests/tools/test_schema_snapshot.py says when).
tool-schemas: $(STAMP)
	$(PY) -m tray_app.tools.schema_snapshot
	$(VENV)/bin/ruff format tray_app/tools/tool_schemas.py

# The bundle is rebuilt only when the app, the page, the packaging or the dependencies changed
# (PyInstaller also keeps its analysis in build/ between runs).
BUNDLE := dist/metona-tray/metona-tray
BUNDLE_INPUTS := pyproject.toml $(shell find tray_app web packaging -type f \
	-not -path '*/__pycache__/*' -not -path 'packaging/linux/*' 2>/dev/null)

$(BUNDLE): $(STAMP) $(BUNDLE_INPUTS)
	@bash scripts/install-desktop-deps.sh
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[desktop,package]'
	$(VENV)/bin/pyinstaller --noconfirm --log-level WARN packaging/metona-tray.spec
	@touch $@

# dist/metona-tray (PyInstaller), and on Linux the .deb and the tar.gz; prints their sizes.
package: $(BUNDLE)
	@if [ "$$(uname -s)" = Linux ]; then $(PY) packaging/linux/build.py; fi
	@$(PY) -m bench.bundle

# What CI runs after `make test`: the .deb unpacked into a throwaway root passes --self-test,
# docks its icon and opens the popup with a chat under Xvfb; the tar.gz installs for a user.
package-test: package
	@bash scripts/install-test-deps.sh
	bash scripts/package-test.sh

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache node_modules
