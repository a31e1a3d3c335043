#!/usr/bin/env bash
# Installs what the desktop app needs (called by `make run`, and by the GUI block of
# install-test-deps.sh). Idempotent and quiet when everything is there.
#
#  1. System packages (Debian/Ubuntu, docs/architecture.md §6), as root only and only when missing:
#     WebKitGTK 4.1 + GTK 3 introspection for the popup, AyatanaAppIndicator for the tray, and
#     the headers PyGObject 3.50 / pycairo build from. Not root: says what is missing.
#     METONA_EXTRA_APT="pkg ..." adds packages to the same apt run (the GUI tests use this so
#     that apt-get update runs at most once).
#  2. The `desktop` extra into .venv (`pip install -e '.[desktop]'`), only when an import fails.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
desktop_apt=(gir1.2-webkit2-4.1 gir1.2-gtk-3.0 gir1.2-ayatanaappindicator3-0.1
    libgirepository1.0-dev libcairo2-dev pkg-config build-essential)
read -r -a extra_apt <<<"${METONA_EXTRA_APT:-}"

if [[ $(uname -s) == Linux ]] && command -v dpkg-query >/dev/null; then
    missing=()
    for pkg in "${desktop_apt[@]}" "${extra_apt[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$pkg")
    done
    if ((${#missing[@]})); then
        if [[ $(id -u) -eq 0 ]]; then
            echo "installing system packages: ${missing[*]}" >&2
            apt_install() {
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                    "${missing[@]}" >/dev/null
            }
            # Try the current package lists first: another step may have refreshed them already.
            if ! apt_install 2>/dev/null; then
                DEBIAN_FRONTEND=noninteractive apt-get update -qq
                apt_install
            fi
        else
            echo "the desktop app needs: ${missing[*]} (sudo apt-get install them)" >&2
        fi
    fi
fi

# find_spec, not import: pystray picks a display backend when imported.
if ! "$PY" - <<'EOF' 2>/dev/null
import importlib.util
import sys

names = ["webview", "pystray", "PIL", "desktop_notifier"]
if sys.platform.startswith("linux"):
    names += ["gi", "Xlib", "dbus_fast"]
assert all(importlib.util.find_spec(name) for name in names), "missing"
if sys.platform.startswith("linux"):
    import gi

    gi.require_version("Gtk", "3.0")
    gi.require_version("WebKit2", "4.1")
EOF
then
    echo "installing the desktop extras into .venv (PyGObject builds from source, ~1 min)" >&2
    log="$(mktemp)"
    if ! "$PY" -m pip install --quiet --disable-pip-version-check -e '.[desktop]' >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
fi
