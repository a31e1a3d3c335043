"""Previews are typed (``messages.Preview``, a union on ``kind``): every built-in tool's preview
is one of the models with no field left untyped, and the JSON the page gets is exactly what the
tool and the loop set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tray_app.base.messages import (
    PREVIEW_KINDS,
    CommandPreview,
    DiffPreview,
    ErrorPreview,
    FilePreview,
    MovePreview,
    NewFilePreview,
    OtherPreview,
    PathPreview,
    TreePreview,
    parse_preview,
    preview_json,
    read_preview,
    with_facts,
)
from tray_app.cli.terminal_preview import preview_summary
from tray_app.tools.base import Risk, Tool, ToolContext
from tray_app.tools.registry import ToolRegistry, default_registry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

NAME = "报告 🌀 \u202efdp.txt"


@pytest.fixture
def box(tmp_path: Path) -> Toolbox:
    work = tmp_path / "work"
    work.mkdir()
    (work / NAME).write_text("α = 1\nβ = 2\n", encoding="utf-8")
    (work / "tree").mkdir()
    (work / "tree" / "a.txt").write_text("a")
    policy = SandboxPolicy(
        allowed_dirs=[work], workspace=work, home=tmp_path / "home", run_command_enabled=True
    )
    return Toolbox(policy, registry=default_registry())


CALLS: list[tuple[str, dict[str, Any], type]] = [
    ("write_file", {"path": "new 新.txt", "content": "x\n"}, NewFilePreview),
    ("write_file", {"path": NAME, "content": "α = 1\n"}, DiffPreview),
    (
        "edit_file",
        {"path": NAME, "edits": [{"old_text": "β = 2", "new_text": "β = 🌀"}]},
        DiffPreview,
    ),
    ("create_directory", {"path": "d/e"}, PathPreview),
    ("delete_file", {"path": NAME}, FilePreview),
    ("delete_file", {"path": "tree", "recursive": True}, TreePreview),
    ("move_file", {"source": NAME, "destination": "moved.txt"}, MovePreview),
    ("run_command", {"command": "echo 你好"}, CommandPreview),
    ("write_file", {"path": "/etc/passwd", "content": "x"}, ErrorPreview),
]


@pytest.mark.parametrize(("name", "args", "model"), CALLS)
def test_every_builtin_preview_is_fully_typed(
    box: Toolbox, name: str, args: dict[str, Any], model: type
) -> None:
    checked = box.check(name, args)
    assert not isinstance(checked, str)
    preview = box.preview_checked(checked)
    assert type(preview) is model
    assert not preview.model_extra, f"untyped fields: {sorted(preview.model_extra or {})}"
    assert preview.tool == name
    # The page's JSON: the keys that were set, unchanged by the round trip.
    shown = preview_json(preview)
    assert preview_json(parse_preview(shown)) == shown
    assert box.preview(name, args) == shown
    if not isinstance(preview, ErrorPreview | PathPreview):  # a folder's path says it all
        assert preview_summary(shown) != ""  # the terminal has a line for the change


def test_every_kind_is_in_the_union() -> None:
    assert {
        "new_file", "diff", "file", "tree", "path", "move", "command", "mcp", "git_commit",
        "none", "error",
    } == PREVIEW_KINDS  # fmt: skip


def test_unknown_and_broken_previews_are_read_not_raised() -> None:
    other = parse_preview({"kind": "hologram", "text": "见 🌀"})
    assert isinstance(other, OtherPreview) and other.kind == "hologram"
    assert isinstance(parse_preview({"path": "/w/x"}), OtherPreview)
    assert isinstance(parse_preview(None), OtherPreview)
    broken = read_preview({"kind": "diff", "size_after": "lots", "text": "t", "path": "/p"})
    assert isinstance(broken, OtherPreview) and (broken.text, broken.path) == ("t", "/p")
    with pytest.raises(ValueError):
        parse_preview({"kind": "diff", "size_after": "lots"})


def test_facts_added_and_removed_keep_the_rest() -> None:
    binding = {"target": {"sha256": "ab", "size": 3}}
    preview = parse_preview({"kind": "diff", "path": "/w/a", "binding": binding, "x": (1, 2)})
    over = {"name": "bytes_written", "limit": 10, "used": 9, "call": 2, "text": "over"}
    marked = with_facts(preview, budget=over, changed_since_shown=True, approval_round=2)
    assert marked.budget is not None and marked.budget.limit == 10
    assert marked.binding == preview.binding and marked.changed_since_shown
    assert preview_json(marked)["budget"]["limit"] == 10  # an int stays an int
    cleared = with_facts(marked, budget=None)
    assert "budget" not in preview_json(cleared) and cleared.approval_round == 2


def test_a_tool_whose_preview_has_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    from pydantic import BaseModel

    class Args(BaseModel):
        pass

    def bad(ctx: ToolContext, args: Args) -> dict[str, Any]:
        return {"kind": "diff", "size_after": "a lot"}

    def run(ctx: ToolContext, args: Args) -> dict[str, Any]:
        return {"success": True}

    policy = SandboxPolicy(allowed_dirs=[tmp_path], workspace=tmp_path, home=tmp_path)
    box = Toolbox(policy, registry=ToolRegistry([Tool("bad", "d", Args, Risk.WRITE, run, bad)]))
    shown = box.preview("bad", {})
    assert shown["kind"] == "error" and "preview is not valid" in shown["text"]
