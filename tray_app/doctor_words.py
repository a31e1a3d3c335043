"""``metona-tray doctor``'s lines in the terminal's language. The report (``--json``) keeps its
English keys and values for scripts; only the printed lines change. A value the app wrote in a
fixed sentence is said in Chinese; anything a server, the system or a setting gave is written
out (``⟨U+202E⟩``) so it cannot reorder or hide the line."""

from __future__ import annotations

import re

from tray_app.i18n import language_of, lookup, written_out
from tray_app.web_files import locale_texts


def chinese(language: str) -> bool:
    return language_of(language) == "zh-CN"


#: The keyring library's reason is quoted up to this many characters (its message, not ours).
MAX_KEYRING_DETAIL = 300

LINES = {
    "en": {
        "ok": "[ok ]",
        "fail": "[FAIL]",
        "warn": "[warn]",
        "info": "[info]",
        "server": "{kind} at {endpoint}",
        "version": " (version {version})",
        "unknown_caps": "unknown ({why})",
        "tool_mode_prompt": "; tools via prompt",
        "tool_mode_off": "; tools off",
        "no_models": "No model installed. Pull one: ollama pull qwen3:8b",
        "server_error": "{why}",
        "keyring_locked": "keyring: {backend} is locked; the app asks for its password only when"
        " you save a key, and reads stored keys once it is unlocked (unlock it at login)",
        "keyring_missing": "keyring: {backend} has no keyring yet; saving a key asks you to"
        " choose a password for a new one",
        "keyring_ok": "keyring: {backend} (API keys are stored there)",
        "keyring_off": "keyring: {backend} cannot keep keys; API keys are kept for the session"
        " only",
        "keyring_says": "keyring says: \u201c{detail}\u201d",
        "path": "{name}: {value}",
        "desktop": "desktop {name}: {value}",
    },
    "zh-CN": {
        "ok": "[正常]",
        "fail": "[失败]",
        "warn": "[注意]",
        "info": "[信息]",
        "server": "{kind} 服务，地址 {endpoint}",
        "version": "（版本 {version}）",
        "unknown_caps": "未知（“{why}”）",
        "tool_mode_prompt": "；通过提示词使用工具",
        "tool_mode_off": "；工具已关闭",
        "no_models": "还没有安装模型。请先下载一个：ollama pull qwen3:8b",
        "server_error": "{cause}（“{why}”）",
        "keyring_locked": "密钥环：{backend} 已锁定；应用只在您保存密钥时请求它的密码，"
        "解锁后才会读取已保存的密钥（登录时解锁即可）",
        "keyring_missing": "密钥环：{backend} 还没有密钥环；保存密钥时会请您为新的密钥环设置密码",
        "keyring_ok": "密钥环：{backend}（API 密钥保存在这里）",
        "keyring_off": "密钥环：{backend} 无法保存密钥；API 密钥只在本次运行中保留",
        "keyring_says": "keyring 库说：“{detail}”",
        "path": "{name}：{value}",
        "desktop": "桌面 {name}：{value}",
    },
}

#: The report's path and desktop keys, named in Chinese.
NAME_ZH = {
    "config": "配置文件夹",
    "data": "数据文件夹",
    "logs": "日志文件夹",
    "settings_file": "设置文件",
    "available": "可用",
    "reason": "原因",
    "display": "显示",
    "gui_backend": "窗口后端",
    "tray": "托盘",
    "tray_hint": "托盘提示",
    "notifications": "通知",
    "notification_buttons": "通知按钮",
    "hotkey": "快捷键",
    "hotkey_hint": "快捷键提示",
    "hotkey_state": "快捷键状态",
    "start_at_login": "登录时启动",
}

#: The fixed sentences of the desktop checks (``tray_app.desktop.checks``), in Chinese.
VALUE_ZH = {
    "True": "是",
    "False": "否",
    "yes": "是",
    "no": "否",
    "on": "开",
    "off": "关",
    "unknown": "未知",
    "not available": "不可用",
    "no display": "没有显示器",
    "StatusNotifierItem host found (AppIndicator backend; a click opens the menu)": "找到了"
    " StatusNotifierItem 托盘宿主（AppIndicator 后端；点击图标打开菜单）",
    "XEmbed system tray found (GTK StatusIcon; a click toggles the popup)": "找到了 XEmbed 系统托盘"
    "（GTK StatusIcon；点击图标打开或关闭窗口）",
    "desktop extras not installed": "未安装桌面组件",
    "none: the tray app cannot start; use `metona-tray chat`": "无：托盘应用无法启动；"
    "请使用 `metona-tray chat`",
    "no tray host found": "没有找到托盘宿主",
    "unknown (no X11 display)": "未知（没有 X11 显示）",
    "no D-Bus session bus: no notifications": "没有 D-Bus 会话总线：无法发送通知",
    "No tray host found: the app still runs; open it with the hotkey or `metona-tray "
    "--toggle`, or start a tray (e.g. trayer, stalonetray, a panel applet).": "没有找到托盘宿主："
    "应用照常运行；可用快捷键或 `metona-tray --toggle` 打开，或启动一个托盘"
    "（例如 trayer、stalonetray 或面板小程序）。",
    # the hotkey's hints (``tray_app.desktop.hotkey``: WAYLAND_HINT, PORTAL_HINT, macOS's)
    "Wayland does not let apps grab global keys. Bind the command `metona-tray --toggle` to "
    "a shortcut in your desktop's keyboard settings (GNOME: Settings > Keyboard > Custom "
    "Shortcuts; KDE: System Settings > Shortcuts > Custom Shortcuts).": "Wayland 不允许应用占用"
    "全局快捷键。请在桌面的键盘设置中把命令 `metona-tray --toggle` 绑定到一个快捷键"
    "（GNOME：设置 > 键盘 > 自定义快捷键；KDE：系统设置 > 快捷键 > 自定义快捷键）。",
    "Registered through the desktop's GlobalShortcuts portal: the desktop may ask once to "
    "confirm it, and can change it in its own shortcut settings.": "通过桌面的 GlobalShortcuts"
    " 门户（portal）注册：桌面可能会请你确认一次，之后也可以在它自己的快捷键设置中更改。",
    "Needs a modifier other than Shift/Option; no Accessibility permission is required for "
    "Carbon hot keys.": "需要 Shift/Option 以外的修饰键；Carbon 快捷键不需要“辅助功能”权限。",
    "GNOME shows tray icons only with the 'AppIndicator and KStatusNotifierItem Support' "
    "extension (Debian/Ubuntu: gnome-shell-extension-appindicator); enable it and log in "
    "again.": "GNOME 只有在安装“AppIndicator and KStatusNotifierItem Support”扩展后才显示托盘"
    "图标（Debian/Ubuntu：gnome-shell-extension-appindicator）；启用它并重新登录。",
}


