"""A chat option the user mistyped, as the real ``metona-tray chat`` answers it (a subprocess, in
English and Chinese): the reason in the terminal's language, the typed value written out
(``⟨U+202E⟩``, ``⟨U+000A⟩``), never a Python escape such as ``'\\u202e'``; exit code 2."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.cli import cli_env, run_cli

TYPED = "十\u202eab\n🔟"  # CJK, a bidi override, a line break, an emoji
SHOWN = "十⟨U+202E⟩ab⟨U+000A⟩🔟"
WORDS = {
    "en_US.UTF-8": (
        "must be a whole number between 1 and 100, not \u201c{shown}\u201d",
        "must be between 1 and 100, not 100000",
        ": not a folder",
    ),
    "zh_CN.UTF-8": (
        "必须是 1 到 100 之间的整数，而不是“{shown}”",
        "必须在 1 到 100 之间，而不是 100000",
        "：不是文件夹",
    ),
}


def _chat(metona_home: Path, tmp_path: Path, lang: str, *args: str) -> tuple[int, str]:
    env = cli_env(metona_home, tmp_path / "user", lang=lang)
    done = run_cli([sys.executable, "-m", "tray_app", "chat", *args, "hi"], env)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stderr


@pytest.mark.parametrize("lang", list(WORDS))
def test_a_mistyped_number_option_is_explained_in_the_terminals_language(
    metona_home: Path, tmp_path: Path, lang: str
) -> None:
    not_whole, out_of_range, _ = WORDS[lang]
    code, err = _chat(metona_home, tmp_path, lang, "--max-rounds", TYPED)
    assert code == 2, err
    (line,) = [x for x in err.splitlines() if "--max-rounds:" in x]
    assert line.endswith(not_whole.format(shown=SHOWN)), line
    assert "\\u202e" not in err and "\u202e" not in err and "'" not in line, err

    code, err = _chat(metona_home, tmp_path, lang, "--max-rounds", "100000")
    assert code == 2, err
    assert err.rstrip().endswith(out_of_range), err


@pytest.mark.parametrize("lang", list(WORDS))
def test_a_workspace_that_is_not_a_folder_is_named_in_the_terminals_language(
    metona_home: Path, tmp_path: Path, lang: str
) -> None:
    missing = tmp_path / "不存在 📁 \u202eevil"
    code, err = _chat(metona_home, tmp_path, lang, "--workspace", str(missing))
    assert code == 2, err
    shown = str(missing).replace("\u202e", "⟨U+202E⟩")
    assert err.rstrip().endswith(f"--workspace {shown}{WORDS[lang][2]}"), err
    assert "\u202e" not in err
