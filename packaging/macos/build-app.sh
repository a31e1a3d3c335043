#!/usr/bin/env bash
# macOS: dist/Metona Tray.app from packaging/metona-tray.spec, with rg inside, signed ad hoc,
# checked with --self-test. Written from PyInstaller's and Apple's codesign documentation;
# NOT RUN on this project's machines (Linux only): .github/workflows/release.yml runs it on a
# hosted macOS runner.
#
# - LSUIElement (in the spec's Info.plist): a menu-bar app with no Dock icon.
# - Ad-hoc signing (`codesign --sign -`): no Apple developer identity; enough for notifications
#   and for Apple silicon, which refuses unsigned code. Gatekeeper still warns on first open of a
#   downloaded copy (right-click > Open); a Developer ID and notarisation remove that.
set -euo pipefail
cd "$(dirname "$0")/../.."

PY=${PY:-.venv/bin/python}
APP="dist/Metona Tray.app"

"$PY" -m pip install --quiet -e '.[desktop,package]'
"$PY" -m PyInstaller --noconfirm --log-level WARN packaging/metona-tray.spec

# search_files looks for rg next to the executable (tray_app/tools/search/search_rg.py).
rg=$("$PY" -c 'import os, sys; print(os.path.join(os.path.dirname(sys.executable), "rg"))')
cp "$rg" "$APP/Contents/MacOS/rg"
chmod 755 "$APP/Contents/MacOS/rg"

# Sign inside out (--deep is deprecated for signing): every Mach-O file, then the bundle.
find "$APP/Contents" -type f \( -name '*.so' -o -name '*.dylib' -o -perm -u+x \) -print0 |
    while IFS= read -r -d '' file; do
        if file -b "$file" | grep -q Mach-O; then
            codesign --force --sign - --timestamp=none "$file"
        fi
    done
codesign --force --sign - --timestamp=none "$APP"
codesign --verify --strict --verbose=2 "$APP"
/usr/libexec/PlistBuddy -c 'Print :LSUIElement' "$APP/Contents/Info.plist" | grep -q true

"$APP/Contents/MacOS/metona-tray" --self-test
