"""Every tool failure carries a code the page and the terminal can say in both languages.

The table is ``tray_app.tool_errors.ToolErrorCode``. mypy makes ``failure()`` and every
``CodedError`` name a code; here: each code has a text in both locale files with the same
placeholders, no failure is written by hand without one, and real failure paths (hostile
names included) come back with the code and every parameter their text names. The red-team
corpus (``tests/tools/redteam_check.uncoded``) checks the same on hundreds of attacks.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tray_app.terminal_errors import failure_text
from tray_app.tool_errors import TOOL_ERROR_CODES
from tray_app.tools.registry import ToolRegistry, default_registry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: Chinese texts that may equal the English one (none today: a product name or a unit would).
SAME_IN_BOTH: set[str] = set()
#: Failures written as dict literals on purpose: they are not a tool call's answer.
LITERAL_FAILURES = {
    "tools/journal/journal_undo.py",  # undo results (Core's undo command says them), not tool calls
    "store/recovery.py",  # the record of a call a crash interrupted (it has its own text)
    "tools/builtin/read_many.py",  # one file's line inside read_multiple_files' list
    # `metona-tray mcp serve`'s answers to another app's MCP client: no card of ours shows them
    "cli/mcp_serve.py",
    "desktop/instance/mcp_link.py",
}
HOSTILE = "报告\u202egpj.exe 🎉"  # CJK, an RTL override, an emoji


def _locale(name: str) -> dict[str, str]:
    data: dict[str, str] = json.loads(
        (ROOT / "web" / "locales" / f"{name}.json").read_text(encoding="utf-8")
    )
    return data


def _texts(locale: dict[str, str]) -> dict[str, str]:
    prefix = "tool_error."
    return {k.removeprefix(prefix): v for k, v in locale.items() if k.startswith(prefix)}


def test_every_code_has_a_text_in_both_languages_with_the_same_placeholders() -> None:
    en, zh = _texts(_locale("en")), _texts(_locale("zh-CN"))
    assert set(en) == set(TOOL_ERROR_CODES), "a code without an English text, or a stale text"
    assert set(zh) == set(TOOL_ERROR_CODES), "a code without a Chinese text, or a stale text"
    for code in TOOL_ERROR_CODES:
        assert set(PLACEHOLDER.findall(en[code])) == set(PLACEHOLDER.findall(zh[code])), code
        if code not in SAME_IN_BOTH:
            assert en[code] != zh[code], f"{code} is not translated"


def _calls_without_code(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "failure":
            keywords = {k.arg for k in node.keywords}
            if "code" not in keywords:
                lines.append(node.lineno)
            for k in node.keywords:
                if k.arg == "code" and isinstance(k.value, ast.Constant):
                    assert k.value.value in TOOL_ERROR_CODES, (node.lineno, k.value.value)
    return lines


def _literal_failures(tree: ast.AST) -> list[int]:
    """``{"success": False, ...}`` written by hand without a ``"code"`` key."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            failed = any(
                isinstance(k, ast.Constant)
                and k.value == "success"
                and isinstance(v, ast.Constant)
                and v.value is False
                for k, v in zip(node.keys, node.values, strict=True)
            )
            if failed and "code" not in keys:
                lines.append(node.lineno)
    return lines


def test_no_failure_is_made_without_a_code() -> None:
    """A static scan of the package: ``failure(...)`` always names a code from the table, and
    no tool answer is a hand-written ``{"success": False}`` (mypy checks the types too)."""
    problems = []
    for path in sorted((ROOT / "tray_app").rglob("*.py")):
        rel = path.relative_to(ROOT / "tray_app").as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        problems += [f"{rel}:{n} failure() without code" for n in _calls_without_code(tree)]
        if rel not in LITERAL_FAILURES:
            problems += [f"{rel}:{n} a literal failure" for n in _literal_failures(tree)]
    assert problems == []


def test_the_scan_finds_an_uncoded_failure() -> None:
    """The scan itself works: it sees the two ways a failure could slip through."""
    tree = ast.parse('failure("x")\nr = {"success": False, "error": "y"}\n')
    assert _calls_without_code(tree) == [1]
    assert _literal_failures(tree) == [2]


