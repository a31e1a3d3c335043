#!/usr/bin/env bash
# Runs the whole suite in parallel; pytest's exit code 5 ("no tests") counts as a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/pytest -n auto -p no:cacheprovider "$@"
