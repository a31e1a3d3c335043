"""A model's answer and thinking shown in a terminal cannot drive it: escape sequences, carriage
returns and direction controls are written out (the real CLI with its stdout on a real pty);
into a pipe the answer stays byte for byte, for scripts."""

from __future__ import annotations

import os
import pty
import select
import subprocess
from pathlib import Path

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn

HOSTILE = "标题\x1b]0;pwned\x07 清屏\x1b[2J 覆盖\r假的 \u202egpj.exe 🎉\tTAB"
THINKING = "想想\x1b[31m红\x1b[0m"


def _on_a_pty(command: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Run with stdout on a pty (a terminal) and stderr piped; both read to the end."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE, env=env
    )
    os.close(follower)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([leader], [], [], 90)
        if not ready:
            proc.kill()
            raise AssertionError(f"no output for 90 s: {seen!r}")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8")
    return proc.wait(timeout=90), seen.decode("utf-8"), err


def test_a_terminal_gets_the_answers_escapes_written_out(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    fake_ollama.script(text_turn(HOSTILE, thinking=THINKING))
    env = cli_env(metona_home, tmp_path / "home", lang="zh_CN.UTF-8")
    command = chat_command(fake_ollama.url, tmp_path, "说点什么")
    code, out, err = _on_a_pty(command, env)
    assert code == 0, err
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out, repr(out)
    assert "标题⟨U+001B⟩]0;pwned⟨U+0007⟩ 清屏⟨U+001B⟩[2J 覆盖⟨U+000D⟩假的 ⟨U+202E⟩gpj.exe 🎉" in out
    assert "🎉\tTAB" in out  # a tab is layout, not an attack
    assert "想想⟨U+001B⟩[31m红⟨U+001B⟩[0m" in err and "\x1b" not in err, repr(err)


def test_a_pipe_gets_the_answer_byte_for_byte(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    fake_ollama.script(text_turn(HOSTILE))
    env = cli_env(metona_home, tmp_path / "home", lang="en_US.UTF-8")
    result = run_cli(chat_command(fake_ollama.url, tmp_path, "say something"), env)
    assert result.returncode == 0, result.stderr
    assert HOSTILE.replace("\r", "\n") in result.stdout  # (text mode reads CR as a line end)


def test_a_windows_line_end_stays_a_line_end_and_a_lone_cr_is_written_out() -> None:
    from tray_app.terminal_errors import answer_for_terminal

    assert answer_for_terminal("一\r\n二\r三\t😀") == "一\n二⟨U+000D⟩三\t😀"
