"""What local models really answer when they should call a tool, or think, or run out of room:
a corpus of shapes taken from public issue threads (each cites its source), to script on the
fake servers.

Every call shape writes ``content`` to ``path`` with ``write_file``; ``answer`` is the text the
user must be left with (the markup gone). A shape with ``notice`` ends without a call and with
that notice instead; ``thinking`` is what the model streams in the thinking field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.fakes.turns import Ending, Turn

#: Written by every call shape (its own file each): CJK, emoji and a quote to escape.
CONTENT = '你好 🌏 "quoted" world'


@dataclass(frozen=True)
class Shape:
    name: str
    source: str  # the public report the shape is taken from
    content: str  # what the model streams as its answer
    thinking: str = ""
    answer: str = ""  # the answer text left once the call is taken out
    calls: bool = True  # the shape ends with write_file run
    notice: str | None = None  # the notice code the user gets instead (or as well)
    done_reason: str = "stop"
    thinking_after: str | None = None  # the stored reasoning when it is not ``thinking``
    ending: Ending = "done"  # "eof": the body ends cleanly without the server's end marker

    def path(self) -> str:
        return f"{self.name}.txt"

    def turn(self, chunk_chars: int = 3) -> Turn:
        """The shape as one scripted answer, in token-sized pieces."""
        return Turn(
            content=self.content,
            thinking=self.thinking,
            chunk_chars=chunk_chars,
            done_reason=self.done_reason,
            ending=self.ending,
        )


def _args(name: str) -> dict[str, Any]:
    return {"path": f"{name}.txt", "content": CONTENT}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _call(name: str, key: str = "arguments") -> str:
    return _json({"name": "write_file", key: _args(name)})


def call_shapes() -> list[Shape]:
    """The shapes that must end with the intended ``write_file`` call."""
    shapes = [
        Shape(
            "qwen_tool_call_tag",
            "cubist38/mlx-openai-server#83; ollama/ollama#17274 (qwen2.5/qwen3 <tool_call>)",
            f"<tool_call>\n{_call('qwen_tool_call_tag')}\n</tool_call>",
        ),
        Shape(
            "qwen_coder_bare_json",
            "NousResearch/hermes-agent#5867; jundot/omlx#2565 (qwen2.5-coder bare JSON)",
            _call("qwen_coder_bare_json"),
        ),
        Shape(
            "llama32_json_fence",
            "ollama/ollama#13519 (llama3.2:3b fenced json with parameters)",
            f"```json\n{_call('llama32_json_fence', 'parameters')}\n```",
        ),
        Shape(
            "llama31_python_tag",
            "meta-llama/llama-models#169 and #266; raullenchai/Rapid-MLX#703 (<|python_tag|>)",
            "<|python_tag|>"
            + _json(
                {
                    "type": "function",
                    "name": "write_file",
                    "parameters": _args("llama31_python_tag"),
                }
            )
            + "<|eom_id|>",
        ),
        Shape(
            "llama32_pythonic_list",
            "ollama/ollama#7824; meta-llama/llama-models#169 (llama3.2 [name(a=…)] calls)",
            f"[write_file(path={'llama32_pythonic_list.txt'!r}, content={CONTENT!r})]",
        ),
        Shape(
            "mistral_nemo_list",
            "ml-explore/mlx-lm#1374; vllm-project/vllm#10333 ([TOOL_CALLS] JSON list)",
            f"[TOOL_CALLS] [{_call('mistral_nemo_list')}]",
        ),
        Shape(
            "mistral_v11_args",
            "vllm-project/vllm#39294 (devstral [TOOL_CALLS]name[ARGS]{...})",
            f"[TOOL_CALLS]write_file[ARGS]{_json(_args('mistral_v11_args'))}",
        ),
        Shape(
            "llama_function_tag",
            "meta-llama/llama-models#169; NousResearch/hermes-agent#35129 (<function=name>)",
            f"<function=write_file>{_json(_args('llama_function_tag'))}</function>",
        ),
        Shape(
            "qwen3_coder_xml",
            "InternLM/lmdeploy#3840; vllm-project/vllm#25028 (Qwen3-Coder XML parameters)",
            "<tool_call>\n<function=write_file>\n<parameter=path>\nqwen3_coder_xml.txt\n"
            f"</parameter>\n<parameter=content>\n{CONTENT}\n</parameter>\n</function>\n</tool_call>",
        ),
        Shape(
            "gemma_tool_code",
            "google-gemma/cookbook#155 (Gemma 3 function calling: a ```tool_code block)",
            f"```tool_code\nwrite_file(path={'gemma_tool_code.txt'!r}, content={CONTENT!r})\n```",
        ),
        Shape(
            "gpt_oss_harmony",
            "lablup/mlxcel#658; raullenchai/Rapid-MLX#1153 (gpt-oss harmony channels)",
            "<|channel|>analysis<|message|>The user wants a file. Write it.<|end|>"
            "<|start|>assistant<|channel|>commentary to=functions.write_file "
            f"<|constrain|>json<|message|>{_json(_args('gpt_oss_harmony'))}<|call|>",
            thinking_after="The user wants a file. Write it.",
        ),
        Shape(
            "deepseek_markers",
            "google/adk-python#5654; MoonshotAI/kimi-code#798 (DeepSeek tool-call tokens)",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n"
            f"```json\n{_json(_args('deepseek_markers'))}\n```<｜tool▁call▁end｜>"
            "<｜tool▁calls▁end｜>",
        ),
        Shape(
            "glm_arg_key",
            "alibaba/rtp-llm#525; ggml-org/llama.cpp#15186 (GLM <arg_key>/<arg_value>)",
            "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>glm_arg_key.txt"
            f"</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{CONTENT}</arg_value>\n"
            "</tool_call>",
        ),
        Shape(
            "text_then_tag",
            "ollama/ollama#17274 (qwen2.5: a sentence, then the <tool_call> block)",
            f"I will write the file now.\n<tool_call>\n{_call('text_then_tag')}\n</tool_call>",
            answer="I will write the file now.",
        ),
        Shape(
            "call_in_reasoning",
            "VincenzoManto/Doxa#9 (qwen2.5: the call written inside the reasoning)",
            "",
            thinking=f"I should save it.\n<tool_call>\n{_call('call_in_reasoning')}\n</tool_call>",
        ),
    ]
    return shapes


def ending_shapes() -> list[Shape]:
    """Shapes that end without a call: the user gets a clear notice, never raw markup."""
    return [
        Shape(
            "unknown_tool_tag",
            "ollama/ollama#17274 (a <tool_call> naming a tool that was never offered)",
            '<tool_call>\n{"name": "Apply tags to a document", "arguments": {"tags": ["a"]}}\n'
            "</tool_call>",
            calls=False,
            notice="text_call_unusable",
        ),
        Shape(
            "mistral_fake_call",
            "matlab-deep-learning/llms-with-matlab#94 ([TOOL_CALLS] with unreadable JSON)",
            '[TOOL_CALLS]{"content": Movement complete}',
            calls=False,
            notice="text_call_unusable",
        ),
        Shape(
            "empty_after_a_failed_parse",
            "ollama/ollama#17274 (the server's parser ate the call: no content, no tool_calls)",
            "",
            calls=False,
            notice="empty_answer",
        ),
        Shape(
            "r1_lone_close_think",
            "deepseek-ai/DeepSeek-R1#352; open-webui/open-webui#9808 (only </think> arrives)",
            "Okay, the user greets me. I should greet back.\n</think>\n\nHello! 你好 👋",
            answer="Hello! 你好 👋",
            calls=False,
            thinking_after="Okay, the user greets me. I should greet back.",
        ),
        Shape(
            "unclosed_think_cut",
            "QwenLM/Qwen3#1427 (qwq: <think> never closes, the context runs out)",
            "<think>Let me count carefully. 1, 2, 3, 4, 5, 6",
            calls=False,
            notice="answer_cut",
            done_reason="length",
            thinking_after="Let me count carefully. 1, 2, 3, 4, 5, 6",
        ),
        Shape(
            "unclosed_think_stops",
            "QwenLM/QwQ#27 (the reasoning ends without </think> and without an answer)",
            "<think>所以答案是76。",
            calls=False,
            notice="thinking_only",
            thinking_after="所以答案是76。",
        ),
        Shape(
            "thinking_spends_the_budget",
            "lmstudio-ai/lmstudio-bug-tracker#1990 (reasoning takes every token, content empty)",
            "",
            thinking="The user asks about sets. Checking each of the 1,670 strings one by one",
            calls=False,
            notice="answer_cut",
            done_reason="length",
        ),
        Shape(
            "stream_ends_early",
            "abetlen/llama-cpp-python#1038 (the stream is interrupted, the output obviously not "
            "complete); NVIDIA/TensorRT-LLM#18289 review (an early disconnect before [DONE])",
            "The three files are: notes.md, 计划.txt and 🚀.l",
            answer="The three files are: notes.md, 计划.txt and 🚀.l",
            calls=False,
            notice="answer_incomplete",
            ending="eof",
        ),
        Shape(
            "stream_ends_after_a_call",
            "NVIDIA/TensorRT-LLM#18289 review (an early disconnect turns into a plausible result); "
            "a whole <tool_call> before the cut must still not run",
            f"<tool_call>{_call('stream_ends_after_a_call')}</tool_call>",
            calls=False,
            notice="answer_incomplete",
            ending="eof",
        ),
    ]


#: Markup that must never reach the user as the answer.
MARKUP = (
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "<|python_tag|>",
    "[TOOL_CALLS]",
    "<|channel|>",
    "<|message|>",
    "tool▁call",
    "```tool_code",
    "<arg_key>",
    '"arguments"',
    '"parameters"',
    "</think>",
    "<think>",
)
