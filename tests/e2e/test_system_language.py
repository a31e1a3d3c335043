"""The language setting "system" means one language everywhere: the real popup (WebKitGTK)
speaks the one the tray menu speaks. WebKitGTK reads only LC_CTYPE's locale (en-US when it is
not installed), while the tray, notifications and terminal read LC_ALL, LC_MESSAGES, LANG and
LANGUAGE; before, a Chinese tray menu opened an English popup. Under a Chinese locale, code
in the popup keeps its columns (fontconfig's Chinese answer for a missing monospace family is
a proportional face)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_setup import app_home, app_settings, running
from tests.e2e.desktop_env import ROOT, AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]


class ChineseMessagesApp(AppProcess):
    """A person whose messages are in Chinese and whose formats are English (LC_MESSAGES)."""

    @property
    def env(self) -> dict[str, str]:
        env = super().env
        for name in ("LC_ALL", "LANGUAGE", "LC_CTYPE"):
            env.pop(name, None)
        env.update(LANG="en_US.UTF-8", LC_MESSAGES="zh_CN.UTF-8")
        return env


@pytest.fixture
def chinese_app(
    desktop: DesktopEnv, fake: FakeOllama, workspace: Path, tmp_path: Path
) -> Iterator[AppProcess]:
    settings = app_settings(fake.url, workspace, language="system")
    yield from running(ChineseMessagesApp(desktop, app_home(tmp_path, settings), "system-lang"))


def test_system_language_is_the_trays_language_in_the_popup(
    desktop: DesktopEnv, chinese_app: AppProcess
) -> None:
    app = chinese_app
    assert "设置" in app.state()["tray_menu"], "the tray menu speaks Chinese"
    app.send("show")
    wait_for(lambda: app.state()["visible"], 30, "the popup")
    wait_for(
        lambda: app.eval_js("document.querySelector('#app').dataset.checked === 'true'"),
        30,
        "the page",
    )
    assert app.eval_js("document.documentElement.lang") == "zh-CN"
    placeholder = app.eval_js("document.querySelector('#prompt').placeholder")
    chinese = json.loads((ROOT / "web" / "locales" / "zh-CN.json").read_text(encoding="utf-8"))
    assert placeholder == chinese["composer.placeholder"]
    desktop.screenshot("system-language-zh")


# Widths of narrow and wide letters in the font a code block really uses, and its name.
CODE_COLUMNS = """(() => {
  const pre = document.createElement('pre');
  const width = (text) => {
    const code = document.createElement('code');
    code.style.display = 'inline-block';
    code.textContent = text;
    pre.append(code);
    return code.getBoundingClientRect().width;
  };
  document.querySelector('#log').append(pre);
  const found = [width('iiiiiiii'), width('MMMMMMMM')];
  pre.remove();
  return found;
})()"""


class ChineseLocaleApp(AppProcess):
    """A person whose whole locale is Chinese: fontconfig matches for Chinese."""

    @property
    def env(self) -> dict[str, str]:
        env = super().env
        env.update(LANG="zh_CN.UTF-8", LANGUAGE="zh_CN", LC_ALL="zh_CN.UTF-8")
        return env


@pytest.fixture
def chinese_locale_app(
    desktop: DesktopEnv, fake: FakeOllama, workspace: Path, tmp_path: Path
) -> Iterator[AppProcess]:
    settings = app_settings(fake.url, workspace, language="system")
    yield from running(ChineseLocaleApp(desktop, app_home(tmp_path, settings), "zh-locale"))


def test_code_keeps_its_columns_in_a_chinese_popup(
    desktop: DesktopEnv, chinese_locale_app: AppProcess
) -> None:
    """Under a Chinese locale, fontconfig answered the monospace families that are not
    installed with the proportional Noto Sans CJK SC, and code in the real popup lost its
    columns."""
    app = chinese_locale_app
    app.send("show")
    wait_for(lambda: app.state()["visible"], 30, "the popup")
    wait_for(
        lambda: app.eval_js("document.documentElement.lang === 'zh-CN'"), 30, "the Chinese page"
    )
    narrow, wide = app.eval_js(CODE_COLUMNS)
    assert narrow > 0 and abs(narrow - wide) < 0.5, f"iiiiiiii {narrow} px, MMMMMMMM {wide} px"
