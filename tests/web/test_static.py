"""Checks on the shipped page's files that need no browser."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
TEST_VENDOR = Path(__file__).resolve().parent / "vendor"
JS = sorted((WEB / "js").rglob("*.js"))


def locale(name: str) -> dict[str, str]:
    return dict(json.loads((WEB / "locales" / f"{name}.json").read_text(encoding="utf-8")))


def base_key(key: str) -> str:
    return re.sub(r"_(zero|one|two|few|many|other)$", "", key)


def test_index_has_a_strict_csp_and_no_inline_code() -> None:
    html = (WEB / "index.html").read_text(encoding="utf-8")
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    policy = csp.group(1)
    for directive in (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-src 'none'",
    ):
        assert directive in policy
    assert "unsafe" not in policy
    assert " style=" not in html
    assert re.search(r"\son[a-z]+=", html) is None
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert "http://" not in html.replace("http-equiv", "") and "https://" not in html


def test_only_bridge_js_touches_pywebview_and_nothing_evals() -> None:
    for path in JS:
        text = path.read_text(encoding="utf-8")
        if path.name != "bridge.js":
            assert "pywebview" not in text, path.name
        assert "eval(" not in text and "new Function" not in text, path.name
        assert (
            re.search(r"\.(inner|outer)HTML\b|insertAdjacentHTML|document\.write", text) is None
        ), path.name
        # Counted without whitespace, so the size is the code's and not Prettier's layout:
        # 17,000 is about what 400 densely written lines held.
        assert len(re.sub(r"\s", "", text)) < 17_000, f"{path.name} is too long"


def test_the_shim_is_not_shipped() -> None:
    shipped = "\n".join(p.read_text(encoding="utf-8") for p in WEB.rglob("*.js"))
    assert "__metonaHarness" not in shipped


#: The terminal's texts whose English keeps the form scripts read (the app's message alone)
#: while other languages also name its cause: the code passes both.
ENGLISH_LEAVES_OUT = {
    "terminal.turn_failed": {"{cause}", "{message}"},
    "terminal.turn_failed_bare": {"{cause}"},
    "doctor.server_error": {"{cause}"},
}


def test_both_locales_have_the_same_keys_and_zh_is_translated() -> None:
    en, zh = locale("en"), locale("zh-CN")
    assert {base_key(k) for k in en} == {base_key(k) for k in zh}
    same = {k for k in en if k in zh and en[k] == zh[k]}
    assert same <= {
        "set.language.en",
        "set.language.zh-CN",
        "set.provider.ollama",
        "tray.title_idle",  # the product's name
        "notify.replaces",  # two sizes and an arrow
        "terminal.mcp.tool",  # a column layout
        "terminal.mcp.cause.other",  # quotes around the server's own words
        "self_test.check.ripgrep",  # a program's name
    }
    for key, value in zh.items():
        placeholders = set(re.findall(r"\{\w+\}", value))
        english = en.get(key) or en.get(base_key(key) + "_other", "")
        said = set(re.findall(r"\{\w+\}", english)) | ENGLISH_LEAVES_OUT.get(key, set())
        assert placeholders <= said, key


def test_every_key_the_page_uses_exists() -> None:
    en = {base_key(k) for k in locale("en")}
    used: set[str] = set()
    html = (WEB / "index.html").read_text(encoding="utf-8")
    used |= set(re.findall(r'data-i18n(?:-[a-z-]+)?="([^"]+)"', html))
    pattern = re.compile(
        r"(?:i18n\w*:\s*\[?|\b(?:t|tx|tattr)\([^'`)]*?|key:\s*)'([a-z_]+\.[\w.-]+)'"
    )
    for path in JS:
        used |= set(pattern.findall(path.read_text(encoding="utf-8")))
    missing = sorted(k for k in used if k not in en)
    assert missing == []
    assert len(used) > 100


def test_vendored_files_match_their_versions_file() -> None:
    for folder, count in ((WEB / "vendor", 3), (TEST_VENDOR, 1)):
        lines = (folder / "VERSIONS").read_text().splitlines()
        sums = [line.split() for line in lines if re.match(r"^[0-9a-f]{64}\s", line)]
        assert len(sums) == count
        for digest, name in sums:
            assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest
    for licence in ("LICENSE.marked", "LICENSE.dompurify", "LICENSE.highlightjs"):
        assert (WEB / "vendor" / licence).is_file()
    # axe-core runs in the browser tests only: it lives with them, licence header and all, and
    # nothing of it is under web/ (which is shipped whole).
    assert (TEST_VENDOR / "LICENSE.axe-core").is_file()
    head = (TEST_VENDOR / "axe.min.js").read_text(encoding="utf-8")[:400]
    assert head.startswith("/*! axe v") and "Mozilla Public" in head
    assert [p.name for p in WEB.rglob("*") if "axe" in p.name.lower()] == []
    assert "axe.min.js" not in (WEB / "index.html").read_text(encoding="utf-8")


def test_every_error_code_has_a_text_in_both_languages() -> None:
    from tray_app.base.errors import ERROR_CODES, INTERNAL

    actions = (WEB / "js" / "chat" / "actions.js").read_text(encoding="utf-8")
    listed = re.search(r"COMMAND_ERRORS = new Set\(\[(.*?)\]\)", actions, re.S)
    assert listed is not None
    page_codes = set(re.findall(r"'([a-z_]+)'", listed.group(1)))
    codes = set(ERROR_CODES.values()) | {INTERNAL}
    assert codes <= page_codes, codes - page_codes
    for name in ("en", "zh-CN"):
        texts = locale(name)
        assert [c for c in page_codes if f"command_error.{c}" not in texts] == [], name
