"""The compiled walk filter hides exactly what the policy's per-entry checks hide."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tray_app.tools.fs.fs_walk import Walk
from tray_app.tools.fs.walk_filter import HiddenFromModel
from tray_app.tools.sandbox.path_rules import SENSITIVE_PATTERNS, SENSITIVE_TEMPLATES

NAMES = [
    *(p.replace("*", "x") for p in SENSITIVE_PATTERNS),
    *(p.replace("*", "").upper() for p in SENSITIVE_PATTERNS),
    *SENSITIVE_TEMPLATES,
    ".ENV.Example",
    ".env.local",
    "Id_Rsa.pub",
    "server.PEM",
    "ｓｅｃｒｅｔ.pem",  # full-width letters
    "e\u0301.key",  # decomposed é: NFC before folding
    "config",
    "config.json",
    "notes.txt",
    "密码.txt",
    "🙂.key",
    "\u202eyek.txt",
    "key",
    "pem",
    "credentials",
    "CREDENTIALS.json",
    "blocked",
    "Blocked",
    "app-data",
]


def build(root: Path) -> None:
    folders = ("", "sub", ".kube", ".docker", "deep/深", "blocked", "Other/app-data")
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for folder in folders:
        for name in NAMES:
            path = root / folder / name
            if not path.exists():
                path.write_text("x")


def test_walk_filter_equals_the_policy_checks(layout: Any, policy_for: Any) -> None:
    root = layout.work
    build(root)
    policy = policy_for(
        blocked_dirs=[root / "blocked", root / "Other" / "app-data", layout.outside / "blocked"]
    )
    fast = HiddenFromModel(policy, root)
    seen: list[str] = []

    def both(entry: Any) -> bool:
        """Every entry a walk meets (a hidden folder is not entered): both filters agree."""
        slow = policy.is_secret_entry(entry.path) or policy.is_blocked(entry.path)
        assert fast(entry) == slow, entry.rel
        seen.append(entry.rel)
        return bool(slow)

    list(Walk(root, max_depth=8, include_hidden=True, skip=both))
    assert len(seen) > 200

    # the whole-folder form (``keep``) the walk uses gives the same walk as asking the policy
    def slow(entry: Any) -> bool:
        return bool(policy.is_secret_entry(entry.path) or policy.is_blocked(entry.path))

    by_policy = [e.rel for e in Walk(root, max_depth=8, include_hidden=True, skip=slow)]
    by_filter = [e.rel for e in Walk(root, max_depth=8, include_hidden=True, skip=fast)]
    assert by_filter == by_policy
    # and the filter really hides things: the blocked folder and a secret name
    names = set(by_filter)
    assert "blocked" not in names and os.path.join("Other", "app-data") not in names
    assert "id_rsax" not in names and os.path.join(".kube", "config") not in names
    assert "notes.txt" in names and os.path.join("deep", "深", "密码.txt") in names


def test_a_root_inside_a_blocked_folder_hides_everything(layout: Any, policy_for: Any) -> None:
    (layout.work / "blocked" / "in").mkdir(parents=True)
    (layout.work / "blocked" / "in" / "a.txt").write_text("x")
    policy = policy_for(blocked_dirs=[layout.work / "blocked"])
    walk = Walk(
        layout.work / "blocked", max_depth=4, skip=HiddenFromModel(policy, layout.work / "blocked")
    )
    assert list(walk) == []
