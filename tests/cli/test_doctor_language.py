"""``metona-tray doctor`` as a Chinese user runs it: every heading, status and piece of advice
in the terminal's language; names a server or a setting gave written out; ``--json`` keeps its
English keys and values for scripts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fakes.cli import cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama

HOSTILE_MODEL = "模型\u202egpj.exe👋:1b"


def doctor(tmp_path: Path, lang: str, *args: str) -> tuple[int, str]:
    env = cli_env(tmp_path / "metona", tmp_path / "home", lang=lang)
    result = run_cli([sys.executable, "-m", "tray_app", "doctor", *args], env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout


def test_doctor_speaks_chinese_under_a_chinese_locale(tmp_path: Path) -> None:
    with FakeOllama(models={"qwen3:8b": ["completion", "tools"], HOSTILE_MODEL: []}) as server:
        code, out = doctor(tmp_path, "zh_CN.UTF-8", "--endpoint", server.url)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("[正常] ollama 服务，地址 ") and "（版本 " in lines[0], out
    assert "       - 模型⟨U+202E⟩gpj.exe👋:1b: " in out and "\u202e" not in out
    assert any(line.startswith("[信息] 数据文件夹：") for line in lines), out
    assert any(line.startswith(("[正常] 密钥环：", "[注意] 密钥环")) for line in lines), out
    # no display in the test: the desktop section says so in Chinese
    assert "[信息] 桌面 显示：无：托盘应用无法启动；请使用 `metona-tray chat`" in lines, out
    for english in ("[ok ]", "[info]", "[warn]", "version", "desktop ", "keyring:"):
        assert english not in out, (english, out)


def test_an_unreachable_server_is_said_in_chinese_with_its_address_written_out(
    tmp_path: Path,
) -> None:
    endpoint = "http://127.0.0.1:9/例\u202e👋"
    code, out = doctor(tmp_path, "zh_CN.UTF-8", "--endpoint", endpoint)
    assert code == 1, out
    first, second = out.splitlines()[:2]
    assert first == "[失败] ollama 服务，地址 http://127.0.0.1:9/例⟨U+202E⟩👋", out
    assert second.strip().startswith("无法连接模型服务（“Cannot reach Ollama at "), out
    assert "\u202e" not in out


def test_english_and_json_stay_as_they_were(tmp_path: Path) -> None:
    with FakeOllama() as server:
        code, out = doctor(tmp_path, "en_US.UTF-8", "--endpoint", server.url)
        assert code == 0, out
        assert out.startswith(f"[ok ] ollama at {server.url} (version ")
        assert "[info] data: " in out and "[info] desktop display: none: " in out
        code, out = doctor(tmp_path, "zh_CN.UTF-8", "--json", "--endpoint", server.url)
    assert code == 0, out
    report = json.loads(out)
    assert report["server"]["reachable"] is True
    assert report["desktop"]["display"].startswith("none: the tray app cannot start")
    assert set(report["paths"]) == {"config", "data", "logs", "settings_file"}
