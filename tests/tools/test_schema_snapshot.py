"""The built-in tools' schemas and facts come from ``tools/tool_schemas.py``; their argument
models are built and their modules imported only at a tool's first call (a one-shot
chat paid ~15-20 ms for the models and ~13 ms for the modules).

The snapshot must say exactly what the models say, in the same order; the real CLI must send it
and still validate a call's arguments (hostile ones included) once the model makes one; and two
threads reaching a model's first build at once must both get its real validator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from pydantic import Field

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.tools.base import ToolArgs, model_key, validate_args
from tray_app.tools.lazy import ManifestTool
from tray_app.tools.registry import builtin_tools, default_registry
from tray_app.tools.schema_snapshot import TARGET, generate, manifest, render
from tray_app.tools.tool_schemas import SCHEMAS, TOOLS

NAME = "家 🙂 \u202eevil.txt\u202c.md"
TEXT = "第一行 🙂\n\u202e reversed \u202c\n" + "長" * 3000

#: Run the real CLI in a child, then say which tool modules it had imported and which tools'
#: argument models were built by then.
CHILD = """
import json, sys
from tray_app.cli.cli import main
code = main(sys.argv[1:])
sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n")
from tray_app.tools.registry import builtin_tools
built = sorted(t.name for t in builtin_tools() if t.args_model.__pydantic_complete__)
sys.stderr.write("BUILT " + json.dumps(built) + "\\n")
sys.exit(code)
"""


def test_the_snapshot_is_what_the_models_give_in_the_same_order() -> None:
    fresh = generate()
    assert json.dumps(SCHEMAS, ensure_ascii=False) == json.dumps(fresh, ensure_ascii=False), (
        "a tool's argument model changed: run `make tool-schemas`"
    )


def test_the_manifest_is_what_the_modules_declare_in_the_same_order() -> None:
    fresh = manifest()
    assert json.dumps(TOOLS, ensure_ascii=False) == json.dumps(fresh, ensure_ascii=False), (
        "a tool's declaration changed: run `make tool-schemas`"
    )
    assert [entry["name"] for entry in TOOLS] == [tool.name for tool in builtin_tools()]


def test_a_manifest_tool_offers_what_its_module_declares_and_loads_it_at_first_use() -> None:
    real = {tool.name: tool for tool in builtin_tools()}
    lazy = list(default_registry())
    assert [tool.name for tool in lazy] == list(real)
    for tool in lazy:
        assert isinstance(tool, ManifestTool) and not tool.is_loaded()
        twin = real[tool.name]
        assert tool.definition() == twin.definition()
        assert (tool.risk, tool.title("zh-CN"), tool.asks_when_exists) == (
            twin.risk,
            twin.title("zh-CN"),
            twin.asks_when_exists,
        )
        assert not tool.is_loaded()  # the facts a turn offers load nothing
        assert tool.args_model is twin.args_model and tool.is_loaded()
        for part in ("handler", "preview"):  # the same function, made printable the same way
            mine, theirs = getattr(tool, part), getattr(twin, part)
            assert getattr(mine, "__wrapped__", mine) is getattr(theirs, "__wrapped__", theirs)
            assert hasattr(mine, "__wrapped__") == hasattr(theirs, "__wrapped__")


def test_every_builtin_tool_sends_its_snapshot_and_a_model_of_the_same_name_does_not() -> None:
    tools = builtin_tools()
    assert len(tools) == len(SCHEMAS) == 18
    for tool in tools:
        assert tool.schema() == SCHEMAS[model_key(tool.args_model)]

    class ReadFileArgs(ToolArgs):  # a look-alike defined elsewhere keeps its own schema
        other: int = Field(description="只有这个 🙂")

    schema = ReadFileArgs.model_json_schema()
    assert list(schema["properties"]) == ["other"]
    assert model_key(ReadFileArgs) not in SCHEMAS


def test_two_threads_at_a_models_first_build_both_get_the_real_validator() -> None:
    class Probe(ToolArgs):
        path: str = Field(min_length=1)
        count: int = 1

    assert not Probe.__pydantic_complete__
    start = threading.Barrier(8)
    results: list[object] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        start.wait(timeout=60)
        try:
            value: object = validate_args(Probe, {"path": f"{NAME}{index}", "count": str(index)})
        except Exception as exc:
            value = exc
        with lock:
            results.append(value)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted((r.path, r.count) for r in results if isinstance(r, Probe)) == [
        (f"{NAME}{i}", i) for i in range(8)
    ], results


def _tool_modules(stderr: str) -> list[str]:
    """The built-in tools' modules (and their list, ``files``) the child had imported."""
    dumps = [line for line in stderr.splitlines() if line.startswith("MODULES ")]
    assert dumps, stderr[-3000:]
    mine = {entry["module"] for entry in TOOLS} | {"tray_app.tools.builtin.files"}
    return sorted(name for name in json.loads(dumps[-1][8:]) if name in mine)


def _one_shot(
    fake: FakeOllama, home: Path, workspace: Path, prompt: str
) -> tuple[int, str, str, list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["METONA_HOME"] = str(home)
    flags = ["--json", "--endpoint", fake.url, "--model", "llama3.2"]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "chat", *flags, "--workspace", str(workspace), prompt],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    built = [line for line in done.stderr.splitlines() if line.startswith("BUILT ")]
    modules = _tool_modules(done.stderr)
    return done.returncode, done.stdout, built[-1][6:] if built else done.stderr[-3000:], modules


def test_a_chat_without_tool_calls_builds_no_model_and_imports_no_tool_module(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "工作 🙂"
    workspace.mkdir()
    with FakeOllama(default_turn=text_turn("好的 🙂 \u202e done")) as fake:
        code, out, built, modules = _one_shot(fake, tmp_path / "home", workspace, "你好 \u202e 🙂")
        asked = fake.chat_requests
    assert code == 0, built
    sent = {t["function"]["name"]: t["function"]["parameters"] for t in asked[-1]["tools"]}
    schemas = {tool.name: SCHEMAS[model_key(tool.args_model)] for tool in builtin_tools()}
    assert len(sent) >= 12  # the default set (run_command only when the settings enable it)
    assert sent == {name: schemas[name] for name in sent}
    assert json.loads(built) == []
    assert modules == []
    assert '"content_delta"' in out


def test_a_tool_call_with_hostile_arguments_builds_and_validates_its_model(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "工作 🙂"
    workspace.mkdir()
    (workspace / NAME).write_text(TEXT, encoding="utf-8")
    calls = [("read_file", {"path": NAME}), ("read_file", {"path": 7, "start_line": "x"})]
    with FakeOllama() as fake:
        fake.script(tool_turn(calls), text_turn("读完了 🙂"))
        code, out, built, modules = _one_shot(fake, tmp_path / "home", workspace, "读一下 \u202e")
        asked = fake.chat_requests
    assert code == 0, built
    assert json.loads(built) == ["read_file"]
    assert modules == [
        "tray_app.tools.builtin.read_file"
    ]  # the one tool called, not its neighbours
    results = [m["content"] for m in asked[-1]["messages"] if m["role"] == "tool"]
    assert len(results) == 2
    assert "第一行 🙂" in results[0] and "長" * 100 in results[0]
    assert "invalid" in results[1].lower() and "path" in results[1]
    assert '"tool_call"' in out


def test_the_file_is_exactly_what_make_tool_schemas_writes() -> None:
    """Compact (one entry a line) and untouched by hand or by the formatter."""
    text = TARGET.read_text(encoding="utf-8")
    assert text == render(generate(), manifest()), "run `make tool-schemas`"
    assert len(text.splitlines()) < 60
