"""ripgrep as a pre-filter for search_files' content search: it says which files may match.

rg never decides what the model sees. It gets only the files the Python walk already let
through, exactly the ones the Python search would open (regular, one link, at most 500 KB, not
secret, not in a blocked folder, no dot-files), as explicit arguments with ``--max-depth 0``, so
it has no folder to recurse into and reads no ignore files (``--no-ignore``) or config
(``--no-config``). Every file it names is then read and matched by the Python code, so the
results, columns and limits are the Python path's by construction.

That needs rg's pattern to match at least every line the Python search matches:

* the query is passed as code points (``\\x{..}``), so no character is special;
* case-insensitive: Python compares ``line.lower()`` with ``query.lower()``; rg's ``(?i)``
  simple case folding covers every single-character lowercase mapping (checked over all of
  Unicode), and the one character whose lowercase is two, ``İ`` (``i`` + U+0307), is added by
  hand: ``i`` also matches ``İ`` and U+0307 becomes optional;
* rg decodes UTF-8 and BOM-marked UTF-16 as Python does, and with ``--text`` a NUL byte is just
  a byte, as it is to Python past its binary sniff. UTF-32, which rg cannot decode, is read
  by Python whatever rg says: ``starts_utf32`` picks those files out by their BOM (a 4-byte
  read, ~1.5 us a file, done while rg runs). (A NUL alternative in the pattern would do the
  same but costs rg its literal fast path: 4-6x slower.)

Queries rg cannot take as a pattern the same way (a newline, U+FFFD, text that is not valid
Unicode) go to the Python search. Known limit (as in the sandbox docstring): a file swapped
for a symbolic link between the walk and rg is followed by rg; what it read reaches nobody,
since Python's own read opens with ``O_NOFOLLOW``.
"""

from __future__ import annotations

import codecs
import functools
import os
import select
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Sequence

# Windows limits a command line to 32,767 characters; POSIX allows far more per process.
MAX_ARGV_CHARS = 24_000 if os.name == "nt" else 512_000
_POLL = 0.05


@functools.cache
def rg_binary() -> str | None:
    """The ``rg`` of the ``ripgrep`` package next to this interpreter, else one on PATH."""
    name = "rg.exe" if os.name == "nt" else "rg"
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        if folder:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return shutil.which(name)


def rg_pattern(query: str, case_sensitive: bool) -> str | None:
    """rg's pattern for ``query`` (a superset of the Python match), or None: use Python."""
    if "\n" in query or "\ufffd" in query:
        return None
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: no file's text can hold them
        return None
    parts: list[str] = []
    for char in query if case_sensitive else query.lower():
        if not case_sensitive and char == "i":
            parts.append("(?:i|\\x{130})")
        elif not case_sensitive and char == "\u0307":
            parts.append("\\x{307}?")
        elif char.isascii() and char.isalnum():
            parts.append(char)
        else:
            parts.append(f"\\x{{{ord(char):x}}}")
    return ("" if case_sensitive else "(?i)") + "".join(parts)


_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
_PROBE_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
)


def starts_utf32(path: str) -> bool:
    """True when the file begins with a UTF-32 BOM (or cannot be probed): Python reads it."""
    try:
        fd = os.open(path, _PROBE_FLAGS)
    except OSError:
        return True
    try:
        return os.read(fd, 4) in _UTF32_BOMS
    except OSError:
        return True
    finally:
        os.close(fd)


def may_match(
    rg: str,
    pattern: str,
    files: Sequence[str],
    *,
    deadline: float,
    cancel: threading.Event | None = None,
    on_named: Callable[[str], None] | None = None,
) -> set[str] | None:
    """The subset of ``files`` rg says may match, or None when rg could not answer for all.

    None means "read them all in Python" (rg missing, failed, a file vanished); a cancel or
    the deadline also gives None, and the caller's walk notices the same stop. ``on_named``
    is called (in this thread) with each file as soon as rg names it, while rg scans the
    rest: rg prints a name a line, flushed at once (``--line-buffered``), so no file given
    may hold a line break (None: the caller reads such files itself).
    """
    if not files:
        return set()
    if any("\n" in name for name in files):
        return None
    command = [
        rg,
        "--no-config",
        "--no-ignore",
        "--max-depth=0",
        "--files-with-matches",
        "--line-buffered",
        "--text",
        "--no-messages",
        "--color=never",
        "--regexp",
        pattern,
        "--",
        *files,
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIPGREP_")}
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0) if os.name == "nt" else 0
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            creationflags=flags,
        )
    except OSError:
        return None
    names = _Names(set(files), on_named)
    # rg can only name files it was given, each once: more output than that is a broken rg.
    cap = sum(len(os.fsencode(f)) + 1 for f in files) + 1
    if not _bounded_output(proc, cap, deadline, cancel, names.take) or names.broken:
        return None
    if names.rest or proc.returncode not in (0, 1):
        return None
    return names.named


class _Names:
    """rg's output taken as it comes: the files it names, each checked against those given."""

    def __init__(self, given: set[str], on_named: Callable[[str], None] | None) -> None:
        self.given = given
        self.on_named = on_named
        self.named: set[str] = set()
        self.rest = b""  # the start of a line whose end has not come yet
        self.broken = False  # rg named a file it was not given, or one twice

    def take(self, chunk: bytes) -> None:
        lines = (self.rest + chunk).split(b"\n")
        self.rest = lines.pop()
        for raw in lines:
            name = os.fsdecode(raw)
            if self.broken or name not in self.given or name in self.named:
                self.broken = True
                return
            self.named.add(name)
            if self.on_named is not None:
                self.on_named(name)


def _bounded_output(
    proc: subprocess.Popen[bytes],
    cap: int,
    deadline: float,
    cancel: threading.Event | None,
    take: Callable[[bytes], None],
) -> bool:
    """Hands everything rg prints to ``take``; False (rg killed) past ``cap`` bytes, the
    deadline or a cancel."""
    stdout = proc.stdout
    assert stdout is not None
    try:
        if os.name == "nt":
            output = _read_in_thread(stdout.fileno(), cap, deadline, cancel)
            if output is None:
                return False
            take(output)
            return True
        return _read_polling(stdout.fileno(), cap, deadline, cancel, take)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        stdout.close()


def _stopped(deadline: float, cancel: threading.Event | None) -> bool:
    return time.monotonic() > deadline or (cancel is not None and cancel.is_set())


def _read_polling(
    fd: int,
    cap: int,
    deadline: float,
    cancel: threading.Event | None,
    take: Callable[[bytes], None],
) -> bool:
    total = 0
    while not _stopped(deadline, cancel):
        ready, _, _ = select.select([fd], [], [], _POLL)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return True
        total += len(chunk)
        if total > cap:
            return False
        take(chunk)
    return False


def _read_in_thread(
    fd: int, cap: int, deadline: float, cancel: threading.Event | None
) -> bytes | None:
    """Windows: no select() on pipes, so a thread reads while this one watches the clock."""
    chunks: list[bytes] = []
    over = threading.Event()

    def read() -> None:
        total = 0
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            total += len(chunk)
            if total > cap:
                over.set()
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read, name="metona-rg-output", daemon=True)
    reader.start()
    while reader.is_alive() and not over.is_set() and not _stopped(deadline, cancel):
        reader.join(_POLL)
    if reader.is_alive() or over.is_set():
        return None
    return b"".join(chunks)
