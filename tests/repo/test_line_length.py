"""Python and the page's JavaScript are kept to one line length.

ruff's ``line-length`` (pyproject.toml) is the project's width; Prettier lays web/js out at
its ``printWidth`` and ESLint's max-len catches what Prettier leaves long (comments). Changing
one without the others would let the two languages drift apart unseen, since `make check`
runs each tool against its own number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ruff_line_length() -> int:
    """The ``line-length`` of pyproject.toml's ``[tool.ruff]`` table."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = re.search(r"^\[tool\.ruff\]\n(.*?)(?=^\[)", text, re.S | re.M)
    assert table is not None, "pyproject.toml has no [tool.ruff] table"
    found = re.search(r"^line-length\s*=\s*(\d+)\s*$", table.group(1), re.M)
    assert found is not None, "[tool.ruff] sets no line-length"
    return int(found.group(1))


def test_prettier_prints_at_ruffs_width() -> None:
    config = json.loads((ROOT / ".prettierrc.json").read_text(encoding="utf-8"))
    assert config["printWidth"] == ruff_line_length()


def test_eslint_max_len_is_ruffs_width() -> None:
    config = (ROOT / "eslint.config.js").read_text(encoding="utf-8")
    width = re.search(r"^const LINE_LENGTH = (\d+);$", config, re.M)
    assert width is not None, "eslint.config.js names no LINE_LENGTH"
    assert int(width.group(1)) == ruff_line_length()
    assert "code: LINE_LENGTH" in config, "max-len does not use LINE_LENGTH"


def test_make_check_runs_prettier_and_eslint() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    check = re.search(r"^check:.*?\n((?:\t.*\n)+)", makefile, re.M)
    assert check is not None and "scripts/lint-js.sh" in check.group(1)
    script = (ROOT / "scripts" / "lint-js.sh").read_text(encoding="utf-8")
    assert "prettier --check" in script and "eslint --max-warnings 0" in script
