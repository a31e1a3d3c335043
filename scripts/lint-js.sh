#!/usr/bin/env bash
# `make check`'s JavaScript half on the page's own modules, web/js: Prettier (.prettierrc.json)
# checks the layout, ESLint (eslint.config.js) the rest; both keep to ruff's line length.
# The lint tools are pinned in package.json and package-lock.json and installed with `npm ci`
# into node_modules/ (git-ignored, never shipped), again only when those two files change:
# node_modules/.installed is the stamp, as .venv/.installed is the venv's.
# ESLint 9 needs Node.js 18.18+ (or 20.9+, 21.1+) and npm. When they are missing, as root on
# Debian/Ubuntu they are installed with apt (the distribution's nodejs and npm); when they
# cannot be had (not root, no apt, too old, no registry), the JavaScript lint is skipped with a
# message saying why and the rest of `make check` still counts. A lint error fails.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=node_modules/.installed

skip() {
    echo "JavaScript lint SKIPPED: $*" >&2
    exit 0
}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        echo "installing system packages: nodejs npm" >&2
        apt_install() {
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                nodejs npm >/dev/null
        }
        # Try the current package lists first: another step may have refreshed them already.
        if ! apt_install 2>/dev/null; then
            DEBIAN_FRONTEND=noninteractive apt-get update -qq || true
            apt_install || skip "apt could not install nodejs and npm"
        fi
    else
        skip "Node.js and npm are missing (sudo apt-get install nodejs npm)"
    fi
fi

node_ok='const [major, minor] = process.versions.node.split(".").map(Number);
process.exit((major === 18 && minor >= 18) || (major === 20 && minor >= 9)
  || (major === 21 && minor >= 1) || major >= 22 ? 0 : 1);'
node -e "$node_ok" || skip "ESLint 9 needs Node.js 18.18 or newer; this is $(node --version)"

if [[ ! -f $stamp || package-lock.json -nt $stamp || package.json -nt $stamp ]]; then
    echo "installing the JavaScript lint tools (npm ci, once)" >&2
    npm ci --no-audit --no-fund --ignore-scripts --loglevel error \
        || skip "npm ci could not install the lint tools from package-lock.json"
    touch "$stamp"
fi

node_modules/.bin/prettier --check --log-level warn web/js eslint.config.js \
    || { echo "run: node_modules/.bin/prettier --write web/js eslint.config.js" >&2; exit 1; }
node_modules/.bin/eslint --max-warnings 0 --cache --cache-strategy content \
    --cache-location node_modules/.cache/eslint/ web/js eslint.config.js
