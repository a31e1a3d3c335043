#!/usr/bin/env bash
# Installs the system packages the GUI and browser tests need (as root only; others are told what is missing).
set -euo pipefail

# --- tool tests ---
# bubblewrap: run_command's sandbox (tests/tools/test_shell_sandbox.py skip without it).
if ! command -v bwrap >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1 || {
            DEBIAN_FRONTEND=noninteractive apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
        }
    else
        echo "sandbox tests need bubblewrap (apt-get install as root); they will be skipped" >&2
    fi
fi
# --- end tool tests ---

# --- web tests ---
# Debian's Chromium for the page tests (tests/web, driven by Playwright with
# executable_path=/usr/bin/chromium: nothing downloads a browser) and CJK fonts so Chinese
# renders in screenshots. Idempotent: apt runs only when something is missing.
web_packages=(chromium fonts-noto-cjk fonts-liberation)
web_missing=()
for pkg in "${web_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
        || web_missing+=("$pkg")
done
if ((${#web_missing[@]})); then
    if [[ $(id -u) -eq 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${web_missing[@]}" >/dev/null
    else
        echo "web tests need: ${web_missing[*]} (apt-get install as root); they will be skipped" >&2
    fi
fi
# --- end web tests ---

# --- gui tests ---
# The desktop end-to-end tests (tests/e2e) start their own Xvfb, D-Bus session, tray host
# (trayer) and test notification server, and drive the app with xdotool/xwininfo. They also
# need what the app itself needs (WebKitGTK, GTK, AppIndicator, PyGObject's build headers and
# the `desktop` extra in .venv): install-desktop-deps.sh does both in one apt run, as root and
# only when something is missing (apt-get update only if the current lists cannot install).
# Not root or not Debian: tests/e2e skips and says what is missing.
if [[ $(uname -s) == Linux ]]; then
    METONA_EXTRA_APT="xvfb xauth xdotool x11-utils trayer dbus" \
        bash "$(dirname "$0")/install-desktop-deps.sh" \
        || echo "GUI test dependencies are incomplete; tests/e2e will be skipped" >&2
fi
# --- end gui tests ---
