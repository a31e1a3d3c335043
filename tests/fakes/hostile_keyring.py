"""keyring backends for ``metona-tray doctor`` run as a subprocess, chosen with keyring's own
``PYTHON_KEYRING_BACKEND``: each is viable but fails when the app asks which backends it
chains, the way a broken Secret Service session does, with the reason a test needs."""

from __future__ import annotations

from typing import Any

from keyring.backend import KeyringBackend
from keyring.compat import properties

#: A reason keyring does not have: CJK, an emoji, a direction override and a line break, long.
HOSTILE_REASON = "钥匙串坏了\u202egpj.exe👋\n" + "很长的原因" * 400


class _Failing(KeyringBackend):
    reason = "failed"

    @properties.classproperty
    def priority(cls) -> float:
        return 1

    @property
    def backends(self) -> Any:
        raise RuntimeError(self.reason)

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError(self.reason)

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError(self.reason)

    def delete_password(self, service: str, username: str) -> None:
        raise RuntimeError(self.reason)


class LockedKeyring(_Failing):
    """Says what keyring's Secret Service backend says when the collection stays locked."""

    reason = "Failed to unlock the collection!"


class HostileKeyring(_Failing):
    """Says a reason no table knows."""

    reason = HOSTILE_REASON
