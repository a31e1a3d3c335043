"""History trimming: the budget, the current turn, tool chains kept whole."""

from __future__ import annotations

import subprocess
import sys

from tray_app.agent.context import estimate_tokens, fit_history, truncate_tool_result
from tray_app.base.messages import ChatMessage, ToolCall


def test_estimate_counts_cjk_per_character_and_other_text_per_four() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("你好世界") == 4
    assert estimate_tokens("你好 abcd") == 2 + 2  # " abcd" is 5 chars -> 2 tokens


#: Run in a fresh interpreter: whether the CJK pattern was compiled after each step.
CJK_PROBE = """
from tray_app.agent import context
steps = [context._cjk.cache_info().currsize]
steps.append((context.estimate_tokens("plain ascii text"), context._cjk.cache_info().currsize))
steps.append((context.estimate_tokens("長😀\u202eab"), context._cjk.cache_info().currsize))
print(steps)
"""


def test_the_cjk_pattern_is_compiled_at_first_use_not_at_import() -> None:
    """Every start imports this module; only text that is not ASCII needs the pattern."""
    done = subprocess.run(
        [sys.executable, "-c", CJK_PROBE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, (4, 0), (2, 1)]"


def test_truncated_tool_result_says_how_much_was_cut() -> None:
    text = "x" * 1000
    cut = truncate_tool_result(text, 100)
    assert cut.startswith("x" * 100)
    assert "900 more characters" in cut
    assert truncate_tool_result("short", 100) == "short"


def _user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def _assistant(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)


def test_old_messages_are_dropped_oldest_first_to_fit_80_percent() -> None:
    system = ChatMessage(role="system", content="rules")
    earlier = [_user(f"old {i} " + "a" * 400) for i in range(20)]  # ~104 tokens each
    current = [_user("now")]
    kept = fit_history(system, earlier, current, num_ctx=1000, tool_result_limit=10_000)
    assert kept[0] is system
    assert kept[-1].content == "now"
    total = sum(estimate_tokens(m.content) + 4 for m in kept)
    assert total <= 800
    # the newest old messages survive, the oldest go
    contents = [m.content for m in kept]
    assert any(c.startswith("old 19 ") for c in contents)
    assert not any(c.startswith("old 0 ") for c in contents)


def test_current_turn_is_never_cut_even_when_over_budget() -> None:
    current = [_user("q"), *[_assistant("b" * 4000) for _ in range(3)]]
    kept = fit_history(None, [_user("older")], current, num_ctx=512, tool_result_limit=100_000)
    assert [m.content for m in kept] == [m.content for m in current]


def test_tool_chain_is_kept_or_dropped_whole() -> None:
    call = ToolCall(id="c1", name="read_file", arguments={"path": "a"})
    chain = [
        _user("read a"),
        ChatMessage(role="assistant", tool_calls=[call]),
        ChatMessage(role="tool", tool_name="read_file", content="r" * 2000),
        _assistant("done"),
    ]
    kept = fit_history(None, chain, [_user("next")], num_ctx=700, tool_result_limit=100_000)
    roles = [m.role for m in kept]
    assert roles[0] != "tool"
    if "tool" in roles:
        index = roles.index("tool")
        assert kept[index - 1].tool_calls


def test_long_tool_results_are_truncated_and_old_thinking_dropped() -> None:
    earlier = [ChatMessage(role="assistant", content="a", thinking="deep thoughts")]
    current = [
        _user("q"),
        ChatMessage(role="assistant", tool_calls=[ToolCall(name="read_file")], thinking="t"),
        ChatMessage(role="tool", tool_name="read_file", content="z" * 5000),
    ]
    kept = fit_history(None, earlier, current, num_ctx=100_000, tool_result_limit=1000)
    assert kept[0].thinking == ""
    assert kept[2].thinking == "t"
    assert len(kept[-1].content) < 1100
    assert "truncated" in kept[-1].content
