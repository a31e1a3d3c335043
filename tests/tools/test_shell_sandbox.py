"""run_command inside bubblewrap: only the workspace is writable, /tmp is private, no network.

These tests need the Debian package ``bubblewrap`` and a kernel that lets it create namespaces;
where either is missing they skip with the reason found at run time.
"""

from __future__ import annotations

import os
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.waiting import eventually
from tests.tools.shell_helpers import bwrap_problem, run_command
from tray_app.base.paths import AppPaths
from tray_app.tools.sandbox.policy import SandboxPolicy

# A Python the sandbox can see: the test's venv may live under /tmp, which is private inside it.
SANDBOX_PYTHON = next(
    path
    for path in ("/usr/bin/python3", os.path.join(sys.base_prefix, "bin", "python3"))
    if os.path.exists(path)
)


PROBLEM = bwrap_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")


@pytest.fixture
def policy(tmp_path: Path) -> SandboxPolicy:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "other").mkdir()
    return SandboxPolicy(
        allowed_dirs=[workspace, tmp_path / "other"],
        workspace=workspace,
        home=tmp_path / "home",
        run_command_enabled=True,
        sandbox_enabled=True,
    )


run = run_command


@pytest.fixture
def var_tmp_file() -> Iterator[Path]:
    """A file outside /tmp (which the sandbox replaces), visible inside the sandbox."""
    path = Path("/var/tmp") / f"metona-sandbox-test-{uuid.uuid4().hex}"
    path.write_text("original")
    yield path
    path.unlink(missing_ok=True)


def test_writes_inside_the_workspace_succeed(policy: SandboxPolicy) -> None:
    result = run(policy, command="echo hi > inside.txt && mkdir sub && echo ok > sub/f")
    assert result["success"] is True, result
    assert result["sandboxed"] is True
    assert (policy.workspace / "inside.txt").read_text() == "hi\n"
    assert (policy.workspace / "sub" / "f").read_text() == "ok\n"


def test_writes_outside_the_workspace_fail(policy: SandboxPolicy, var_tmp_file: Path) -> None:
    result = run(policy, command=f"echo changed > {var_tmp_file}")
    assert result["success"] is False
    assert "Read-only file system" in result["stderr"]
    assert var_tmp_file.read_text() == "original"
    result = run(policy, command=f"rm -f {var_tmp_file}; touch {var_tmp_file}.new")
    assert var_tmp_file.exists()
    assert not Path(f"{var_tmp_file}.new").exists()


def test_tmp_is_private(policy: SandboxPolicy, tmp_path: Path) -> None:
    outside = tmp_path / "other" / "secret.txt"
    outside.write_text("host file")
    result = run(policy, command=f"cat {outside}; echo scratch > /tmp/scratch && cat /tmp/scratch")
    assert "host file" not in result["stdout"]
    assert "scratch" in result["stdout"]
    assert not Path("/tmp/scratch").exists() or Path("/tmp/scratch").read_text() != "scratch\n"


def test_cwd_outside_the_workspace_is_read_only(policy: SandboxPolicy, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "data.txt").write_text("data")
    result = run(policy, command="cat data.txt; touch new.txt", cwd=str(other))
    assert "data" in result["stdout"]
    assert result["success"] is False
    assert not (other / "new.txt").exists()


def test_network_is_unreachable(policy: SandboxPolicy, tmp_path: Path) -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    port = server.getsockname()[1]
    client = (
        f"{SANDBOX_PYTHON} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), "
        'timeout=5); print(1)"'
    )
    try:
        unsandboxed = SandboxPolicy(
            allowed_dirs=[policy.workspace],
            workspace=policy.workspace,
            home=tmp_path / "home",
            run_command_enabled=True,
            sandbox_enabled=False,
        )
        control = run(unsandboxed, command=client)
        assert control["success"] is True, control  # the server is reachable from outside
        result = run(policy, command=client)
        assert result["success"] is False
        assert "Connection refused" in result["stderr"] or "unreachable" in result["stderr"]
    finally:
        server.close()


def test_credential_folders_are_hidden_when_the_workspace_holds_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
    policy = SandboxPolicy(
        allowed_dirs=[home],
        workspace=home,
        home=home,
        run_command_enabled=True,
        sandbox_enabled=True,
    )
    result = run(policy, command="cat .ssh/id_rsa; ls -a .ssh; echo x > .ssh/planted")
    assert "PRIVATE KEY" not in result["stdout"]
    assert not (home / ".ssh" / "planted").exists()


def test_app_folders_stay_read_only(policy: SandboxPolicy) -> None:
    """The app's folders, handed in with the policy (as core does), are read-only inside."""
    app_home = policy.workspace / "app-home"
    paths = AppPaths.under(app_home)
    paths.ensure()
    paths.settings_file.write_text("{}")
    policy = SandboxPolicy(
        allowed_dirs=policy.allowed_roots,
        workspace=policy.workspace,
        home=policy.home,
        protected_dirs=paths.protected_dirs(),
        run_command_enabled=True,
        sandbox_enabled=True,
    )
    result = run(
        policy, command=f"echo '{{\"run_command_enabled\": true}}' > {paths.settings_file}"
    )
    assert result["success"] is False
    assert paths.settings_file.read_text() == "{}"


def test_capabilities_are_dropped(policy: SandboxPolicy, var_tmp_file: Path) -> None:
    result = run(policy, command=f"mount -o remount,rw / ; echo changed > {var_tmp_file}")
    assert result["success"] is False
    assert var_tmp_file.read_text() == "original"


def test_timeout_kills_everything_in_the_sandbox(policy: SandboxPolicy) -> None:
    marker = f"{uuid.uuid4().int % 900000 + 100000}"
    command = f"sleep {marker} & (setsid sleep {marker} &) ; sleep {marker}"
    result = run(policy, command=command, timeout=1000)
    assert result["timed_out"] is True

    def survivors() -> list[str]:
        found = []
        for proc in Path("/proc").iterdir():
            try:
                cmd = (proc / "cmdline").read_bytes()
                state = (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if cmd == f"sleep\0{marker}\0".encode() and state != b"Z":
                found.append(proc.name)
        return found

    assert eventually(lambda: not survivors()), survivors()
