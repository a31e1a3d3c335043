"""``metona-tray changes --turns`` and ``metona-tray undo --turn`` as a user runs them.

Two real ``metona-tray chat`` turns against the fake Ollama server change files with hostile
names (CJK, emoji, a bidi override): the first creates a file; the second creates one, edits
one, moves one and deletes a folder. The user then edits a file by hand. Undoing the second turn
puts back everything else, newest first, leaves the user's edit alone and says why; ``--force``
undoes it after all; the first turn's change is never touched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import app_runner
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.base.paths import AppPaths
from tray_app.store.settings import Settings, save_settings

NEW = "报告 📊 \u202eevil.txt"  # CJK, emoji and a bidi override
EDITED = "笔记 📝.txt"
MOVED_FROM, MOVED_TO = "草稿 ✏️.md", "定稿 ✅.md"
FOLDER = "旧资料 🗂"
FIRST = "first turn's file.txt"


@pytest.fixture
def cli(metona_home: Path, tmp_path: Path) -> Any:
    return app_runner(metona_home, tmp_path)


@pytest.fixture
def work(cli: Any, fake_ollama: FakeOllama, app_paths: AppPaths, tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / EDITED).write_text("旧内容 old\n", encoding="utf-8")
    (work / MOVED_FROM).write_text("# 草稿\n", encoding="utf-8")
    (work / FOLDER / "内层").mkdir(parents=True)
    (work / FOLDER / "内层" / "数据 🧾.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (work / FOLDER / "说明.txt").write_text("保留\n", encoding="utf-8")
    save_settings(Settings(allowed_dirs=[str(work)]), app_paths.settings_file)
    fake_ollama.script(
        tool_turn([("write_file", {"path": FIRST, "content": "from the first turn\n"})]),
        text_turn("好的"),
        tool_turn(
            [
                ("write_file", {"path": NEW, "content": "新文件 ✨\n"}),
                (
                    "edit_file",
                    {"path": EDITED, "edits": [{"old_text": "旧内容", "new_text": "新内容"}]},
                ),
            ]
        ),
        tool_turn([("move_file", {"source": MOVED_FROM, "destination": MOVED_TO})]),
        tool_turn([("delete_file", {"path": FOLDER, "recursive": True})]),
        text_turn("完成 ✅"),
    )
    for prompt in ("先建一个文件", "整理我的文件 🗂 \u202e please"):
        done = cli(
            "chat",
            "--json",
            "--yes-all",
            "--model",
            "qwen3:8b",
            "--endpoint",
            fake_ollama.url,
            "--workspace",
            str(work),
            prompt,
        )
        assert done.returncode == 0, done.stderr
    assert (work / NEW).exists() and (work / MOVED_TO).exists() and not (work / FOLDER).exists()
    assert (work / EDITED).read_text(encoding="utf-8") == "新内容 old\n"
    return work


def turns(cli: Any) -> list[dict[str, Any]]:
    done = cli("changes", "--turns", "--json")
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


def test_the_turns_are_listed_newest_first_with_their_question(cli: Any, work: Path) -> None:
    second, first = turns(cli)
    assert second["turn_prompt"] == "整理我的文件 🗂 \u202e please"
    assert len(second["changes"]) == 4 and second["undoable"] == 4
    assert first["turn_prompt"] == "先建一个文件" and len(first["changes"]) == 1
    text = cli("changes", "--turns")
    lines = text.stdout.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith(second["turn_id"]) and "4 changes, 4 can be undone" in lines[0]
    assert "“整理我的文件 🗂 ⟨U+202E⟩ please”" in lines[0] and "\u202e" not in text.stdout
    zh = cli("changes", "--turns", lang="zh_CN.UTF-8")
    assert "4 项更改，4 项可撤销" in zh.stdout.splitlines()[0], zh.stdout
    listed = json.loads(cli("changes", "--json").stdout)
    assert {e["turn_id"] for e in listed} == {first["turn_id"], second["turn_id"]}


def test_undo_a_turn_leaves_a_file_edited_since_then_force_undoes_it(cli: Any, work: Path) -> None:
    second, first = turns(cli)
    (work / EDITED).write_text("the user's own edit ✍️\n", encoding="utf-8")

    done = cli("undo", "--turn", "last")
    assert done.returncode == 1, (done.stdout, done.stderr)
    out, err = done.stdout.splitlines(), done.stderr.splitlines()
    assert out[0] == f"Undid 3 of 4 changes of turn {second['turn_id']}", out
    assert [line.split()[0] for line in out[1:]] == ["recreated", "moved", "removed"], out
    assert len(err) == 2, err
    shown = str(work / EDITED)
    assert err[0] == f"left {shown}: {shown} was modified after the agent's change", err
    assert "--force" in err[1] and second["turn_id"] in err[1], err
    # everything else is back as it was before the turn; the user's edit is untouched
    assert not (work / NEW).exists() and not (work / MOVED_TO).exists()
    assert (work / MOVED_FROM).read_text(encoding="utf-8") == "# 草稿\n"
    assert (work / FOLDER / "内层" / "数据 🧾.csv").read_text(encoding="utf-8") == "a,b\n1,2\n"
    assert (work / FOLDER / "说明.txt").read_text(encoding="utf-8") == "保留\n"
    assert (work / EDITED).read_text(encoding="utf-8") == "the user's own edit ✍️\n"
    assert (work / FIRST).exists()

    forced = cli("undo", "--turn", second["turn_id"][:8], "--force", "--json")
    assert forced.returncode == 0, forced.stderr
    report = json.loads(forced.stdout)
    assert report["undone"] == 1 and report["left"] == 0 and report["already"] == 3
    assert report["turn_prompt"] == "整理我的文件 🗂 \u202e please"
    assert (work / EDITED).read_text(encoding="utf-8") == "旧内容 old\n"
    assert (work / FIRST).read_text(encoding="utf-8") == "from the first turn\n"
    # The user's version was kept first: "undo anyway" is a change of its own, undone here.
    newest = json.loads(cli("changes", "--json").stdout)[0]
    assert (newest["tool"], newest["path"]) == ("undo_anyway", str(work / EDITED))
    assert newest["undoable"] and newest["turn_id"] is None
    back = cli("undo", "--last")
    assert back.returncode == 0, back.stderr
    assert (work / EDITED).read_text(encoding="utf-8") == "the user's own edit ✍️\n"

    again = cli("undo", "--turn", second["turn_id"])
    assert again.returncode == 1
    assert again.stderr.strip() == (
        f"metona-tray undo: every change of turn {second['turn_id']} was already undone"
    )
    assert first["turn_id"] != second["turn_id"]


def test_in_chinese_the_report_and_its_refusals_are_chinese(cli: Any, work: Path) -> None:
    (work / EDITED).write_text("用户的修改\n", encoding="utf-8")
    done = cli("undo", "--turn", "last", lang="zh_CN.UTF-8")
    assert done.returncode == 1
    assert done.stdout.startswith("已撤销轮次 ") and "4 项更改中的 3 项" in done.stdout
    assert "已移回" in done.stdout and "已重新创建" in done.stdout
    assert "⟨U+202E⟩" in done.stdout and "\u202e" not in done.stdout
    assert "又被修改过" in done.stderr and "--force" in done.stderr, done.stderr
    missing = cli("undo", "--turn", "t_没有这一轮", lang="zh_CN.UTF-8")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "metona-tray undo: 无法撤销：撤销日志中没有来自轮次 t_没有这一轮 的更改"
    )


def test_a_later_change_left_keeps_the_earlier_ones_of_the_same_path(
    cli: Any, fake_ollama: FakeOllama, app_paths: AppPaths, tmp_path: Path
) -> None:
    """Create, then edit one file in a turn; the user edits it after: neither is undone (the
    create's undo would delete the user's edit), and the report says why for each."""
    work = tmp_path / "work"
    work.mkdir()
    save_settings(Settings(allowed_dirs=[str(work)]), app_paths.settings_file)
    fake_ollama.script(
        tool_turn([("write_file", {"path": "新.txt", "content": "一\n"})]),
        tool_turn([("write_file", {"path": "新.txt", "content": "二\n"})]),
        text_turn("好"),
    )
    chat = cli(
        "chat", "--yes-all", "--model", "qwen3:8b", "--endpoint", fake_ollama.url,
        "--workspace", str(work), "写两次",
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    # The turn's end says how to take it all back, with its id.
    (hint,) = [x for x in chat.stderr.splitlines() if "metona-tray undo --turn" in x]
    assert hint.startswith("(this turn made 2 changes that can be undone: "), hint
    turn_id = hint.rsplit(" ", 1)[1].rstrip(")")
    (work / "新.txt").write_text("mine\n", encoding="utf-8")
    done = cli("undo", "--turn", turn_id)
    assert done.returncode == 1
    err = done.stderr.splitlines()
    assert "was modified after the agent's change" in err[0], err
    assert "a later change to" in err[1] and "so this one is left too" in err[1], err
    assert "1 of them changed after the turn" in err[2], err
    assert (work / "新.txt").read_text(encoding="utf-8") == "mine\n"
    forced = cli("undo", "--turn", "last", "--force")
    assert forced.returncode == 0, forced.stderr
    assert not (work / "新.txt").exists()
