#!/usr/bin/env bash
# `make package-test` (CI, after `make test`): checks the installers `make package` built, as a
# user would get them. The .deb is unpacked with `dpkg -x` into a throwaway root (no container,
# no root needed) and its program must pass --self-test headless and under Xvfb; then
# tests/package/ installs the tar.gz for a user, checks the .deb's files, and starts the
# installed app under Xvfb with trayer: the icon must dock and the popup open with a chat.
set -euo pipefail
cd "$(dirname "$0")/.."

shopt -s nullglob
debs=(dist/metona-tray_*.deb)
tars=(dist/metona-tray-*-linux-*.tar.gz)
if ((${#debs[@]} != 1 || ${#tars[@]} != 1)); then
    echo "package-test: expected one .deb and one tar.gz in dist/ (run make package)" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/metona-package-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
dpkg -x "${debs[0]}" "$work/root"
app="$work/root/opt/metona-tray/metona-tray"

echo "== --self-test of the unpacked .deb, headless"
env -u DISPLAY -u WAYLAND_DISPLAY METONA_HOME="$work/home" "$app" --self-test
echo "== --self-test of the unpacked .deb, under Xvfb"
METONA_HOME="$work/home" xvfb-run -a "$app" --self-test

echo "== tests/package: the installers' files, the tar.gz install, the installed app under Xvfb"
METONA_PACKAGE_ROOT="$work/root" METONA_PACKAGE_DEB="${debs[0]}" METONA_PACKAGE_TAR="${tars[0]}" \
    .venv/bin/pytest -n 0 -p no:cacheprovider -q tests/package
