#!/bin/sh
# Installs Metona Tray for the current user only (no root): the program under
# ~/.local/opt/metona-tray, the command ~/.local/bin/metona-tray, the menu entry and the icons
# under ~/.local/share. Run it again to update. Options:
#   --prefix DIR   install under DIR instead of ~/.local (DIR/opt, DIR/bin, DIR/share)
# The desktop needs WebKitGTK 4.1, GTK 3 and AyatanaAppIndicator from the system (Debian/Ubuntu:
#   sudo apt install gir1.2-webkit2-4.1 gir1.2-gtk-3.0 gir1.2-ayatanaappindicator3-0.1).
# Uninstall: ~/.local/opt/metona-tray/uninstall.sh (keeps your settings and chats).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
prefix="${HOME}/.local"
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac

if [ ! -x "$here/metona-tray/metona-tray" ]; then
    echo "install.sh: run it from the unpacked archive (metona-tray/metona-tray not found)" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ] && [ "$prefix" = "${HOME}/.local" ]; then
    echo "install.sh: installing for root only; as a normal user it installs for that user" >&2
fi

app="$prefix/opt/metona-tray"
bin="$prefix/bin"
share="$prefix/share"
mkdir -p "$prefix/opt" "$bin" "$share/applications"

# Copy next to the old version first, then swap: a failed copy leaves the old one working.
rm -rf "$app.new"
cp -a "$here/metona-tray" "$app.new"
cp "$here/uninstall.sh" "$app.new/uninstall.sh"
printf '%s\n' "$prefix" >"$app.new/.install-prefix"
rm -rf "$app.old"
if [ -e "$app" ]; then mv "$app" "$app.old"; fi
mv "$app.new" "$app"
rm -rf "$app.old"

ln -sfn "$app/metona-tray" "$bin/metona-tray"

# Exec= quoting per the Desktop Entry spec: inside double quotes escape " ` $ \ ; % doubles.
quoted=$(printf '%s' "$app/metona-tray" | sed -e 's/[\\"`$]/\\\\&/g' -e 's/%/%%/g')
escaped=$(printf '%s' "\"$quoted\"" | sed -e 's/[\\&|]/\\&/g')
sed "s|@EXEC@|$escaped|" "$here/share/applications/metona-tray.desktop" \
    >"$share/applications/metona-tray.desktop"
(cd "$here/share" && find icons -type f) | while read -r icon; do
    mkdir -p "$share/$(dirname "$icon")"
    cp "$here/share/$icon" "$share/$icon"
done
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$share/applications" 2>/dev/null || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$share/icons/hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t "$share/icons/hicolor" 2>/dev/null || true
fi

echo "Metona Tray installed in $app"
case ":${PATH}:" in
    *":$bin:"*) echo "Start it from the menu or with: metona-tray" ;;
    *) echo "Start it from the menu or with: $bin/metona-tray ($bin is not on your PATH)" ;;
esac
echo "Uninstall: $app/uninstall.sh (add --purge to delete your settings and chats too)"
