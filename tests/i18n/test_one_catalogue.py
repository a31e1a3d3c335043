"""One catalogue per language: the Python side says its words from ``web/locales`` only.

No module under ``tray_app/`` holds CJK text or compares a language code outside
``tray_app/i18n``; ``i18n`` sits at the bottom (it imports only ``web_files``); and a language
added as one file is found and spoken by the Python side without a line of code.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tray_app"
LOCALES = ROOT / "web" / "locales"
#: Chinese characters (the CJK Unified Ideographs). Full-width punctuation alone is no text:
#: code matches it (where a URL ends in a Chinese sentence).
CJK = re.compile(r"[\u4e00-\u9fff]")
#: A language code tested or used to pick words: ``startswith("zh")``, ``== "zh-CN"``,
#: ``"zh-CN" if``, ``TABLE["en"]``, a table keyed ``"zh-CN": {...}``.
CODE = r"""["'](?:zh|en)(?:[-_][A-Za-z]{2,4})?["']"""
LANGUAGE_TEST = re.compile(
    rf"""startswith\(\s*["'](?:zh|en)|[=!]=\s*{CODE}|{CODE}\s*(?:if\b|:|\])|\bin\s*\(\s*{CODE}"""
)
#: Modules whose words have not moved yet (each entry is work left; the list only shrinks).
CJK_LEFT: set[str] = set()
LANGUAGE_TESTS_LEFT: set[str] = set()


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "i18n" not in p.relative_to(PACKAGE).parts)


def _code_lines(path: Path) -> list[str]:
    """The module's text without its comments (a comment may name a language)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        out.append(line.split("  #", 1)[0] if not line.lstrip().startswith("#") else "")
    return out


def test_no_python_module_holds_cjk_text() -> None:
    found = {
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if CJK.search(p.read_text(encoding="utf-8"))
    }
    assert found - CJK_LEFT == set(), "words belong in web/locales/*.json"
    assert CJK_LEFT - found == set(), "a module is clean now: remove it from CJK_LEFT"


def test_no_module_outside_i18n_tests_a_language_code() -> None:
    found = set()
    for path in _modules():
        if any(LANGUAGE_TEST.search(line) for line in _code_lines(path)):
            found.add(str(path.relative_to(PACKAGE)))
    assert found - LANGUAGE_TESTS_LEFT == set(), "ask tray_app.i18n which language it is"
    assert LANGUAGE_TESTS_LEFT - found == set(), "clean now: remove it from LANGUAGE_TESTS_LEFT"


def test_i18n_imports_only_the_bottom_layer() -> None:
    for path in (PACKAGE / "i18n").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tray_app."):
                assert node.module in ("tray_app.web_files",) or node.module.startswith(
                    "tray_app.i18n"
                ), (path.name, node.module)


def _pseudo(text: str) -> str:
    """An English text made recognisable, its placeholders kept: ``⟦Ŧḗẋŧ {n}⟧``."""
    parts = re.split(r"(\{[^{}]*\})", text)
    swapped = "".join(p if p.startswith("{") else p.translate(ACCENTS) for p in parts)
    return f"⟦{swapped}⟧"


ACCENTS = str.maketrans("aeiouAEIOU", "áéíóúÁÉÍÓÚ")
#: The namespaces the Python side says (the page's own keys are the page's test's).
PYTHON_NAMESPACES = (
    "terminal.",
    "doctor.",
    "tray.",
    "notify.",
    "dialog.",
    "tool.",
    "tool_title.",
    "tool_error.",
    "undo_reason.",
    "os_reason.",
    "store_problem.",
    "history_warning.",
    "error.",
    "keyring.",
)


@pytest.fixture
def pseudo_web(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_locales: None) -> Path:
    """A copy of web/ with one more language, ``xx-PS``: every English text transformed."""
    web = tmp_path / "web"
    shutil.copytree(ROOT / "web", web, ignore=shutil.ignore_patterns("vendor"))
    english = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    pseudo = {key: _pseudo(value) for key, value in english.items()}
    (web / "locales" / "xx-PS.json").write_text(json.dumps(pseudo, ensure_ascii=False), "utf-8")
    monkeypatch.setenv("METONA_WEB_DIR", str(web))
    return web


def test_a_language_added_as_one_file_is_found_and_spoken(pseudo_web: Path) -> None:
    from tray_app.i18n import languages, lookup, resolve_language, settings_language, t

    assert languages() == ("en", "xx-PS", "zh-CN")
    assert resolve_language("xx_PS.UTF-8") == "xx-PS"
    settings = pseudo_web / "settings.json"
    settings.write_text('{"language": "xx-PS"}', encoding="utf-8")
    assert settings_language(settings, {"LANG": "en_US.UTF-8"}) == "xx-PS"
    from tray_app.store.settings import Settings

    assert Settings(language="xx-PS").language == "xx-PS"  # a setting the file made possible
    with pytest.raises(ValueError):
        Settings(language="../../etc/passwd")
    english = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    said = [key for key in english if key.startswith(PYTHON_NAMESPACES)]
    assert len(said) > 400
    for key in said:  # every key the Python side says, from the new file (no English fallback)
        assert lookup(key, "xx-PS") == _pseudo(english[key]), key
    waiting = _pseudo(english["tray.title_waiting_other"]).replace("{n}", "2")
    assert t("tray.title_waiting", "xx-PS", n=2) == waiting


def test_the_python_side_speaks_the_pseudo_language_through_its_real_functions(
    pseudo_web: Path,
) -> None:
    from tray_app.cli.doctor_lines import doctor_line, value_words
    from tray_app.cli.terminal_lines import approval_resolved, count_line, turn_failed
    from tray_app.cli.terminal_preview import approval_prompt
    from tray_app.desktop.notify.notify_message import describe_approval
    from tray_app.desktop.tray.icons import tray_title
    from tray_app.terminal_errors import failure_text

    lang = "xx-PS"
    english = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    resolved = _pseudo(english["terminal.approval_resolved"])
    resolved = resolved.replace("{decision}", _pseudo("approved")).replace(
        "{by}", _pseudo("terminal")
    )
    assert approval_resolved("approved", "terminal", lang) == resolved
    for said in (
        count_line({"total": 3, "entries_omitted": 2}, "", lang),
        turn_failed("provider_unavailable", "down", lang),
        approval_prompt("write_file", True, lang),
        doctor_line(lang, "keyring_ok", backend="B"),
        value_words("no display", lang),
        tray_title("waiting", 1, lang),
        describe_approval("write_file", {"path": "/w/a"}, {"kind": "new_file"}, lang)[0],
    ):
        assert "⟦" in said, said
    failed = {"error": "own words", "code": "file_not_found", "params": {"path": "/w/a"}}
    said = _pseudo(english["tool_error.file_not_found"]).replace("{path}", "/w/a")
    assert failure_text(failed, lang) == said  # a new language says the page's words too