@pytest.fixture
def box(tmp_path: Path) -> Toolbox:
    work = tmp_path / "work"
    work.mkdir()
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "x.txt").write_text("no", encoding="utf-8")
    (work / f"{HOSTILE}.txt").write_text("第一行\nsecond line\n", encoding="utf-8")
    (work / "twice.txt").write_text("same\nsame\n", encoding="utf-8")
    (work / "bin.dat").write_bytes(b"\x00\x01" * 100)
    (work / "latin.txt").write_bytes("café".encode("latin-1"))
    (work / "nec.txt").write_bytes(b"A \x87\x9a\n")  # NEC's "because": cp932 writes JIS's
    (work / "big.txt").write_bytes(b"a" * (2 * 1024 * 1024))
    (work / "full").mkdir()
    (work / "full" / "in.txt").write_text("x", encoding="utf-8")
    (work / "taken.txt").write_text("old", encoding="utf-8")
    policy = SandboxPolicy(allowed_dirs=[work], workspace=work, blocked_dirs=[blocked], home=work)
    return Toolbox(policy, registry=default_registry())


def _cases(root: Path) -> list[tuple[str, Any, str]]:
    work, blocked = root / "work", root / "blocked"
    return [
        ("read_file", {"path": f"{HOSTILE}-missing.txt"}, "file_not_found"),
        ("read_file", {"path": str(blocked / "x.txt")}, "path_in_blocked_folder"),
        ("read_file", {"path": str(root / "elsewhere.txt")}, "path_outside"),
        ("read_file", {"path": "/etc/hostname"}, "path_in_system_folder"),
        ("read_file", {"path": ".env"}, "path_secret_name"),
        ("read_file", {"path": "https://example.invalid/x"}, "path_is_url"),
        ("read_file", {"path": "a\nb"}, "path_control_char"),
        ("read_file", {"path": "x" * 5000}, "path_too_long"),
        ("read_file", {"path": ""}, "path_empty"),
        ("read_file", {"path": "full"}, "not_a_file_folder"),
        ("read_file", {"path": "bin.dat"}, "binary_file"),
        ("read_file", {"path": "big.txt"}, "file_too_large"),
        ("read_file", {"path": "latin.txt", "encoding": "utf-8"}, "invalid_text"),
        ("read_file", {"path": f"{HOSTILE}.txt", "start_line": 99}, "start_past_end"),
        ("list_directory", {"path": f"{HOSTILE}.txt"}, "not_a_folder_file"),
        ("list_directory", {"path": "nowhere"}, "folder_not_found"),
        ("edit_file", _edit(f"{HOSTILE}.txt", "不在文件里 \u202e"), "edit_no_match"),
        ("edit_file", _edit("twice.txt", "same"), "edit_many_matches"),
        ("edit_file", _edit(f"{HOSTILE}.txt", "   "), "edit_old_text_blank"),
        ("edit_file", _edit("bin.dat", "x"), "edit_binary"),
        ("write_file", {"path": "newdir/", "content": "x"}, "ends_with_separator"),
        ("write_file", {"path": "full", "content": "x"}, "not_writable_kind"),
        ("write_file", {"path": "x.txt", "content": "€", "encoding": "latin1"}, "unencodable_text"),
        (
            "write_file",
            {"path": "x.txt", "content": "a\nb", "encoding": "unicode_escape"},
            "encoding_not_writable",
        ),
        (
            "edit_file",
            {**_edit("nec.txt", "A"), "encoding": "cp932"},
            "encoding_changes_bytes",
        ),
        ("create_directory", {"path": "taken.txt"}, "exists_not_folder"),
        (
            "move_file",
            {"source": "latin.txt", "destination": "taken.txt"},
            "move_destination_exists",
        ),
        ("move_file", {"source": "full", "destination": "full/sub"}, "move_into_itself"),
        ("move_file", {"source": "taken.txt", "destination": "taken.txt"}, "move_same_place"),
        ("delete_file", {"path": "full"}, "delete_folder_not_empty"),
        ("delete_file", {"path": str(work)}, "delete_protected"),
        ("read_file", {"nope": 1}, "argument_missing"),
        ("read_file", {"path": ["不是", "文本"]}, "argument_wrong_type"),
        (
            "search_files",
            {"path": ".", "query": "x", "search_type": "其他"},
            "argument_not_a_choice",
        ),
        ("read_multiple_files", {"paths": ["a"] * 1000}, "argument_too_long"),
        ("read_file", "[" * 5000 + "]" * 5000, "invalid_arguments"),
        ("no_such_tool", {}, "unknown_tool"),
    ]


