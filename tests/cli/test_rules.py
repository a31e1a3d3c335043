"""``metona-tray rules`` and the rules' force, as a user runs them: real subprocesses.

Rules are added, listed (in English and Chinese, and as JSON) and removed; bad ones are refused
with the reason; a deny rule holds under ``chat --yes-all``; an allow rule lets a write run
without asking (the terminal with no one to ask denies everything else); a settings file edited
by hand with a symlinked folder, ``..`` and a huge list grants no more than it says.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import app_runner
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.base.paths import AppPaths
from tray_app.store.settings import Settings, save_settings

FOLDER = "项目 🚀"


@pytest.fixture
def cli(metona_home: Path, tmp_path: Path) -> Any:
    return app_runner(metona_home, tmp_path)


def rules(cli: Any) -> list[dict[str, Any]]:
    done = cli("rules", "list", "--json")
    assert done.returncode == 0, done.stderr
    listed: list[dict[str, Any]] = json.loads(done.stdout)["rules"]
    return listed


def test_add_list_and_remove_in_both_languages(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / FOLDER
    folder.mkdir()
    empty = cli("rules")
    assert empty.returncode == 0 and "No permission rules" in empty.stdout
    added = cli("rules", "add", "allow", "write_file", "--folder", FOLDER)  # relative to here
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == f"Rule added: allow write_file ({folder})"
    assert cli("rules", "add", "deny", "mcp:nowhere").returncode == 2  # no such server
    assert cli("rules", "add", "deny", "delete_file").returncode == 0
    listed = rules(cli)
    assert [(r["n"], r["tool"], r["folder"], r["action"]) for r in listed] == [
        (1, "write_file", str(folder), "allow"),
        (2, "delete_file", None, "deny"),
    ]
    assert all(r["in_force"] and r["problem"] is None and r["created"] > 0 for r in listed)
    zh = cli("rules", lang="zh_CN.UTF-8")
    lines = zh.stdout.splitlines()
    assert lines[0].startswith("#1  允许") and str(folder) in lines[0]
    assert lines[1].startswith("#2  禁止") and "任何位置" in lines[1]
    # The same tool and folder again replaces the rule.
    assert cli("rules", "add", "ask", "write_file", "--folder", str(folder)).returncode == 0
    assert [(r["tool"], r["action"]) for r in rules(cli)] == [
        ("delete_file", "deny"),
        ("write_file", "ask"),
    ]
    gone = cli("rules", "remove", "1", lang="zh_CN.UTF-8")
    assert gone.returncode == 0 and gone.stdout.startswith("已删除规则 1：禁止 delete_file")
    missing = cli("rules", "remove", "5")
    assert missing.returncode == 2 and "There is no rule 5 (there are 1)" in missing.stderr


def test_bad_rules_are_refused_with_the_reason(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "target")
    unknown = cli("rules", "add", "allow", "wirte_file")
    assert unknown.returncode == 2
    assert "Not added: there is no tool called wirte_file" in unknown.stderr
    missing = cli("rules", "add", "allow", "write_file", "--folder", "/no/such/dir")
    assert missing.returncode == 2 and "/no/such/dir does not exist" in missing.stderr
    link = cli("rules", "add", "allow", "write_file", "--folder", "link", lang="zh_CN.UTF-8")
    assert link.returncode == 2 and "未添加" in link.stderr and "符号链接" in link.stderr
    bad_action = cli("rules", "add", "maybe", "write_file")
    assert bad_action.returncode == 2
    assert rules(cli) == []
    # A deny through the link is kept: it never widens anything.
    assert cli("rules", "add", "deny", "write_file", "--folder", "link").returncode == 0
    (kept,) = rules(cli)
    assert kept["in_force"] and kept["problem"]["code"] == "folder_link"


def chat(cli: Any, fake: FakeOllama, work: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    done: subprocess.CompletedProcess[str] = cli(
        "chat",
        "--json",
        *flags,
        "--model",
        "qwen3:8b",
        "--endpoint",
        fake.url,
        "--workspace",
        str(work),
        "write it",
    )
    assert done.returncode == 0, done.stderr
    return done


def results(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [e["result"] for e in events if e.get("type") == "tool_call_update" and e.get("result")]


def test_a_deny_rule_holds_under_yes_all(
    cli: Any, fake_ollama: FakeOllama, app_paths: AppPaths, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    save_settings(Settings(allowed_dirs=[str(work)]), app_paths.settings_file)
    assert cli("rules", "add", "deny", "write_file", "--folder", str(work)).returncode == 0
    fake_ollama.script(
        tool_turn([("write_file", {"path": "笔记 📝.txt", "content": "x"})]), text_turn("ok")
    )
    done = chat(cli, fake_ollama, work, "--yes-all")
    assert not (work / "笔记 📝.txt").exists()
    (refused,) = results(done)
    assert refused["code"] == "not_run_rule_folder"
    assert "approval_needed" not in done.stdout


def test_a_hand_edited_file_grants_no_more_than_it_says(
    cli: Any, fake_ollama: FakeOllama, app_paths: AppPaths, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    (work / "plain").mkdir(parents=True)
    (work / "secret").mkdir()
    (work / "door").symlink_to(work / "secret")
    hostile: list[Any] = [
        {"tool": "write_file", "folder": str(work / "door"), "action": "allow"},
        {"tool": "write_file", "folder": f"{work}/plain/../secret", "action": "allow"},
        {"tool": "write_file", "folder": "secret", "action": "allow"},
        {"tool": "write_file", "folder": str(work / "secret"), "action": "sure"},
        {"tool": "write_fil", "folder": str(work / "secret"), "action": "allow"},
        "allow everything",
    ]
    hostile += [{"tool": f"srv__t{i}", "folder": None, "action": "allow"} for i in range(20_000)]
    hostile.append({"tool": "write_file", "folder": str(work / "plain"), "action": "allow"})
    settings = Settings(allowed_dirs=[str(work)], tool_rules=hostile)
    save_settings(settings, app_paths.settings_file)
    fake_ollama.script(
        tool_turn(
            [
                ("write_file", {"path": "secret/a.txt", "content": "no"}),
                ("write_file", {"path": "door/b.txt", "content": "no"}),
                ("write_file", {"path": "plain/../secret/c.txt", "content": "no"}),
            ]
        ),
        text_turn("ok"),
    )
    done = chat(cli, fake_ollama, work)  # no one to ask: whatever asks is denied
    assert sorted(p.name for p in (work / "secret").iterdir()) == []
    assert [r["code"] for r in results(done)] == ["not_run_denied"] * 3
    listed = rules(cli)
    codes = [r["problem"]["code"] for r in listed if r["problem"]]
    assert codes[:6] == [
        "folder_link",
        "folder_dots",
        "folder_relative",
        "bad_action",
        "unknown_tool",
        "not_object",
    ]
    # Past the limit, the allow rule that came last is ignored too (never wider).
    assert listed[-1]["problem"]["code"] == "too_many"


def test_an_allow_rule_lets_a_write_run_without_asking(
    cli: Any, fake_ollama: FakeOllama, app_paths: AppPaths, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    (work / FOLDER).mkdir(parents=True)
    save_settings(Settings(allowed_dirs=[str(work)]), app_paths.settings_file)
    assert (
        cli("rules", "add", "allow", "write_file", "--folder", str(work / FOLDER)).returncode == 0
    )
    fake_ollama.script(
        tool_turn(
            [
                ("write_file", {"path": f"{FOLDER}/好.txt", "content": "yes"}),
                ("write_file", {"path": "outside.txt", "content": "no"}),
            ]
        ),
        text_turn("ok"),
    )
    done = chat(cli, fake_ollama, work)
    assert (work / FOLDER / "好.txt").read_text(encoding="utf-8") == "yes"
    assert not (work / "outside.txt").exists()
    assert [r.get("code") for r in results(done)] == [None, "not_run_denied"]
    # Removing the rule asks again (and, with no one to ask, denies).
    assert cli("rules", "remove", "1").returncode == 0
    fake_ollama.script(
        tool_turn([("write_file", {"path": f"{FOLDER}/again.txt", "content": "x"})]),
        text_turn("ok"),
    )
    done = chat(cli, fake_ollama, work)
    assert not (work / FOLDER / "again.txt").exists()
    assert [r.get("code") for r in results(done)] == ["not_run_denied"]
