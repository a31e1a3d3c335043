#!/usr/bin/env bash
# macOS: dist/Metona-Tray-<version>.dmg holding the .app and a link to /Applications (drag to
# install). Uses only hdiutil, which ships with macOS. NOT RUN here (see build-app.sh).
# Uninstall: turn "Start at login" off in Settings (or delete
# ~/Library/LaunchAgents/com.metona.tray.plist), then drag "Metona Tray" from Applications to
# the Bin. Settings and chats stay in ~/Library/Application Support/metona-tray (logs in
# ~/Library/Logs/metona-tray, caches in ~/Library/Caches/metona-tray) until removed by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."

APP="dist/Metona Tray.app"
version=$(.venv/bin/python -c 'import tray_app; print(tray_app.__version__)')
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT

cp -R "$APP" "$staging/"
ln -s /Applications "$staging/Applications"
rm -f "dist/Metona-Tray-$version.dmg"
hdiutil create -volname "Metona Tray" -srcfolder "$staging" -fs HFS+ -format UDZO \
    -ov "dist/Metona-Tray-$version.dmg"
hdiutil verify "dist/Metona-Tray-$version.dmg"
