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
