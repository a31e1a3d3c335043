"""``metona-tray doctor`` says why the keyring keeps no keys in the terminal's language: the
keyring library's reason mapped to a code and said in words (en and zh-CN), the library's own
text quoted after them, cut and written out; a reason no table knows stays only quoted. Run as
a user runs it, with keyring's own ``PYTHON_KEYRING_BACKEND`` choosing the backend."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.fakes.cli import cli_env, run_cli
from tests.fakes.hostile_keyring import HOSTILE_REASON
from tray_app.cli.doctor_lines import MAX_KEYRING_DETAIL, keyring_cause
from tray_app.store.keyring_reasons import reason_code

ROOT = Path(__file__).resolve().parents[2]
FAIL = "keyring.backends.fail.Keyring"
NO_BACKEND = (  # keyring 25's own sentence (backends/fail.py)
    "No recommended backend was available. Install a recommended 3rd party backend package; "
    "or, install the keyrings.alt package if you want to use the non-recommended backends. "
    "See https://pypi.org/project/keyring for details."
)


def doctor(tmp_path: Path, lang: str, backend: str, *args: str) -> str:
    env = cli_env(tmp_path / "metona", tmp_path / "home", lang=lang)
    env.update(PYTHON_KEYRING_BACKEND=backend, PYTHONPATH=os.pathsep.join([str(ROOT)]))
    command = [sys.executable, "-m", "tray_app", "doctor", "--endpoint", "http://127.0.0.1:9"]
    result = run_cli([*command, *args], env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def keyring_lines(out: str) -> list[str]:
    """The keyring's line and the indented lines under it."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "keyring" in line or "密钥环" in line)
    end = start + 1
    while end < len(lines) and lines[end].startswith("       "):
        end += 1
    return lines[start:end]


def test_no_backend_is_said_in_chinese_with_keyrings_words_quoted(tmp_path: Path) -> None:
    said = keyring_lines(doctor(tmp_path, "zh_CN.UTF-8", FAIL))
    assert said == [
        f"[注意] 密钥环：{FAIL} 无法保存密钥；API 密钥只在本次运行中保留",
        "       此系统没有密钥环服务（Linux 上需要 gnome-keyring 或其他 Secret Service）。"
        f"keyring 库说：“{NO_BACKEND}”",
    ]


def test_no_backend_is_said_in_english_with_keyrings_words_quoted(tmp_path: Path) -> None:
    said = keyring_lines(doctor(tmp_path, "en_US.UTF-8", FAIL))
    assert said == [
        f"[warn] keyring: {FAIL} cannot keep keys; API keys are kept for the session only",
        "       There is no system keyring service here (on Linux: gnome-keyring or another "
        f"Secret Service). keyring says: \u201c{NO_BACKEND}\u201d",
    ]


def test_json_carries_the_code_and_the_librarys_text(tmp_path: Path) -> None:
    report = json.loads(doctor(tmp_path, "zh_CN.UTF-8", FAIL, "--json"))["keyring"]
    assert report["usable"] is False and report["problem"] == "no_keyring"
    assert report["causes"] == [{"code": "no_keyring", "detail": NO_BACKEND}]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("zh_CN.UTF-8", "       系统密钥环已锁定（或解锁提示被关闭）。keyring 库说：“"),
        ("en_US.UTF-8", "       The system keyring is locked (or its unlock prompt was closed). "
         "keyring says: \u201c"),
    ],
)  # fmt: skip
def test_a_locked_collection_is_said_by_its_code(tmp_path: Path, lang: str, words: str) -> None:
    said = keyring_lines(doctor(tmp_path, lang, "tests.fakes.hostile_keyring.LockedKeyring"))
    assert said[1:] == [f"{words}Failed to unlock the collection!\u201d"], said


@pytest.mark.parametrize(
    ("lang", "words"), [("zh_CN.UTF-8", "keyring 库说："), ("en_US.UTF-8", "keyring says: ")]
)
def test_an_unknown_reason_stays_quoted_cut_and_written_out(
    tmp_path: Path, lang: str, words: str
) -> None:
    out = doctor(tmp_path, lang, "tests.fakes.hostile_keyring.HostileKeyring")
    said = keyring_lines(out)
    assert len(said) == 2, said  # the reason's line break is written out: one line
    quoted = f"       {words}\u201c钥匙串坏了⟨U+202E⟩gpj.exe👋⟨U+000A⟩很长的原因"
    assert said[1].startswith(quoted), said
    assert said[1].endswith("…\u201d") and len(said[1]) < MAX_KEYRING_DETAIL + 60, said
    assert "\u202e" not in out


def test_the_table_knows_keyrings_reasons_and_nothing_else() -> None:
    assert reason_code(NO_BACKEND) == "no_keyring"
    assert (
        reason_code("The Secret Service daemon is neither running nor activatable through D-Bus")
        == "unavailable"
    )
    assert reason_code("Failed to unlock the item!") == "locked"
    assert reason_code(HOSTILE_REASON) is None
    assert reason_code("x" * 5_000 + "failed to unlock") is None  # only the start is read
    assert keyring_cause(None, None, "zh-CN") == ""
    assert (
        keyring_cause("insecure", None, "zh-CN")
        == "这里唯一的密钥环会把密钥以明文写入文件，因此不使用它。"
    )
