#!/usr/bin/env bash
# Refreshes web/vendor/ (marked, DOMPurify, highlight.js: shipped with the page) and
# tests/web/vendor/ (axe-core, the accessibility checker the browser tests run; never shipped)
# from the npm registry at the pinned versions below. Reproducible: the same versions give the
# same files (npm checks each tarball against the registry's integrity hash). Change a version here, run this, review, commit.
# The files are shipped as they are: the page has no build step.
set -euo pipefail
cd "$(dirname "$0")/.."

MARKED=18.2.1
DOMPURIFY=3.5.0
HIGHLIGHT=11.12.0   # @highlightjs/cdn-assets: the official prebuilt ES module build
AXE=4.14.1

out=web/vendor
tests_out=tests/web/vendor
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

( cd "$work" && npm pack --silent "marked@$MARKED" "dompurify@$DOMPURIFY" \
    "@highlightjs/cdn-assets@$HIGHLIGHT" "axe-core@$AXE" >/dev/null )
for pkg in marked dompurify highlightjs axe-core; do
    mkdir -p "$work/$pkg"
    tar -xzf "$work"/*"$pkg"*.tgz -C "$work/$pkg"
done

# Source-map comments point at files we do not ship; drop them so nothing asks for them.
strip_map() { sed -e '/^\/\/# sourceMappingURL=/d' "$1" > "$2"; }

mkdir -p "$out"
rm -f "$out"/*
strip_map "$work/marked/package/lib/marked.esm.js" "$out/marked.esm.js"
cp "$work/marked/package/LICENSE" "$out/LICENSE.marked"
strip_map "$work/dompurify/package/dist/purify.es.mjs" "$out/purify.es.mjs"
cp "$work/dompurify/package/LICENSE" "$out/LICENSE.dompurify"
cp "$work/dompurify/package/LICENSE-MPL" "$out/LICENSE-MPL.dompurify"
strip_map "$work/highlightjs/package/es/highlight.min.js" "$out/highlight.min.js"
cp "$work/highlightjs/package/LICENSE" "$out/LICENSE.highlightjs"
# axe.min.js starts with its licence header (/*! axe v… MPL-2.0 */): kept as it is.
mkdir -p "$tests_out"
rm -f "$tests_out"/*
cp "$work/axe-core/package/axe.min.js" "$tests_out/axe.min.js"
cp "$work/axe-core/package/LICENSE" "$tests_out/LICENSE.axe-core"

{
    echo "# Vendored by scripts/refresh-vendor.sh from the npm registry. Do not edit by hand."
    echo "marked $MARKED lib/marked.esm.js MIT"
    echo "dompurify $DOMPURIFY dist/purify.es.mjs MPL-2.0 OR Apache-2.0"
    echo "@highlightjs/cdn-assets $HIGHLIGHT es/highlight.min.js BSD-3-Clause"
    echo "# sha256 of the shipped files"
    ( cd "$out" && sha256sum marked.esm.js purify.es.mjs highlight.min.js )
} > "$out/VERSIONS"
{
    echo "# Vendored by scripts/refresh-vendor.sh from the npm registry. Do not edit by hand."
    echo "axe-core $AXE axe.min.js MPL-2.0 (browser tests only, not shipped)"
    echo "# sha256"
    ( cd "$tests_out" && sha256sum axe.min.js )
} > "$tests_out/VERSIONS"
echo "web/vendor and tests/web/vendor refreshed:"
cat "$out/VERSIONS" "$tests_out/VERSIONS"
