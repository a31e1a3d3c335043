"""Does a final answer say it changed files? (For the "No files were changed" note.)

Small models often end a turn with "I've created config.json" (or the same in another
language) without having called a tool at all. The loop then adds a quiet, factual note under
the answer; nothing is retried and nothing accuses the model. A false positive only adds a
true sentence, so the patterns lean towards catching claims: English past/perfect forms of
the verbs that change files ("I've created", "has been saved", "saved the file"), and for
each file in ``web/locales/claims/`` that language's verbs with the words around them that
make them done (for Chinese its "already" before and its perfect particle after). Future
tense, questions and negations ("I'll create", "shall I save the file?", "I have not
written") do not match.

Bounded: only the answer's first and last ``EDGE_CHARS`` characters are read, fenced code is
left out (code talks about files without claiming anything), and the patterns have no nested
repetition, so the check is linear in at most ``2 * EDGE_CHARS`` characters.
"""

from __future__ import annotations

import functools
import json
import logging
import re

from tray_app.web_files import web_root

log = logging.getLogger(__name__)

EDGE_CHARS = 2_000

_VERBS = (
    r"created|written|wrote|saved|updated|modified|changed|edited|deleted|removed|renamed|moved"
    r"|added|overwritten|overwrote|replaced|appended|generated"
)
_PARTICIPLES = (
    r"created|written|saved|updated|modified|changed|edited|deleted|removed|renamed|moved"
    r"|added|overwritten|replaced|appended|generated"
)
_THINGS = r"files?|folders?|director(?:y|ies)|changes?|edits?|it|them|this|that"
_ENGLISH = re.compile(
    # "I've created", "I have now written", "I just saved", "I successfully deleted"
    rf"\bI(?:['’]ve| have)?(?: (?:now|just|also|already|successfully))* (?:{_VERBS})\b"
    # "has been created", "were successfully removed"
    rf"|\b(?:has|have|had) been (?:successfully )?(?:{_PARTICIPLES})\b"
    # "File created successfully", "the changes were saved"
    rf"|\b(?:{_THINGS}) (?:(?:was|were|is|are|got) )?(?:successfully )?(?:{_PARTICIPLES})"
    rf"(?: successfully| to| at| in| with|[.!:,]|$)"
    # "saved the file", "created a new folder", "wrote your notes to"
    rf"|\b(?:{_VERBS}) (?:the|your|a|an|a new|this|these|those|them|it) "
    rf"(?:new |updated |following )?(?:{_THINGS}|notes?|content|config\w*|script|document)\b"
    # a sentence that starts with the verb: "Saved it.", "Done, created notes.md"
    rf"|(?:^|[.!?] )(?:done[,.!]? )?(?:{_VERBS}) (?:it|them|the|your|[^\s.]+\.\w+)\b",
    re.IGNORECASE | re.MULTILINE,
)
#: A language's claim words: a small JSON file we ship, each value a regular expression part.
CLAIMS_LIMIT = 64 * 1024
_FENCE = re.compile(r"^ {0,3}(```|~~~)[^\n]*\n.*?(?:^ {0,3}\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)


@functools.cache
def _other_languages() -> tuple[re.Pattern[str], ...]:
    """One pattern per ``web/locales/claims/<language>.json`` (none when the folder is gone)."""
    patterns = []
    for path in sorted((web_root() / "locales" / "claims").glob("*.json")):
        try:
            with path.open("rb") as file:
                words = json.loads(file.read(CLAIMS_LIMIT).decode("utf-8"))
            before, verbs, after = words["before"], words["verbs"], words["after"]
            not_before = words["not_before"]
            patterns.append(
                re.compile(rf"{before}(?:{verbs})|(?<![{not_before}])(?:{verbs}){after}")
            )
        except (OSError, ValueError, KeyError, TypeError, re.error) as exc:
            log.warning("claim words %s could not be read (%s)", path, exc)
    return tuple(patterns)


def _edges(text: str) -> str:
    if len(text) <= 2 * EDGE_CHARS:
        return text
    return f"{text[:EDGE_CHARS]}\n\n{text[-EDGE_CHARS:]}"


def claims_a_change(answer: str) -> bool:
    """True when the answer says it created, wrote, changed or deleted something."""
    prose = _FENCE.sub("\n", _edges(answer))
    return bool(_ENGLISH.search(prose)) or any(p.search(prose) for p in _other_languages())
