"""The .deb's control fields, from the real ``build_deb`` and ``dpkg-deb`` on a tiny stand-in
bundle: quick, so it runs without `make package` (the full installers are checked in
test_deb.py)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

BUILD = Path(__file__).resolve().parents[2] / "packaging" / "linux" / "build.py"


def _build_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("metona_linux_build", BUILD)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_the_deb_recommends_the_sandbox_a_colour_emoji_font_and_a_keyring(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    program = bundle / "metona-tray"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    deb = _build_module().build_deb(bundle, tmp_path / "work", tmp_path, "amd64")
    recommends = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Recommends"], capture_output=True, text=True, check=True
    ).stdout
    names = {name.strip() for name in recommends.split(",")}
    # Emoji in paths, file names and code render as pictures, not empty boxes; the keyring
    # keeps API keys and tool servers' secrets (without it they last the session only).
    assert {"bubblewrap", "fonts-noto-color-emoji", "gnome-keyring"} <= names
