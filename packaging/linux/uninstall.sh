#!/bin/sh
# Removes Metona Tray installed by install.sh: the program, the command, the menu entry, the
# icons and the start-at-login entry. Your settings, chats and undo journal stay unless you
# pass --purge. Options:
#   --prefix DIR   where it was installed (default: the one install.sh recorded, else ~/.local)
#   --purge        also delete settings, chats, logs and caches (~/.config/metona-tray,
#                  ~/.local/share/metona-tray, ~/.local/state/metona-tray, ~/.cache/metona-tray)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
prefix=""
purge=no
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --purge) purge=yes; shift ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "uninstall.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$prefix" ] && [ -f "$here/.install-prefix" ]; then
    prefix=$(cat "$here/.install-prefix")
fi
prefix="${prefix:-${HOME}/.local}"

app="$prefix/opt/metona-tray"
if [ -L "$prefix/bin/metona-tray" ] && [ "$(readlink "$prefix/bin/metona-tray")" = "$app/metona-tray" ]; then
    rm -f "$prefix/bin/metona-tray"
fi
rm -f "$prefix/share/applications/metona-tray.desktop"
find "$prefix/share/icons/hicolor" -path '*/apps/metona-tray.png' -type f -exec rm -f {} + 2>/dev/null || true
rm -f "${XDG_CONFIG_HOME:-$HOME/.config}/autostart/metona-tray.desktop"
rm -rf "$app"

if [ "$purge" = yes ]; then
    rm -rf "${XDG_CONFIG_HOME:-$HOME/.config}/metona-tray" \
        "${XDG_DATA_HOME:-$HOME/.local/share}/metona-tray" \
        "${XDG_STATE_HOME:-$HOME/.local/state}/metona-tray" \
        "${XDG_CACHE_HOME:-$HOME/.cache}/metona-tray"
    echo "Metona Tray removed, with its settings and chats"
else
    echo "Metona Tray removed; your settings and chats are kept" \
        "(${XDG_CONFIG_HOME:-$HOME/.config}/metona-tray, ${XDG_DATA_HOME:-$HOME/.local/share}/metona-tray)"
fi
