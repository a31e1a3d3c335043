"""The red-team corpus runner and the proof that nothing outside changed or was read.

``run_cases`` sends each call through ``Toolbox.execute`` (and ``Toolbox.preview``) in a daemon
thread with a deadline and collects every broken promise instead of stopping at the first.
``Snapshot`` proves that nothing outside the allowed folders changed, and (through access times)
that no file or folder there was read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redteam_world import FILE_TOOLS, Case, World

from tray_app.tools.toolbox import Toolbox

CALL_DEADLINE = 10.0  # seconds; a call that takes longer counts as a hang (speed: make bench)
HASH_MAX_BYTES = 64 * 1024 * 1024


def _call(fn: Callable[[], Any], deadline: float) -> tuple[str, Any, float]:
    """("ok", value) or ("raised", exc) or ("hang", None), and the seconds it took."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # reported, not swallowed
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(deadline)
    took = time.monotonic() - start
    if thread.is_alive():
        return "hang", None, took
    if "error" in box:
        return "raised", box["error"], took
    return "ok", box.get("value"), took


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def leaks(result: Any, values: list[str]) -> list[str]:
    """The planted values found in ``result``: as text, or inside base64 of any string."""
    text = json.dumps(result, ensure_ascii=False, default=str)
    found = {v for v in values if v in text}
    for item in _strings(result):
        if len(item) < 16:
            continue
        try:
            raw = base64.b64decode(item, validate=True)
        except (binascii.Error, ValueError):
            continue
        found |= {v for v in values if v.encode() in raw}
    return sorted(found)


def run_cases(
    world: World,
    box: Toolbox,
    kind: str,
    cases: list[Case],
    timings: list[tuple[float, str]] | None = None,
) -> list[str]:
    """Run every case (and its preview); return one line per broken promise."""
    problems: list[str] = []
    hidden = world.leak_values(kind)
    for number, case in enumerate(cases):
        args = world.fill(case.args)
        label = f"#{number} {case.tool}({_short(args)}) {case.note}".rstrip()
        status, value, took = _call(lambda a=args, t=case.tool: box.execute(t, a), CALL_DEADLINE)
        if timings is not None:
            timings.append((took, label))
        if status != "ok":
            problems.append(f"{label}: {status} {value!r} after {took:.1f}s")
            continue
        problems += [f"{label}: {p}" for p in _judge(world, case, value, hidden)]
        if case.tool in FILE_TOOLS and case.expect != "ok":
            status, shown, took = _call(
                lambda a=args, t=case.tool: box.preview(t, a), CALL_DEADLINE
            )
            if status != "ok" or not isinstance(shown, dict):
                problems.append(f"{label}: preview {status} {shown!r}")
            elif leaks(shown, hidden):
                problems.append(f"{label}: preview leaks {leaks(shown, hidden)}")
            elif value.get("success") is False and shown.get("kind") not in ("error", "none"):
                problems.append(f"{label}: refused, yet the preview would ask: {shown}")
            elif shown.get("kind") == "error":
                problems += [f"{label}: preview {p}" for p in uncoded(shown)]
    return problems


_ENGLISH = json.loads(
    (Path(__file__).resolve().parents[2] / "web/locales/en.json").read_text(encoding="utf-8")
)


def uncoded(failed: dict[str, Any]) -> list[str]:
    """A failure the card could not say in the user's language: no known ``code``, or
    ``params`` without a value its text names (the page would show ``{path}``)."""
    code = failed.get("code")
    template = _ENGLISH.get(f"tool_error.{code}")
    if not isinstance(template, str):
        return [f"a failure without a known code: {_short(failed)}"]
    params = failed.get("params") or {}
    missing = set(re.findall(r"\{(\w+)\}", template)) - set(params)
    return [f"{code} lacks the params {sorted(missing)}: {_short(failed)}"] if missing else []


