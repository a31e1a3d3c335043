"""Every string the tray shows exists in English and Simplified Chinese, and the menu speaks
the language the settings choose."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tray_app.base.events import SettingsUpdated, StateChanged
from tray_app.desktop.tray.icons import tray_title
from tray_app.desktop.tray.tray import TrayState, reduce_state
from tray_app.i18n import settings_language as start_language
from tray_app.i18n import t

ROOT = Path(__file__).resolve().parents[2] / "tray_app" / "desktop"
LOCALES = ROOT.parents[1] / "web" / "locales"


def _section(lang: str, prefix: str) -> dict[str, str]:
    texts = json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))
    return {k.removeprefix(prefix): v for k, v in texts.items() if k.startswith(prefix)}


def tray_text(lang: str, key: str, **fields: object) -> str:
    return t(f"tray.{key}", lang, **fields)


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("prefix", ["tray.", "notify."], ids=["tray", "notifications"])
def test_both_languages_have_every_string(prefix: str) -> None:
    en, zh = _section("en", prefix), _section("zh-CN", prefix)
    assert en
    assert set(en) == set(zh)
    for key in en:
        assert en[key].strip() and zh[key].strip(), key
        assert placeholders(zh[key]) == placeholders(en[key]), key
        # Chinese text has no space between Chinese characters ("是否允许 写入文件").
        assert re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", zh[key]) is None, key


def test_every_key_the_tray_uses_exists() -> None:
    source = (ROOT / "tray" / "tray.py").read_text(encoding="utf-8")
    used = set(re.findall(r'_(?:t|label)\("(\w+)"', source))
    used |= set(re.findall(r'_later\([^)]*?"(\w+)"\)', source))
    assert used, "no keys found: has the tray stopped using the table?"
    assert used <= set(_section("en", "tray.")), used - set(_section("en", "tray."))
    # No English label is left outside the table.
    assert re.search(r'item\(\s*"[A-Z]', source) is None


def test_the_menu_follows_the_language_setting() -> None:
    state = reduce_state(TrayState(), [SettingsUpdated(settings={"language": "zh-CN"})])
    assert state.language == "zh-CN"
    assert tray_text(state.language, "undo_last") == "撤销上一次更改"
    assert tray_text(state.language, "pending", n=2) == "待确认（2）"
    state = reduce_state(state, [StateChanged(state="waiting", pending=1)])
    assert tray_title(state.state, state.pending, state.language) == "Metona Tray：1 个操作等待确认"
    english = reduce_state(state, [SettingsUpdated(settings={"language": "en"})])
    assert tray_title(english.state, english.pending, english.language) == (
        "Metona Tray: 1 approval waiting"
    )


def test_the_first_menu_speaks_the_settings_language_before_core_starts(tmp_path: Path) -> None:
    """Read from the settings file at start (Core is not running yet): the user's language."""
    settings = tmp_path / "settings.json"
    english_env = {"LANG": "en_US.UTF-8"}
    settings.write_text(json.dumps({"language": "zh-CN", "endpoint": "x"}), encoding="utf-8")
    assert start_language(settings, english_env) == "zh-CN"
    settings.write_text(json.dumps({"language": "system"}), encoding="utf-8")
    assert start_language(settings, {"LANG": "zh_CN.UTF-8"}) == "zh-CN"
    assert start_language(settings, english_env) == "en"
    # No file, a broken one, a hostile one: the system's language, never an error.
    assert start_language(tmp_path / "missing.json", {"LC_ALL": "zh_TW"}) == "zh-CN"
    for junk in (b"\xff\xfe{", b"[" * 100_000, b'{"language": "de"}', b'{"language": ["zh-CN"]}'):
        settings.write_bytes(junk)
        assert start_language(settings, english_env) == "en"
    settings.write_bytes(b'{"language": "zh-CN", "pad": "' + b"x" * (2 * 1024 * 1024) + b'"}')
    assert start_language(settings, english_env) == "en"  # not the app's file: not read whole


def test_the_desktop_app_reads_the_start_language_from_its_settings_file() -> None:
    source = (ROOT / "app.py").read_text(encoding="utf-8")
    assert "Tray(self, language=settings_language(self.paths.settings_file))" in source


