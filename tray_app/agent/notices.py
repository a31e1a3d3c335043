"""The loop's own notices in both UI languages (the page has the same texts in web/locales).

The terminal prints a notice's ``message`` as it is, so the loop writes it in the turn's
language; the page shows its own translation by ``code`` and falls back to ``message``.
"""

from __future__ import annotations

_TEXTS: dict[str, dict[str, str]] = {
    "answer_cut": {
        "en": (
            "The answer was cut off: the model ran out of room (its context length or output "
            "limit). Raise the context length in Settings, or ask it to continue."
        ),
        "zh-CN": "回答被截断了：模型的空间已用完（上下文长度或输出上限）。"
        "可以在设置中调大上下文长度，或让它继续。",
    },
    "answer_incomplete": {
        "en": (
            "The answer ended before the model server said it was finished, so any tool call in "
            "it was not run. Ask the model to continue, or raise the context length in Settings."
        ),
        "zh-CN": "模型服务器在回答完成之前就结束了它，因此其中的工具调用都没有运行。"
        "可以让模型继续，或在设置中调大上下文长度。",
    },
    "thinking_only": {
        "en": (
            "The model's reasoning never reached an answer. Ask it to continue, or raise the "
            "context length in Settings."
        ),
        "zh-CN": "模型的思考没有得出回答。可以让它继续，或在设置中调大上下文长度。",
    },
    "empty_answer": {
        "en": "The model sent an empty answer. Send your message again, or try another model.",
        "zh-CN": "模型返回了空的回答。可以重新发送消息，或换一个模型试试。",
    },
    "text_call_unusable": {
        "en": (
            "The model wrote a call to a tool that is not available here ({names}) into its "
            "answer, so nothing ran."
        ),
        "zh-CN": "模型在回答中写了一个此处没有的工具调用（{names}），因此没有运行任何操作。",
    },
    "text_call_unreadable": {
        "en": "The model wrote a tool call into its answer that could not be read, so nothing ran.",
        "zh-CN": "模型在回答中写了一个无法读取的工具调用，因此没有运行任何操作。",
    },
    "tools_off": {
        "en": (
            "Tools are switched off for this model, so this is a plain chat: it cannot read "
            "or change files. Switch them on in the model menu."
        ),
        "zh-CN": "已为此模型关闭工具，这是普通聊天：它无法读取或修改文件。可在模型菜单中打开工具。",
    },
    "answer_limit": {
        "en": (
            "The answer reached {limit:,} characters, the limit in settings, so it was stopped. "
            "What arrived is kept."
        ),
        "zh-CN": "回答已达到 {limit:,} 个字符（设置中的上限），已停止。已收到的内容会保留。",
    },
    "too_many_calls": {
        "en": (
            "The model asked for {count} tool calls in one round; only the first {limit} ran "
            "(the limit in settings). The rest were answered “not run”."
        ),
        "zh-CN": (
            "模型在一轮中请求了 {count} 次工具调用，只运行了前 {limit} 次（设置中的上限），"
            "其余的都答复为“未运行”。"
        ),
    },
    "server_busy_retry": {
        "en": (
            "The model server is busy (HTTP {status}); trying again in {seconds} s "
            "(retry {attempt} of {attempts})."
        ),
        "zh-CN": (
            "模型服务器繁忙（HTTP {status}），{seconds} 秒后重试"
            "（第 {attempt} 次，共 {attempts} 次）。"
        ),
    },
    "waiting_for_model": {
        "en": "Waiting for the model… nothing has arrived for {seconds:g} s. You can stop it.",
        "zh-CN": "正在等待模型… 已有 {seconds:g} 秒没有收到内容。可以随时停止。",
    },
    "history_summarized": {
        "en": (
            "The chat no longer fits the model's context: its {count} oldest messages were "
            "summarised, and the summary is sent instead."
        ),
        "zh-CN": "对话已超出模型的上下文：最早的 {count} 条消息已被总结，发送的是总结。",
    },
    "summary_failed": {
        "en": (
            "The oldest messages could not be summarised ({reason}), so they were left out "
            "to fit the context."
        ),
        "zh-CN": "无法总结最早的消息（{reason}），为适应上下文已将其略去。",
    },
    "nothing_changed": {
        "en": "No files were changed in this turn.",
        "zh-CN": "本轮没有更改任何文件。",
    },
}


def notice_text(code: str, language: str, **values: object) -> str:
    """The sentence for ``code`` in ``language`` (English when there is no translation)."""
    texts = _TEXTS[code]
    return texts.get(language, texts["en"]).format(**values)
