"""The red-team world: a realistic tree in tmp with planted secrets (see ``build_world``).

Below the test's tmp folder::

    work/        the allowed workspace: sources, odd names, sensitive files holding secrets,
                 links of every kind, hard links, a FIFO, a socket, a device node (when mknod
                 works), a 2 GB sparse file, a deep tree, a wide one of hard links, a .git folder
    work_evil/   the prefix sibling (``work`` vs ``work_evil``), secrets
    outside/     never allowed: secrets in contents, in a file name, behind links and hard links
    home/        HOME and XDG_* point here: credential folders and the app's own folders

Every secret is ``SECRET-<KIND>-<random>``; the process's cwd is the outside folder, so a path
resolved against the cwd instead of the workspace would land there.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import stat
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tray_app.base.paths import AppPaths
from tray_app.tools.journal.journal import Journal
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

FILE_TOOLS = (
    "read_file",
    "write_file",
    "list_directory",
    "search_files",
    "create_directory",
    # the tools declared in their own modules, before the recursive delete
    "edit_file",
    "move_file",
    "read_multiple_files",
    "directory_tree",
    "get_file_info",
    "delete_file",
)
NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")
LONG_NAME = "L" * 251 + ".txt"  # 255 bytes, the most ext4 takes
DEEP_LEVELS = 60
WIDE_FILES = 620
SPARSE_SIZE = 2 * 1024**3


@dataclass(frozen=True)
class Case:
    """One call. ``args`` may hold ``@W@``-style placeholders (see ``World.fill``)."""

    tool: str
    args: Any
    expect: str = "deny"  # deny | ok | any
    check: Callable[[World, dict[str, Any]], str | None] | None = None
    leak_ok: bool = False  # an approved, unsandboxed command may print what it reads
    note: str = ""


@dataclass
class World:
    root: Path
    work: Path
    evil: Path
    outside: Path
    home: Path
    far: Path | None  # a folder outside /tmp, for commands run in the bwrap sandbox
    secrets: dict[str, str]  # kind -> planted value
    files: dict[str, bytes]  # ordinary files in work (relative path -> content)
    journal: Journal
    protected: list[Path]
    has_device: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def fill(self, value: Any) -> Any:
        """Replace the placeholders in every string of ``value``."""
        if isinstance(value, str):
            for key, path in (
                ("@W@", self.work),
                ("@E@", self.evil),
                ("@O@", self.outside),
                ("@O_@", str(self.outside).lstrip("/")),
                ("@H@", self.home),
                ("@T@", self.root),
                ("@V@", self.far or self.outside),
            ):
                value = value.replace(key, str(path))
            return value.replace("@S-OUT@", self.secrets["OUTSIDE"])
        if isinstance(value, dict):
            return {self.fill(k): self.fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        return value

    def policy(self, kind: str = "work") -> SandboxPolicy:
        """``work``: only the workspace is allowed. ``home``: the home folder too (the default
        setting allows home and temp). ``sandbox``: home is the workspace and the only allowed
        folder, and commands run in bubblewrap."""
        allowed = {
            "work": [self.work],
            "off": [self.work],
            "home": [self.work, self.home],
            "sandbox": [self.home],
        }
        workspace = self.home if kind == "sandbox" else self.work
        return SandboxPolicy(
            allowed_dirs=allowed[kind],
            workspace=workspace,
            protected_dirs=self.protected,
            run_command_enabled=kind != "off",
            sandbox_enabled=kind == "sandbox",
            home=self.home,
        )

    def toolbox(self, kind: str = "work") -> Toolbox:
        return Toolbox(self.policy(kind), journal=self.journal)

    def leak_values(self, kind: str) -> list[str]:
        """Secrets that no output may hold under the policy ``kind``."""
        hidden = ["OUTSIDE", "HARDLINK", "INSIDE", "CRED", "APP", "ENV"]
        if kind in ("work", "off"):
            hidden.append("HOMEONLY")  # an ordinary home file: readable once home is allowed
        return [self.secrets[k] for k in hidden]

    def watched(self, kind: str) -> list[Path]:
        """What must not change (or be read) under the policy ``kind``."""
        found = [self.evil, self.outside]
        if kind in ("work", "off"):
            found.append(self.home)
        else:
            found += [self.home / n for n in (".ssh", ".aws", "dotfiles/gnupg", ".config/gh")]
            found += [p for p in self.protected if self.home in p.parents]
        if kind == "sandbox":
            found.append(self.work)
        if self.far is not None:
            found.append(self.far)
        return found


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def build_world(tmp: Path, monkeypatch: pytest.MonkeyPatch, *, far: Path | None = None) -> World:
    token = secrets.token_hex(6)
    planted = {
        kind: f"SECRET-{kind}-{token}"
        for kind in ("OUTSIDE", "HARDLINK", "INSIDE", "CRED", "APP", "ENV", "HOMEONLY")
    }
    work, evil, outside, home = (tmp / n for n in ("work", "work_evil", "outside", "home"))
    for folder in (work, evil, outside, home):
        folder.mkdir()
    _home(home, planted, monkeypatch)
    _outside(outside, evil, work, planted)
    files = _ordinary_files(work)
    _sensitive_files(work, planted)
    has_device = _special_files(work)
    _links(work, outside, evil, home)
    os.link(outside / "hard_secret.txt", work / "hard_out.txt")
    _write(work / "hard_a.txt", "an ordinary file with two names inside the workspace\n")
    os.link(work / "hard_a.txt", work / "hard_b.txt")
    app = AppPaths.from_env().protected_dirs()
    protected = [home / ".config/metona-tray", home / ".local/share/metona-tray", *app]
    journal = Journal(AppPaths.from_env().journal_dir)
    monkeypatch.chdir(outside)  # a relative path resolved against the cwd would land here
    return World(
        root=tmp,
        work=work,
        evil=evil,
        outside=outside,
        home=home,
        far=far,
        secrets=planted,
        files=files,
        journal=journal,
        protected=protected,
        has_device=has_device,
    )


def _home(home: Path, planted: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    cred, app = planted["CRED"], planted["APP"]
    _write(home / "notes.txt", "home notes\n")
    _write(home / "private.txt", f"diary {planted['HOMEONLY']}\n")
    _write(home / ".bashrc", "export PATH=$PATH:~/bin\n")
    _write(home / ".ssh/id_rsa", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{cred}\n")
    _write(home / ".ssh/config", f"Host prod\n  IdentityFile ~/.ssh/id_rsa # {cred}\n")
    _write(home / ".ssh/known_hosts", f"prod ssh-ed25519 AAAA{cred}\n")
    _write(home / ".aws/credentials", f"[default]\naws_secret_access_key = {cred}\n")
    _write(home / ".aws/config", f"[default]\nregion = eu-west-1 # {cred}\n")
    _write(home / "dotfiles/gnupg/pubring.kbx", f"keyring {cred}\n")
    os.symlink(home / "dotfiles/gnupg", home / ".gnupg")  # as GNU stow folds folders
    _write(home / ".config/gh/hosts.yml", f"github.com:\n  oauth_token: {cred}\n")
    _write(home / ".config/metona-tray/settings.json", json.dumps({"allowed_dirs": [app]}))
    _write(home / ".local/share/metona-tray/chats.sqlite3", f"chat log {app}\n")
    for name, value in {
        "HOME": home,
        "USERPROFILE": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local/share",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_STATE_HOME": home / ".local/state",
    }.items():
        monkeypatch.setenv(name, str(value))
    monkeypatch.setenv("MY_API_KEY", planted["ENV"])
    monkeypatch.setenv("GITHUB_TOKEN", planted["ENV"])
    monkeypatch.setenv("DATABASE_URL", f"postgres://app:{planted['ENV']}@db/app")


def _outside(outside: Path, evil: Path, work: Path, planted: dict[str, str]) -> None:
    out = planted["OUTSIDE"]
    _write(outside / "secret.txt", f"top secret {out}\n")
    _write(outside / "sub/deeper.txt", f"deeper {out}\n")
    _write(outside / f"{out}-name.txt", "the name is the secret\n")
    _write(outside / ".env", f"TOKEN={out}\n")
    _write(outside / "keyboard.ts", f"// {out}\n")
    _write(outside / "hard_secret.txt", f"hard {planted['HARDLINK']}\n")
    os.symlink(outside / "secret.txt", outside / "hop")
    os.symlink(outside / f"{out}-name.txt", outside / "hop_named")
    os.symlink(outside / f"{out}-dir", outside / "hop_dangling")
    os.symlink(outside / "loop", outside / "loop")
    os.symlink(work, outside / "link_back")
    _write(evil / "secret.txt", f"evil twin {out}\n")
    _write(evil / "src/main.py", f"print('{out}')\n")


ORDINARY: dict[str, str] = {
    "README.md": "# Demo project\nSee src/main.py.\n",
    "Makefile": "all:\n\tpython src/main.py\n",
    "src/main.py": "def main():\n    print('hello')  # a.b*c (x) [1] $HOME {} foo|bar\n",
    "src/util.py": "import re\nPATTERN = re.compile(r'\\d+')\nC++ = 'ü🚀 %d'\n",
    "src/components/keyboard.ts": "export const keyboard = 'qwerty';\n",
    "src/components/App.tsx": "export function App() { return null; }\n",
    "templates/forgot_password.html": "<form>forgot your password?</form>\n",
    "lib/pem_utils.py": "def load_pem(text):\n    return text\n",
    "config/.env.example": "API_KEY=changeme\n",
    ".env.sample": "DEBUG=1\n",
    ".env.template": "PORT=8080\n",
    "docs/日本語.md": "日本語のテキスト\n",
    "data/table.csv": "id,name\n1,alpha\n2,beta\n",
    "odd/with space.txt": "space\n",
    "odd/ leading space.txt": "leading space\n",
    "odd/hash#tag.txt": "hash\n",
    "odd/100%.txt": "percent\n",
    "odd/%2e%2e.txt": "encoded dots are a plain name\n",
    "odd/a..b.txt": "dots inside\n",
    "odd/..dots": "leading dots\n",
    "odd/trailing.": "trailing dot\n",
    "odd/-rf": "leading dash\n",
    "odd/--help.md": "double dash\n",
    f"odd/{LONG_NAME}": "long name\n",
    f"odd/{NFC}.txt": "NFC form\n",
    f"odd/{NFD}.txt": "NFD form\n",
    "odd/🚀 launch.txt": "emoji\n",
    "odd/[brackets].txt": "brackets\n",
    "odd/star*.txt": "star\n",
    "odd/back\\slash.txt": "backslash\n",
    "odd/~tilde.txt": "tilde\n",
    "odd/file:colon.txt": "colon\n",
    "$HOME/notes.txt": "a folder literally named $HOME\n",
    "%USERPROFILE%/notes.txt": "a folder literally named %USERPROFILE%\n",
    "~/literal.txt": "a folder literally named ~\n",
    ".git/config": "[core]\n\trepositoryformatversion = 0\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/hooks/pre-commit.sample": "#!/bin/sh\nexit 0\n",
    "trash_me.txt": "delete me\n",
    "full_dir/a.txt": "a\n",
    "full_dir/sub/b.txt": "b\n",
    "mixed/own.txt": "mine\n",
    "legit_links/target.txt": "link target inside\n",
}


def _ordinary_files(work: Path) -> dict[str, bytes]:
    files = {rel: text.encode() for rel, text in ORDINARY.items()}
    for rel, data in files.items():
        _write(work / rel, data)
    _write(work / "odd/new\nline.txt", "newline in the name\n")
    (work / "empty_dir").mkdir()
    deep = work.joinpath(*["d"] * DEEP_LEVELS)
    _write(deep / "bottom.txt", "the bottom\n")
    # 620 names of one file (a pnpm-style hard-link farm; links are 40x cheaper to make here).
    _write(work / "wide/f0000.txt", "w\n")
    for i in range(1, WIDE_FILES):
        os.link(work / "wide/f0000.txt", work / f"wide/f{i:04d}.txt")
    _write(work / "big_text.log", b"0123456789abcdef\n" * 70_000)  # 1.1 MB of text
    with open(work / "big.sparse", "wb") as fh:
        fh.truncate(SPARSE_SIZE)
    _write(work / "binary.bin", bytes(range(256)) * 4)
    _write(work / "long.txt", "".join(f"line {i}\n" for i in range(1, 601)))
    _write(work / "empty.txt", b"")
    _write(work / "crlf.txt", b"one\r\ntwo\r\n")
    return files


SENSITIVE_IN_WORK = (
    ".env",
    ".env.local",
    ".ENV.production",
    "secrets/id_rsa",
    "secrets/id_ed25519.pub",
    "creds.pem",
    "server.key",
    ".git-credentials",
    ".netrc",
    ".pypirc",
    ".pgpass",
    ".envrc",
    "credentials.json",
    "password.txt",
    "passwords.csv",
    "cert.p12",
    "nested/deep/.env.production",
    "credentials/readme.txt",  # everything in a folder with a secret name
    "mixed_secret/.env",
)


def _sensitive_files(work: Path, planted: dict[str, str]) -> None:
    for rel in SENSITIVE_IN_WORK:
        _write(work / rel, f"value={planted['INSIDE']}\n")
    _write(work / "mixed_secret/ordinary.txt", "ordinary\n")


def _special_files(work: Path) -> bool:
    os.mkfifo(work / "fifo")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(work / "sock"))
    finally:
        sock.close()
    try:
        os.mknod(work / "dev_zero", 0o600 | stat.S_IFCHR, os.makedev(1, 5))
    except OSError:
        return False
    return True


def _links(work: Path, outside: Path, evil: Path, home: Path) -> None:
    links = {
        "link_out_file": outside / "secret.txt",
        "link_out_dir": outside,
        "link_out_rel": Path("../outside/secret.txt"),
        "link_evil": Path("../work_evil"),
        "chain1": work / "src/chain2",
        "src/chain2": outside / "hop",
        "chain_named": outside / "hop_named",
        "chain_dangling": outside / "hop_dangling",
        "dangling_out": outside / "new_through_link.txt",
        "dangling_out_dir": outside / "newdir",
        "dangling_in": work / "made_through_link.txt",
        "loop_a": work / "loop_b",
        "loop_b": work / "loop_a",
        "self_loop": work / "self_loop",
        "to_outside_loop": outside / "loop",
        "link_root": Path("/"),
        "link_etc": Path("/etc"),
        "link_proc_root": Path("/proc/self/root"),
        "link_proc_cwd": Path("/proc/self/cwd"),
        "link_dev_zero": Path("/dev/zero"),
        "link_home": home,
        "link_ssh": home / ".ssh",
        "link_app": home / ".config/metona-tray",
        "link_env": work / ".env",
        "link_git": work / ".git",
        "link_fifo": work / "fifo",
        "link_hard": work / "hard_out.txt",
        "link_self_ws": work,
        "link_dotdot": Path(".."),
        "parentlink": outside,
        "legit_links/to_file": work / "legit_links/target.txt",
        "legit_links/to_dir": work / "src",
        "legit_links/relative": Path("target.txt"),
        "loops/up": Path(".."),
        "loops/here": Path("."),
        "mixed/out_file": outside / "secret.txt",
        "mixed/out_dir": outside,
        "mixed/out_rel": Path("../../outside/sub"),
    }
    for rel, target in links.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, work / rel)