@pytest.mark.parametrize(
    ("language", "title", "body"),
    [
        ("en", "Nothing undone", "nothing to undo"),
        ("zh-CN", "没有可撤销的更改", "没有可以撤销的更改"),
    ],
)
def test_undo_last_with_nothing_to_undo_says_why_in_the_menus_language(
    language: str, title: str, body: str
) -> None:
    """The tray's "Undo last change" on an empty journal: Core's coded refusal, not its
    English sentence, in a Chinese notification."""
    from types import SimpleNamespace

    from tray_app.base.errors import UndoFailed
    from tray_app.desktop.tray.tray import Tray

    reports: list[tuple[str, str]] = []

    def undo_last() -> None:
        raise UndoFailed("nothing to undo", code="undo_nothing")

    stand_in = SimpleNamespace(
        state=TrayState(language=language),
        _core=SimpleNamespace(undo_last=undo_last),
        _actions=SimpleNamespace(report=lambda t, m: reports.append((t, m))),
        _later=lambda fn, what: fn(),
    )
    stand_in._t = lambda key, **args: tray_text(language, key, **args)
    Tray._undo(stand_in)  # type: ignore[arg-type]
    assert reports == [(title, body)]


def _menu_failure(language: str, exc: Exception) -> list[tuple[str, str]]:
    """The tray's own ``_later`` runs a menu action that raises ``exc``: its notification."""
    from types import SimpleNamespace

    from tray_app.desktop.tray.tray import Tray

    reports: list[tuple[str, str]] = []

    def fail() -> None:
        raise exc

    stand_in = SimpleNamespace(
        state=TrayState(language=language),
        _actions=SimpleNamespace(report=lambda t, m: reports.append((t, m))),
        _worker=SimpleNamespace(submit=lambda fn: fn()),
    )
    stand_in._t = lambda key, **args: tray_text(language, key, **args)
    Tray._later(stand_in, fail, "new_chat")  # type: ignore[arg-type]
    return reports


def test_a_failed_menu_action_says_why_in_the_menus_language() -> None:
    """Not the app's English ``str(exc)`` in a Chinese notification: a coded failure in its
    code's Chinese; another error's class in Chinese with its words quoted, controls written
    out; English keeps the app's sentence."""
    from tray_app.base.errors import SandboxViolation, StoreError

    locked = StoreError("the chat store is locked by 另一个 process \u202e")
    assert _menu_failure("zh-CN", locked) == [
        (
            "新对话失败",
            "无法读取或保存对话历史（“the chat store is locked by 另一个 process ⟨U+202E⟩”）",
        )
    ]
    refused = SandboxViolation(
        "/etc is outside the allowed folders", code="path_outside", path="/etc", roots="/home/用户"
    )
    ((title, body),) = _menu_failure("zh-CN", refused)
    assert (title, body) == ("新对话失败", "/etc 不在允许的文件夹内（/home/用户）")
    assert _menu_failure("en", locked) == [
        ("New chat failed", "the chat store is locked by 另一个 process ⟨U+202E⟩")
    ]
    assert _menu_failure("zh-CN", RuntimeError("x" * 10_000))[0][1].endswith("…”）")


def test_every_error_class_has_a_chinese_sentence_for_the_tray() -> None:
    from tray_app.base.errors import ERROR_CODES, INTERNAL

    said = {k for k in _section("zh-CN", "tray.error.") if "." not in k}
    assert said == {*ERROR_CODES.values(), INTERNAL}


def test_settings_that_cannot_be_saved_are_said_whole_in_the_menus_language(
    tmp_path: Path,
) -> None:
    """A real settings save onto a folder (EISDIR): the notification says the coded problem in
    Chinese, the OS's reason in words, the path's direction control written out."""
    import pytest

    from tray_app.base.errors import StoreError
    from tray_app.desktop.tray.tray_failure import failure_detail
    from tray_app.store.settings import Settings, save_settings

    target = tmp_path / "设置 \u202e" / "settings.json"
    target.mkdir(parents=True)
    with pytest.raises(StoreError) as caught:
        save_settings(Settings(), target)
    said = failure_detail(caught.value, "zh-CN")
    where = f"{tmp_path}/设置 ⟨U+202E⟩/settings.json"
    assert said == f"设置无法保存到 {where}（它是文件夹）；在应用退出前仍然有效。"
    english = failure_detail(caught.value, "en")  # English keeps the app's sentence
    assert english.startswith(f"Cannot save the settings to {where}: ")
