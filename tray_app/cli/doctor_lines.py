"""``metona-tray doctor``'s lines in the terminal's language (the catalogue's ``doctor.*``). The
report (``--json``) keeps its English keys and values for scripts; only the printed lines
change. A value the app wrote in a fixed sentence is said in the user's language; anything a
server, the system or a setting gave is written out (``⟨U+202E⟩``) so it cannot reorder or
hide the line."""

from __future__ import annotations

import functools
import re

from tray_app.i18n import SOURCE_LANGUAGE, lookup, section, t, written_out

#: The keyring library's reason is quoted up to this many characters (its message, not ours).
MAX_KEYRING_DETAIL = 300

#: The desktop checks' English sentences around a value (a shortcut, a server's name, the
#: system's own words), each with its catalogue key (``doctor.pattern.<name>``); each pattern is
#: anchored with at most two open groups, and ``v`` is said again (once, not recursively) when
#: it is itself a fixed sentence or one of these.
PATTERNS = [
    (re.compile(r"(?P<v>.+) is free \(the app grabs it at start\)"), "free"),
    (re.compile(r"(?P<v>.+) \(the app registers it at start\)"), "registers_at_start"),
    (re.compile(r"(?P<v>.+) registered by the running app"), "registered"),
    (re.compile(r"(?P<v>.+) is taken by another app; choose another shortcut"), "taken"),
    (re.compile(r"not registered by the running app: (?P<v>.*)"), "not_registered"),
    (
        re.compile(r"the hotkey (?P<v>.+) could not be registered: (?P<w>.*)"),
        "not_registrable",
    ),
    (re.compile(r"(?P<v>.+) could not be tried \((?P<w>.*)\)"), "not_tried"),
    (re.compile(r"unusable setting: (?P<v>.*)"), "unusable_setting"),
    (re.compile(r"no notification server \((?P<v>.*)\)"), "no_notification_server"),
    (re.compile(r"(?P<v>.+): Approve/Deny/Open buttons"), "buttons"),
    (re.compile(r"(?P<v>.+): no buttons: a click opens the popup"), "no_buttons"),
    (re.compile(r"missing: (?P<v>.*)"), "missing"),
    (re.compile(r"unknown \((?P<v>.*)\)"), "unknown_because"),
]


def doctor_line(language: str, key: str, **fields: object) -> str:
    """One of the doctor's lines; ``fields`` are written out first."""
    shown = {name: written_out(value) for name, value in fields.items()}
    return t(f"doctor.{key}", language, **shown)


def name_word(name: str, language: str) -> str:
    """A report key (``config``, ``hotkey_hint``) in words; an unknown one as it is."""
    return lookup(f"doctor.name.{name}", language) or name


@functools.cache
def _fixed_sentences() -> dict[str, str]:
    """The desktop checks' fixed English sentences, each to its ``doctor.value.*`` key."""
    values = section("doctor.value", SOURCE_LANGUAGE)
    return {values[key]: f"doctor.value.{key}" for key in values}


def value_words(value: object, language: str, *, nested: bool = True) -> str:
    """A desktop check's value: in words when it is a fixed sentence; else written out.
    ``nested``: a pattern's ``v`` (the running app's own reason) is said in words too."""
    text = str(value)
    if text in _fixed_sentences():
        return t(_fixed_sentences()[text], language)
    for pattern, name in PATTERNS:
        if (found := pattern.fullmatch(text)) is not None:
            inner = found["v"]
            if nested:
                inner = value_words(inner, language, nested=False)
            said = {"v": inner, "w": found.groupdict().get("w")}
            return t(f"doctor.pattern.{name}", language, **said)
    return text


def server_error(code: str, message: object, language: str) -> str:
    """Why the server did not answer: English as the provider said it; another language says
    its cause by code (the page's ``error.<code>``), the provider's words quoted."""
    cause = lookup(f"terminal.error.{code}", language) or lookup(f"error.{code}", language)
    cause = cause or t("error.provider_error", language)
    return doctor_line(language, "server_error", cause=cause, why=message)


def keyring_cause(code: object, detail: object, language: str) -> str:
    """Why the keyring keeps no keys: the code's words (the page's ``keyring.<code>``) and the
    keyring library's text quoted after them, cut and written out; an unknown reason is only
    quoted."""
    said = (lookup(f"keyring.{code}", language) or "") if isinstance(code, str) else ""
    if not detail:
        return said
    text = str(detail)
    if len(text) > MAX_KEYRING_DETAIL:
        text = text[: MAX_KEYRING_DETAIL - 1] + "…"
    quoted = doctor_line(language, "keyring_says", detail=text)
    return t("doctor.keyring_cause", language, said=said, quoted=quoted) if said else quoted
