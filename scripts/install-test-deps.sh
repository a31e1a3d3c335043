#!/usr/bin/env bash
# Installs what the tests need beyond .venv, in one apt run, as root and only when missing:
#   tools  bubblewrap                      run_command's sandbox (tests/tools/test_shell_sandbox.py)
#          git                             the git tools on real repositories (tests/tools/test_git_tools.py)
#   web    chromium, CJK + Latin + emoji   the page in Debian's Chromium via Playwright (tests/web);
#                                          nothing downloads a browser
#   gui    xvfb xauth xdotool x11-utils    the desktop end to end under Xvfb (tests/e2e), which start
#          trayer dbus openbox             their own X server, D-Bus session, window manager, tray
#          notification-daemon             host, the recording notification server and the real one
#   keyring gnome-keyring                  the real OS keyring (Secret Service) the keyring tests and
#                                          tests/e2e start on their own D-Bus session, unlocked
# plus everything the desktop app itself needs (WebKitGTK, GTK, AppIndicator, PyGObject's build
# headers and the `desktop` extra): install-desktop-deps.sh installs those with the packages
# above in the same apt run. Not root, or not Debian: the tests that lack something skip and say
# what is missing; as root a failed install fails `make test` rather than skipping silently.
# and one MCP server from npm for tests/mcp (the Python one, mcp-server-time, comes with the
# `test` extra): @modelcontextprotocol/server-filesystem into METONA_TEST_NPM_CACHE (default
# ~/.cache/metona-tray-tests/npm), once; the tests that need it skip and say so when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

npm_cache="${METONA_TEST_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/metona-tray-tests/npm}"
fs_server="@modelcontextprotocol/server-filesystem@2026.8.31"
if [[ ! -x "$npm_cache/node_modules/.bin/mcp-server-filesystem" ]]; then
    if command -v npm >/dev/null; then
        mkdir -p "$npm_cache"
        npm install --no-audit --no-fund --silent --prefix "$npm_cache" "$fs_server" \
            || echo "could not install $fs_server; tests/mcp will skip the tests that use it" >&2
    else
        echo "npm is missing; tests/mcp will skip the tests that use $fs_server" >&2
    fi
fi

test_apt=(bubblewrap git chromium fonts-noto-cjk fonts-liberation fonts-noto-color-emoji xvfb xauth xdotool x11-utils trayer dbus openbox notification-daemon
    gnome-keyring)

if [[ $(uname -s) != Linux ]]; then
    echo "tests/e2e and the sandbox tests are Linux-only here; they will be skipped" >&2
    exit 0
fi
if [[ $(id -u) -eq 0 ]]; then
    METONA_EXTRA_APT="${test_apt[*]}" bash scripts/install-desktop-deps.sh
else
    METONA_EXTRA_APT="${test_apt[*]}" bash scripts/install-desktop-deps.sh \
        || echo "some test dependencies are missing; the tests that need them will be skipped" >&2
fi
