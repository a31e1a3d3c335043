"""The claim detector behind the "No files were changed in this turn" note."""

from __future__ import annotations

import pytest

from tray_app.agent.claims import EDGE_CHARS, claims_a_change

CLAIMS = [
    "I've created `notes.txt` with your list.",
    "I’ve written the summary to report.md.",
    "I have now saved the changes.",
    "I just deleted the temporary files.",
    "Done! The file has been created in your workspace.",
    "config.json has been successfully updated.",
    "File created successfully.",
    "The changes were saved.",
    "I saved the file as draft.txt 🙂",
    "I wrote your notes to 笔记.md",
    "Renamed it? Yes: I renamed the folder to `archive`.",
    "Saved it.",
    "Done, created notes.md",
    "已创建文件 notes.txt。",
    "我已经写入了配置。",
    "文件已保存到工作区。",
    "已删除临时文件。",
    "我修改了 main.py 中的两行。",
    "成功创建了目录 数据/。",
]
NOT_CLAIMS = [
    "I'll create the file once you confirm.",
    "Shall I save this as notes.txt?",
    "I have not written anything yet.",
    "I cannot delete files outside the workspace.",
    "Here is the content you could put in config.json:",
    "To create a file, use the write_file tool.",
    "我可以为你创建这个文件吗？",
    "文件尚未保存。",
    "没有删除任何文件。",
    "我将写入以下内容：",
    "The sky is blue because of Rayleigh scattering.",
    "```python\n# the file has been created by the build\nprint('hi')\n```\nRun this script.",
    "Created by the build script, this file lists the tasks.",
    "",
]


@pytest.mark.parametrize("answer", CLAIMS)
def test_a_claim_is_seen(answer: str) -> None:
    assert claims_a_change(answer)


@pytest.mark.parametrize("answer", NOT_CLAIMS)
def test_no_claim_is_seen(answer: str) -> None:
    assert not claims_a_change(answer)


def test_only_the_edges_of_a_huge_answer_are_read() -> None:
    middle = "I've created it. " * 100_000  # 1.7 MB of claims in the middle only
    padding = "plain words 🙂 \u202e " * (EDGE_CHARS // 10)
    assert not claims_a_change(padding + middle + padding)
    assert claims_a_change(padding + middle + padding + "已保存。")


def test_an_unclosed_fence_hides_only_what_follows_it() -> None:
    assert claims_a_change('I saved the file.\n```json\n{"a": 1}')
    assert not claims_a_change("```\n" + "has been created\n" * 10_000)