def _edit(path: str, old: str) -> dict[str, Any]:
    return {"path": path, "edits": [{"old_text": old, "new_text": "新"}]}


def test_failure_paths_come_back_coded_with_every_parameter_their_text_names(
    box: Toolbox, tmp_path: Path
) -> None:
    en, zh = _texts(_locale("en")), _texts(_locale("zh-CN"))
    seen = []
    for tool, args, want in _cases(tmp_path):
        result = box.execute(tool, args)
        assert result["success"] is False, (tool, args, result)
        code = result.get("code")
        seen.append((tool, code))
        assert code == want, (tool, args, result)
        params = result.get("params") or {}
        assert set(PLACEHOLDER.findall(en[code])) <= set(params), (code, params)
        json.dumps(result, ensure_ascii=False).encode("utf-8")  # storable as it is
        # The model's sentence stays English; the terminal in Chinese says the code's text.
        said = failure_text(result, "zh-CN")
        assert said != result["error"] and "{" not in said, (code, said)
        assert re.search(r"[\u4e00-\u9fff]", said), said
        assert "\u202e" not in said  # a direction control is written out, never applied
        assert zh[code].split("{")[0] in said
    assert len(seen) == len(_cases(tmp_path))


def test_wrong_arguments_name_the_field_in_both_languages(box: Toolbox) -> None:
    result = box.execute("search_files", {"path": ".", "query": "x", "search_type": "其他"})
    assert result["params"] == {
        "tool": "search_files",
        "field": "search_type",
        "choices": "'filename', 'content', 'both'",
    }
    assert "invalid arguments for search_files: search_type:" in result["error"]  # the model's
    said = failure_text(result, "zh-CN")
    assert said == "search_files：参数 search_type 必须是 'filename', 'content', 'both' 之一"


def test_a_hostile_name_is_shown_with_its_controls_written_out(box: Toolbox) -> None:
    result = box.execute("read_file", {"path": f"{HOSTILE}-missing.txt"})
    assert HOSTILE in result["params"]["path"]  # kept whole for the model's sentence and card
    said = failure_text(result, "zh-CN")
    assert said.startswith("找不到文件：") and "⟨U+202E⟩" in said and "🎉" in said
    assert "\u202e" not in failure_text(result, "en")


def test_an_error_preview_carries_the_code_to_the_card(box: Toolbox) -> None:
    """A write refused before asking (its preview fails) keeps the code for the card."""
    shown = box.preview("edit_file", _edit("twice.txt", "same"))
    assert shown["kind"] == "error" and shown["code"] == "edit_many_matches"
    assert shown["params"]["n"] == 2 and "1, 2" in shown["params"]["lines"]


def test_params_are_bounded_and_storable(box: Toolbox) -> None:
    """A long hostile value is cut for the card (the model's sentence keeps it whole); a name
    that is not UTF-8 is stored as replacement characters, not as lone surrogates."""
    name = "长" * 3000  # within the path limit, far past what a file name may be
    result = box.execute("read_file", {"path": name})
    assert result["code"] == "name_too_long", result["code"]
    shown = result["params"]["path"]
    assert len(shown) == 2001 and shown.endswith("…") and name in result["error"]
    bad = os.fsdecode(b"\xff\xfe-missing.txt")
    missing = box.execute("read_file", {"path": bad})
    assert missing["code"] == "file_not_found"
    json.dumps(missing["params"], ensure_ascii=False).encode("utf-8")  # no lone surrogate left


def test_an_os_error_without_a_path_names_the_tool(tmp_path: Path) -> None:
    """An OS error a tool did not catch, with no file name: the card names the tool instead of
    an empty path."""
    from tray_app.tools.external import external_tool

    def broken(arguments: dict[str, Any], ctx: Any) -> dict[str, Any]:
        raise PermissionError(13, "Permission denied")

    tool = external_tool(name="磁盘", description="d", schema={"type": "object"}, call=broken)
    policy = SandboxPolicy(allowed_dirs=[tmp_path], workspace=tmp_path, home=tmp_path)
    box = Toolbox(policy, registry=ToolRegistry([tool]))
    result = box.execute("磁盘", {})
    assert (result["code"], result["params"]) == (
        "os_error",
        {"path": "磁盘", "reason": "Permission denied"},
    )
    assert failure_text(result, "zh-CN") == "磁盘：Permission denied"
