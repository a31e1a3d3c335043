#!/usr/bin/env bash
# Commit messages: a subject of at most 72 characters, then a blank line before any body.
#   check-commit-subjects.sh --message FILE   one message (the commit-msg hook)
#   check-commit-subjects.sh                   every commit after the last long-subject one
#                                              (make check); older history is left as it was
set -euo pipefail
cd "$(dirname "$0")/.."
limit=72
export LC_ALL=C.UTF-8  # count characters, not bytes
# The newest commit written before the rule; its ancestors keep their long subjects.
rule_start=60ec9a774a8d5eec5e48193689961f0740a21261

fail=0
report() { echo "commit message: $1" >&2; fail=1; }

check_text() { # $1: label, $2: message text
    local label=$1 text=$2 subject second
    text=$(grep -v '^#' <<<"$text" || true)
    subject=$(sed -n 1p <<<"$text")
    second=$(sed -n 2p <<<"$text")
    if [[ -z ${subject// /} ]]; then report "$label: empty subject"; return; fi
    if (( ${#subject} > limit )); then
        report "$label: subject has ${#subject} characters (at most $limit): $subject"
    fi
    if [[ -n $second ]]; then report "$label: the subject must be followed by a blank line"; fi
}

if [[ ${1:-} == --message ]]; then
    check_text "this commit" "$(cat "$2")"
else
    if ! git rev-parse -q --verify "$rule_start^{commit}" >/dev/null 2>&1; then
        echo "commit messages: history before HEAD not available; checking HEAD only"
        range=(-1 HEAD)
    else
        range=("$rule_start..HEAD")
    fi
    while IFS= read -r sha; do
        check_text "$(git rev-parse --short "$sha")" "$(git log -1 --format=%B "$sha")"
    done < <(git rev-list "${range[@]}")
fi
exit $fail
