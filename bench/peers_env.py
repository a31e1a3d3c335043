"""The peers' own environment: the official ``ollama`` and ``openai`` clients, for the bench only.

They are never dependencies of the app: ``make bench`` makes ``.venv-bench-peers`` beside the
project's ``.venv`` the first time (a plain venv and pip, through whatever package index pip is
configured for) and reuses it afterwards. Without a network the rows that need a peer say so and
the rest of the bench still runs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / ".venv-bench-peers"
PACKAGES = ("ollama>=0.4,<1", "openai>=1.40,<3")


def peer_python() -> Path | None:
    """The peers' interpreter, made on first use; None when it cannot be made."""
    python = PEERS / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    if python.exists() and _has_clients(python):
        return python
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(PEERS)], check=True, timeout=300)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *PACKAGES],
            check=True,
            timeout=900,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"peers   could not install the official clients: {exc}")
        return None
    return python if _has_clients(python) else None


def _has_clients(python: Path) -> bool:
    done = subprocess.run(
        [str(python), "-c", "import ollama, openai"], capture_output=True, timeout=120
    )
    return done.returncode == 0
