"""No numbers from our own issue tracker in code, tests, benches, scripts or docs.

A reader of the tree cannot look those numbers up, so a comment that says "(issue N)" tells
them nothing; it should say why instead. The rule, kept simple on purpose: the word "issue"
(or "issues") followed by a number, optionally with a ``[tag]`` and a ``#`` in between, is a
finding unless the word just before it names another project, that is an ``owner/repo`` slug
or one of ``KNOWN_PROJECTS``. Citations of public bugs elsewhere stay, named:
``ollama/ollama#16038``, ``pywebview #1699`` (the ``#N`` form is not checked at all).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Where the rule applies: the folders and the documents a reader of the tree meets.
CHECKED = (
    "tray_app",
    "tests",
    "bench",
    "web/js",
    "web/css",
    "scripts",
    "packaging",
    "docs",
    "README.md",
    "CHANGELOG.md",
)

#: Folders under those that are generated or third-party, never ours to word.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", ".venv", ".mypy_cache", ".ruff_cache"})

#: Other projects whose public issue numbers may be cited by name (lower case).
KNOWN_PROJECTS = frozenset(
    {"ollama", "pywebview", "chromium", "cpython", "python", "gtk", "webkitgtk", "pystray"}
)

#: "issue" then a number, with an optional ``[tag]`` and ``#`` between.
ISSUE_REF = re.compile(r"\bissues?\s*(?:\[[^\]\n]{0,40}\]\s*)?#?\s*\d+", re.IGNORECASE)
#: The last word of the text before a reference, across spaces, a line break and punctuation.
WORD_BEFORE = re.compile(r"([\w./-]*)[^\w]{0,8}$")


def names_a_project(word: str) -> bool:
    """Whether ``word`` (what stands just before "issue") names a project other than ours."""
    word = word.strip(".-").lower()
    return "/" in word.strip("/") or word in KNOWN_PROJECTS


def findings(text: str) -> list[str]:
    """Each ``issue N`` in ``text`` not preceded by a project's name, as its line's text."""
    found = []
    for match in ISSUE_REF.finditer(text):
        before = WORD_BEFORE.search(text[max(0, match.start() - 200) : match.start()])
        if before is not None and names_a_project(before[1]):
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        found.append(text[start : end if end != -1 else len(text)].strip())
    return found


def checked_files() -> list[Path]:
    """Every file the rule applies to that reads as UTF-8 text."""
    files: list[Path] = []
    for name in CHECKED:
        top = ROOT / name
        if top.is_file():
            files.append(top)
        elif top.is_dir():
            files.extend(
                path
                for path in sorted(top.rglob("*"))
                if path.is_file() and not SKIPPED_DIRS.intersection(path.parts)
            )
    return files


def test_no_issue_numbers_of_our_tracker() -> None:
    bad = []
    for path in checked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        bad.extend(f"{path.relative_to(ROOT)}: {line}" for line in findings(text))
    assert not bad, "say why instead of our tracker's number:\n" + "\n".join(bad)


def test_the_tree_is_actually_scanned() -> None:
    """The scan finds this very file and the app's code, so an empty result means something."""
    files = set(checked_files())
    assert Path(__file__).resolve() in files
    assert ROOT / "tray_app" / "__init__.py" in files


# Examples are built with f-strings so this file itself stays clean under its own rule.
N = 11


@pytest.mark.parametrize(
    "text",
    [
        f'"""directory_tree (issue {N}): nested JSON."""',
        f"# Issue {N}'s guards",
        f"(start-up, issue {N})",
        f"see issue #{N}",
        f"issues {N} and 12",
        f"Issue [page] #{N} item 3: the title was cut",
        f"the tools\nissue {N} added",
        f"# 问题 issue {N}：中文",
    ],
)
def test_our_numbers_are_found(text: str) -> None:
    assert findings(text)


@pytest.mark.parametrize(
    "text",
    [
        f"(deadlock, pywebview #{N}99)",
        f"its models do not see them (ollama/ollama issue {N}038, open)",
        f"reads images (ollama\nissue {N}038, open)",
        f"vllm-project/vllm issue #{N}",
        "the issue's example: ~258 lines before",
        "issue threads: qwen2.5-coder",
        "an issue with 3 parts",
    ],
)
def test_citations_and_plain_words_pass(text: str) -> None:
    assert not findings(text)