def _judge(world: World, case: Case, result: Any, hidden: list[str]) -> list[str]:
    if not isinstance(result, dict) or not isinstance(result.get("success"), bool):
        return [f"not a dict with a bool success: {result!r}"]
    out: list[str] = []
    try:
        json.dumps(result, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        out.append(f"result is not JSON-able UTF-8: {exc}")
    found = [] if case.leak_ok else leaks(result, hidden)
    if found:
        out.append(f"LEAK {found}: {_short(result)}")
    error = result.get("error")
    if result["success"] is False and (not isinstance(error, str) or not error):
        out.append(f"a failure without an error sentence: {result}")
    if isinstance(error, str) and "unexpectedly" in error:
        out.append(f"a handler crashed: {error}")
    if result["success"] is False:
        out += uncoded(result)
    if case.expect == "deny" and result["success"]:
        out.append(f"expected a refusal, got {_short(result)}")
    if case.expect == "ok" and not result["success"]:
        out.append(f"LEGITIMATE CALL REFUSED: {result.get('error')}")
    if case.check is not None and not out:
        problem = case.check(world, result)
        if problem:
            out.append(problem)
    return out


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


# ---- proving that nothing outside changed or was read -------------------------------------


def _below(folder: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        found += [Path(dirpath) / n for n in sorted(dirnames + filenames)]
    return found


def _lstat_all(paths: Iterable[Path]) -> dict[str, tuple[Any, ...]]:
    """Mode, size, mtime, atime (None for links: the resolver must follow them) and target."""
    found: dict[str, tuple[Any, ...]] = {}
    for path in paths:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else None
        atime = None if link is not None else info.st_atime_ns
        found[str(path)] = (info.st_mode, info.st_size, info.st_mtime_ns, atime, link)
    return found


def _hashes(paths: Iterable[Path]) -> dict[str, str]:
    """Content hashes; the 2 GB sparse file is left to size, mtime and access time."""
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in paths
        if p.is_file() and not p.is_symlink() and p.stat().st_size <= HASH_MAX_BYTES
    }


def atimes_work() -> bool:
    """Whether this file system records reads in access times (relatime or strictatime)."""
    return "noatime" not in Path("/proc/mounts").read_text()


@dataclass
class Snapshot:
    """Paths, types, sizes, mtimes, link targets, content hashes and access times.

    Access times are set far before the modification times after the snapshot has read
    everything, so (with relatime) any later read of a file or listing of a folder moves them.
    """

    folders: list[Path]
    paths: list[Path] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)
    meta: dict[str, tuple[Any, ...]] = field(default_factory=dict)

    def take(self) -> Snapshot:
        self.paths = [p for f in self.folders if f.exists() for p in [f, *_below(f)]]
        self.hashes = _hashes(self.paths)
        for path in self.paths:
            info = os.lstat(path)
            if not stat.S_ISLNK(info.st_mode):
                old = info.st_mtime_ns - 10**13
                os.utime(path, ns=(old, info.st_mtime_ns), follow_symlinks=False)
        self.meta = _lstat_all(self.paths)
        return self

    def changes(self, *, reads: bool = True) -> list[str]:
        known = _lstat_all(self.paths)  # before walking or hashing, which read
        now = [p for f in self.folders if f.exists() for p in [f, *_below(f)]]
        meta = {**_lstat_all(now), **known}
        hashes = _hashes(now)
        out: list[str] = []
        for path in sorted(set(meta) | set(self.meta)):
            before, after = self.meta.get(path), meta.get(path)
            if before is None or after is None:
                out.append(f"{'created' if before is None else 'removed'}: {path}")
            elif before[:3] + before[4:] != after[:3] + after[4:]:
                out.append(f"changed: {path} {before} -> {after}")
            elif reads and before[3] != after[3]:
                out.append(f"read (its access time moved): {path}")
        for path, digest in sorted(self.hashes.items()):
            if hashes.get(path) not in (None, digest):
                out.append(f"content changed: {path}")
        return out