#: The desktop checks' sentences around a value (a shortcut, a server's name, the system's own
#: words), in Chinese; each pattern is anchored with at most two open groups, and ``v`` is
#: said again (once, not recursively) when it is itself a fixed sentence or one of these.
PATTERN_ZH = [
    (
        re.compile(r"(?P<v>.+) is free \(the app grabs it at start\)"),
        "{v} 未被占用（应用启动时占用它）",
    ),
    (re.compile(r"(?P<v>.+) \(the app registers it at start\)"), "{v}（应用启动时注册它）"),
    (re.compile(r"(?P<v>.+) registered by the running app"), "{v} 已由运行中的应用注册"),
    (
        re.compile(r"(?P<v>.+) is taken by another app; choose another shortcut"),
        "{v} 已被其他应用占用；请换一个快捷键",
    ),
    (
        re.compile(r"not registered by the running app: (?P<v>.*)"),
        "运行中的应用没能注册它：{v}",
    ),
    (
        re.compile(r"the hotkey (?P<v>.+) could not be registered: (?P<w>.*)"),
        "无法注册快捷键 {v}（“{w}”）",
    ),
    (re.compile(r"(?P<v>.+) could not be tried \((?P<w>.*)\)"), "无法试用 {v}（“{w}”）"),
    (re.compile(r"unusable setting: (?P<v>.*)"), "设置无法使用（“{v}”）"),
    (re.compile(r"no notification server \((?P<v>.*)\)"), "没有通知服务（“{v}”）"),
    (re.compile(r"(?P<v>.+): Approve/Deny/Open buttons"), "{v}：有“批准/拒绝/打开”按钮"),
    (
        re.compile(r"(?P<v>.+): no buttons: a click opens the popup"),
        "{v}：没有按钮，点击通知会打开窗口",
    ),
    (re.compile(r"missing: (?P<v>.*)"), "缺少：{v}"),
    (re.compile(r"unknown \((?P<v>.*)\)"), "未知（“{v}”）"),
]


def doctor_line(language: str, key: str, **fields: object) -> str:
    """One of the doctor's lines; ``fields`` are written out first."""
    shown = {name: written_out(value) for name, value in fields.items()}
    return LINES["zh-CN" if chinese(language) else "en"][key].format(**shown)


def name_word(name: str, language: str) -> str:
    return NAME_ZH.get(name, name) if chinese(language) else name


def value_words(value: object, language: str, *, nested: bool = True) -> str:
    """A desktop check's value: its Chinese when it is a fixed sentence; else written out.
    ``nested``: a pattern's ``v`` (the running app's own reason) is said in Chinese too."""
    text = str(value)
    if not chinese(language):
        return text
    if text in VALUE_ZH:
        return VALUE_ZH[text]
    for pattern, template in PATTERN_ZH:
        if (found := pattern.fullmatch(text)) is not None:
            inner = found["v"]
            if nested:
                inner = value_words(inner, language, nested=False)
            return template.format(v=inner, w=found.groupdict().get("w"))
    return text


def server_error(code: str, message: object, language: str) -> str:
    """Why the server did not answer: English as the provider said it; in Chinese its cause by
    code (``TURN_FAILED_ZH``, the page's ``error.<code>``), the provider's words quoted."""
    cause = lookup(f"terminal.error.{code}", language) or lookup(f"error.{code}", language)
    cause = cause or lookup("error.provider_error", language)
    return doctor_line(language, "server_error", cause=cause, why=message)


def keyring_cause(code: object, detail: object, language: str) -> str:
    """Why the keyring keeps no keys: the code's words (the page's ``keyring.<code>``) and the
    keyring library's text quoted after them, cut and written out; an unknown reason is only
    quoted."""
    words = locale_texts("zh-CN" if chinese(language) else "en")
    said = words.get(f"keyring.{code}", "") if isinstance(code, str) else ""
    if not detail:
        return said
    text = str(detail)
    if len(text) > MAX_KEYRING_DETAIL:
        text = text[: MAX_KEYRING_DETAIL - 1] + "…"
    quoted = doctor_line(language, "keyring_says", detail=text)
    gap = "" if chinese(language) else " "  # a Chinese sentence ends in 。, no space after
    return f"{said}{gap}{quoted}" if said else quoted
