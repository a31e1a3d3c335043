"""Fixtures for the tool tests: a private folder layout, a policy over it, a toolbox, a journal.

Tests run as root with HOME=/root, and /root is a blocked system folder: every policy here gets
explicit allowed folders and an explicit ``home`` inside the test's tmp folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tray_app.base.paths import AppPaths
from tray_app.tools.builtin import delete_file as delete_module
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox


@dataclass
class Layout:
    root: Path  # the test's tmp folder
    work: Path  # the allowed folder and workspace
    outside: Path  # a sibling that is not allowed
    home: Path  # the policy's home folder (not allowed unless a test says so)
    trash: Path  # where the test trash puts things


@dataclass
class FakeJournal:
    """The journal's protocol: ``record`` before a change, then ``commit`` after it succeeded
    or ``discard`` after it failed."""

    events: list[tuple[str, Any]] = field(default_factory=list)

    def record(
        self,
        *,
        call_id: str | None,
        tool: str,
        path: Path,
        required: bool = True,
        deep: bool = True,
    ) -> str:
        existed = os.path.lexists(path)
        content = path.read_bytes() if existed and path.is_file() else None
        self.events.append(("record", (call_id, tool, Path(path), existed, content)))
        return f"entry-{len(self.events)}"

    def record_move(
        self,
        *,
        call_id: str | None,
        source: Path,
        destination: Path,
        required: bool = True,
        tool: str,
    ) -> str:
        self.events.append(("record_move", (call_id, Path(source), Path(destination))))
        return f"entry-{len(self.events)}"

    def commit(self, entry_id: str) -> str | None:
        self.events.append(("commit", entry_id))
        return None

    def discard(self, entry_id: str) -> None:
        self.events.append(("discard", entry_id))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]


class TestTrash:
    """Stands in for send2trash: moves items into the test's own trash folder."""

    __test__ = False

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.items: list[Path] = []
        self.fail = False

    def __call__(self, path: str) -> None:
        if self.fail:
            raise OSError("trash not available (test)")
        self.folder.mkdir(parents=True, exist_ok=True)
        dest = self.folder / f"{len(self.items)}-{Path(path).name}"
        os.rename(path, dest)
        self.items.append(dest)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    parts = {name: tmp_path / name for name in ("work", "outside", "home", "trash")}
    for folder in parts.values():
        folder.mkdir()
    return Layout(root=tmp_path, **parts)


@pytest.fixture(autouse=True)
def test_trash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestTrash:
    """No test may put anything into the real user's trash."""
    trash = TestTrash(tmp_path / "trash")
    monkeypatch.setattr(delete_module, "trash", trash)
    return trash


def make_policy(layout: Layout, **overrides: Any) -> SandboxPolicy:
    options: dict[str, Any] = {
        "allowed_dirs": [layout.work],
        "home": layout.home,
        "protected_dirs": AppPaths.from_env().protected_dirs(),
    }
    options.update(overrides)
    return SandboxPolicy(**options)


@pytest.fixture
def policy(layout: Layout) -> SandboxPolicy:
    return make_policy(layout)


@pytest.fixture
def journal() -> FakeJournal:
    return FakeJournal()


@pytest.fixture
def box(policy: SandboxPolicy, journal: FakeJournal) -> Toolbox:
    return Toolbox(policy, registry=ToolRegistry(FILE_TOOLS), journal=journal)  # type: ignore[arg-type]


def tree(folder: Path) -> dict[str, bytes | None]:
    """Everything below ``folder`` (links as their target text), to prove nothing changed."""
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                found[rel] = b"-> " + os.fsencode(os.readlink(path))
            elif path.is_file():
                found[rel] = path.read_bytes()
            else:
                found[rel] = None
    return found


@pytest.fixture
def snapshot() -> Callable[[Path], dict[str, bytes | None]]:
    return tree


@pytest.fixture
def policy_for(layout: Layout) -> Callable[..., SandboxPolicy]:
    """``policy_for(allowed_dirs=[...], ...)``: a policy over the layout with overrides."""
    return lambda **overrides: make_policy(layout, **overrides)


@pytest.fixture
def project(layout: Layout) -> Path:
    """A small source tree in the workspace."""
    src = layout.work / "src"
    (src / "main").mkdir(parents=True)
    (src / "renderer").mkdir()
    (layout.work / "package.json").write_text('{"name": "demo"}\n')
    (src / "main" / "main.ts").write_text(
        "// entry\nimport electron from 'electron';\nconst app = electron.app;\n"
    )
    (src / "main" / "ipc.ts").write_text("import { ipcMain } from 'electron';\n")
    (src / "renderer" / "app.js").write_text("console.log('import electron');\n")
    (src / "README.md").write_text("Docs\n")
    return src
