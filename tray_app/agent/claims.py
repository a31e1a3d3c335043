"""Does a final answer say it changed files? (For the "No files were changed" note.)

Small models often end a turn with "I've created config.json" or "已写入文件" without having
called a tool at all. The loop then adds a quiet, factual note under the answer; nothing is
retried and nothing accuses the model. A false positive only adds a true sentence, so the
patterns lean towards catching claims: English past/perfect forms of the verbs that change
files ("I've created", "has been saved", "saved the file") and the Chinese "已…" / "…了" forms
("已创建", "已写入", "保存了"). Future tense, questions and negations ("I'll create",
"shall I save the file?", "I have not written", "未保存") do not match.

Bounded: only the answer's first and last ``EDGE_CHARS`` characters are read, fenced code is
left out (code talks about files without claiming anything), and the patterns have no nested
repetition, so the check is linear in at most ``2 * EDGE_CHARS`` characters.
"""

from __future__ import annotations

import re

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
_ZH_VERBS = r"创建|新建|写入|写好|保存|修改|更改|删除|更新|移动|重命名|覆盖|生成|添加|替换|编辑"
_CHINESE = re.compile(
    rf"(?:已经?|成功(?:地)?)(?:{_ZH_VERBS})|(?<![未没不])(?:{_ZH_VERBS})(?:好)?了"
)
_FENCE = re.compile(r"^ {0,3}(```|~~~)[^\n]*\n.*?(?:^ {0,3}\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)


def _edges(text: str) -> str:
    if len(text) <= 2 * EDGE_CHARS:
        return text
    return f"{text[:EDGE_CHARS]}\n\n{text[-EDGE_CHARS:]}"


def claims_a_change(answer: str) -> bool:
    """True when the answer says it created, wrote, changed or deleted something."""
    prose = _FENCE.sub("\n", _edges(answer))
    return bool(_ENGLISH.search(prose) or _CHINESE.search(prose))
