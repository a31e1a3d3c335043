#!/usr/bin/env bash
# Installs the desktop extras (pywebview, pystray, ...) when they are missing.
set -euo pipefail
:
