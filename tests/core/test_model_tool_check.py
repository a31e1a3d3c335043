"""Know your model: Core's tool check and the per-model tool mode, against the real fake
Ollama and OpenAI servers on 127.0.0.1 (``tests/fakes``).

A model without the ``tools`` capability answers a scripted call as ``<tool_call>`` text when
its system prompt describes the tools (``FakeServer.without_tools``); one with it answers
natively. The check's finding and mode are stored in the settings and the model list says so.
"""

from __future__ import annotations

from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn
from tray_app.core.model_check import PROBE_NAME

PROBE = [(PROBE_NAME, {"number": 42})]


def _model(rig: Rig, name: str) -> dict[str, Any]:
    models = rig.core.list_models()["models"]
    return next(m for m in models if m["name"] == name)


def test_the_model_list_says_how_each_model_gets_its_tools(make_rig: Any) -> None:
    rig: Rig = make_rig()
    qwen, gemma = _model(rig, "qwen3:8b"), _model(rig, "gemma3:4b")
    assert (qwen["tool_mode"], qwen["tool_mode_chosen"], qwen["tool_check"]) == (
        "native",
        False,
        None,
    )
    # gemma3 has no tools capability: offered via the prompt, chosen automatically
    assert (gemma["tool_mode"], gemma["tool_mode_chosen"]) == ("prompt", False)


def test_a_native_model_is_found_native(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn(PROBE))
    done = rig.core.check_model_tools("qwen3:8b")
    assert done == {"model": "qwen3:8b", "result": "native", "tool_mode": "native"}
    (request,) = rig.fake.chat_requests
    assert [t["function"]["name"] for t in request["tools"]] == [PROBE_NAME]
    assert request["think"] is False  # the check is quick: no reasoning asked for
    assert rig.core.settings.model_tool_checks == {"qwen3:8b": "native"}
    assert _model(rig, "qwen3:8b")["tool_check"] == "native"


def test_a_model_without_tools_that_follows_the_prompt_is_found_via_text(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn(PROBE))
    done = rig.core.check_model_tools("gemma3:4b")
    assert done == {"model": "gemma3:4b", "result": "text", "tool_mode": "prompt"}
    (request,) = rig.fake.chat_requests
    assert "tools" not in request  # the server would refuse them
    system = request["messages"][0]
    assert system["role"] == "system" and "<tool_call>" in system["content"]
    assert f"### {PROBE_NAME}" in system["content"]
    assert rig.core.settings.model_tool_modes == {"gemma3:4b": "prompt"}
    gemma = _model(rig, "gemma3:4b")
    assert (gemma["tool_mode"], gemma["tool_mode_chosen"], gemma["tool_check"]) == (
        "prompt",
        True,
        "text",
    )


def test_a_native_model_that_writes_its_call_as_text_is_found_via_text(make_rig: Any) -> None:
    rig: Rig = make_rig()
    call = '<tool_call>\n{"name": "report_number", "arguments": {"number": 42}}\n</tool_call>'
    rig.fake.script(text_turn(call))
    done = rig.core.check_model_tools("llama3.2")
    assert (done["result"], done["tool_mode"]) == ("text", "prompt")
    assert len(rig.fake.chat_requests) == 1  # the native answer already said it
    # stored under the name the server lists, so "llama3.2" and "llama3.2:latest" agree
    assert rig.core.settings.model_tool_checks == {"llama3.2:latest": "text"}
    assert _model(rig, "llama3.2:latest")["tool_check"] == "text"  # as /api/tags lists it


def test_a_model_that_calls_in_neither_way_gets_tools_off(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(text_turn("The number is 42."), text_turn("42!"))
    done = rig.core.check_model_tools("llama3.2")
    assert (done["result"], done["tool_mode"]) == ("none", "off")
    native, prompted = rig.fake.chat_requests
    assert "tools" in native and "tools" not in prompted
    assert "<tool_call>" in prompted["messages"][0]["content"]


def test_an_openai_server_that_refuses_tools_is_checked_through_the_prompt(
    make_rig: Any,
) -> None:
    rig: Rig = make_rig(openai=True, default_model="gemma3:4b")
    rig.fake.script(tool_turn(PROBE))
    done = rig.core.check_model_tools("gemma3:4b")
    assert (done["result"], done["tool_mode"]) == ("text", "prompt")
    refused, prompted = rig.fake.chat_requests
    assert "tools" in refused and "tools" not in prompted


def test_the_switch_sets_and_clears_a_models_mode(make_rig: Any) -> None:
    rig: Rig = make_rig()
    listed = rig.core.set_model_tool_mode("gemma3:4b", "off")
    gemma = next(m for m in listed["models"] if m["name"] == "gemma3:4b")
    assert (gemma["tool_mode"], gemma["tool_mode_chosen"]) == ("off", True)
    assert rig.core.settings.model_tool_modes == {"gemma3:4b": "off"}
    # "native" for a model whose server refuses tools still goes through the prompt
    rig.core.set_model_tool_mode("gemma3:4b", "native")
    assert _model(rig, "gemma3:4b")["tool_mode"] == "prompt"
    rig.core.set_model_tool_mode("gemma3:4b", None)
    assert rig.core.settings.model_tool_modes == {}
    assert _model(rig, "gemma3:4b")["tool_mode_chosen"] is False


def test_tools_switched_off_make_a_plain_chat_with_a_notice(make_rig: Any) -> None:
    rig: Rig = make_rig(default_model="gemma3:4b")
    rig.core.set_model_tool_mode("gemma3:4b", "off")
    rig.fake.script(text_turn("Just chatting."))
    _, turn = rig.send("read my file")
    assert rig.finish(turn).stop_reason == "done"
    (request,) = rig.fake.chat_requests
    assert "tools" not in request
    assert all("<tool_call>" not in m["content"] for m in request["messages"])
    notice = rig.log.wait_type("notice", code="tools_off")
    assert "switched off" in notice.message
    assert rig.log.wait_type("turn_started").tools_enabled is False
