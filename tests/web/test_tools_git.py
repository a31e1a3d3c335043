"""The git tools' cards and approval in a real browser against the real tools and a real
repository: the commit's approval shows the message and the files, the commit is made and the
repository's pre-commit hook does not run; status, diff and log read as cards; the same in
Chinese."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import App, AppFactory, open_card

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"
NEW = "报告 \u202etxt.md"
SETUP_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "PATH": os.environ["PATH"],
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=SETUP_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout


def repo_with_hook(folder: Path, marker: Path) -> None:
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "Page Test")
    git(folder, "config", "user.email", "page@example.invalid")
    (folder / "a.txt").write_text("one\n")
    git(folder, "add", "a.txt")
    git(folder, "commit", "-q", "-m", "first")
    hook = folder / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    hook.chmod(0o755)
    (folder / NEW).write_text("一\n二\n", encoding="utf-8")


def test_the_commit_approval_shows_message_and_files_and_no_hook_runs(
    app: App, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    repo_with_hook(app.workspace, marker)
    message = "加 报告\n\n第二行"
    app.fake.script(
        tool_turn([("git_commit", {"message": message, "files": [NEW]})]),
        text_turn("Committed."),
    )
    app.send("Commit the report")
    page = app.page
    panel = page.locator("#approval")
    expect(panel.locator(".git-message")).to_have_text(message)
    expect(panel.locator(".git-preview")).to_contain_text("1 file, +2 −0")
    expect(panel.locator(".git-files")).to_contain_text("new  +2  报告")
    expect(panel.locator(".git-preview")).to_contain_text("The repository's hooks do not run.")
    page.click(APPROVE)
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    open_card(card)
    expect(card.locator(".tc-done")).to_contain_text("Committed")
    expect(card.locator(".tc-meta")).to_contain_text("1 file, +2 −0")
    assert git(app.workspace, "log", "-1", "--format=%B").strip() == message
    assert not marker.exists()


def test_status_diff_and_log_cards(app: App, tmp_path: Path) -> None:
    repo_with_hook(app.workspace, tmp_path / "ran.txt")
    (app.workspace / "a.txt").write_text("one\ntwo 二\n")
    app.fake.script(
        tool_turn([("git_status", {})]),
        tool_turn([("git_diff", {"files": ["a.txt"]})]),
        tool_turn([("git_log", {})]),
        text_turn("Looked."),
    )
    app.send("What changed?")
    page = app.page
    cards = page.locator(".tool-card")
    expect(cards).to_have_count(3)
    for index in range(3):
        expect(cards.nth(index)).to_have_attribute("data-status", "success")
        open_card(cards.nth(index))
    status, diff, log = cards.nth(0), cards.nth(1), cards.nth(2)
    expect(status.locator(".tc-meta")).to_contain_text("main 2 changed files")
    expect(status.locator(".git-status")).to_contain_text(" M a.txt")
    expect(status.locator(".git-status")).to_contain_text("?? 报告")
    expect(diff.locator(".d-add")).to_have_text("+two 二")
    expect(diff.locator(".tc-meta")).to_contain_text("1 file, +1 −0")
    expect(log.locator(".git-log")).to_contain_text("Page Test  first")


def test_the_commit_approval_in_chinese(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    app = make_app(fake_ollama, language="zh-CN", locale="zh-CN")
    repo_with_hook(app.workspace, tmp_path / "ran.txt")
    app.fake.script(
        tool_turn([("git_commit", {"message": "改", "files": [NEW]})]),
        text_turn("好。"),
    )
    app.send("提交")
    panel = app.page.locator("#approval")
    expect(panel.locator(".git-preview")).to_contain_text("提交说明")
    expect(panel.locator(".git-preview")).to_contain_text("1 个文件，+2 −0")
    expect(panel.locator(".git-preview")).to_contain_text("不会运行仓库的钩子。")
    expect(panel).to_contain_text("Git 提交")
    assert app.page_errors == []


def test_a_secret_files_diff_is_named_not_shown(app: App, tmp_path: Path) -> None:
    repo_with_hook(app.workspace, tmp_path / "ran.txt")
    (app.workspace / ".env").write_text("TOKEN=old\n")
    git(app.workspace, "add", ".env")
    git(app.workspace, "commit", "-q", "-m", "env")
    (app.workspace / ".env").write_text("TOKEN=very-secret\n")
    app.fake.script(tool_turn([("git_diff", {})]), text_turn("Looked."))
    app.send("Diff?")
    card = app.page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    open_card(card)
    expect(card.locator(".git-withheld")).to_contain_text("secret files are never read: .env")
    expect(card).not_to_contain_text("very-secret")


def test_the_commit_approval_warns_of_a_secret_in_a_folder(app: App, tmp_path: Path) -> None:
    repo_with_hook(app.workspace, tmp_path / "ran.txt")
    (app.workspace / "conf").mkdir()
    (app.workspace / "conf" / ".env").write_text("TOKEN=x\n")
    app.fake.script(
        tool_turn([("git_commit", {"message": "conf", "files": ["conf"]})]),
        text_turn("Not committed."),
    )
    app.send("Commit conf")
    panel = app.page.locator("#approval")
    expect(panel.locator(".git-secrets")).to_contain_text(
        "These look like secrets (keys, .env) and would be committed: conf/.env"
    )
    panel.get_by_role("button", name="Deny").click()
    expect(app.page.locator(".tool-card")).not_to_have_attribute("data-status", "pending")
    assert git(app.workspace, "rev-list", "--count", "HEAD").strip() == "1"
