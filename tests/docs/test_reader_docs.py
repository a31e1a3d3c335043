"""The reader's documents stay true: every link and picture they name is there.

A page moved or renamed, a heading reworded, a picture not regenerated: each leaves a reader at
a dead end, and nothing else in the suite would notice.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").glob("*.md")])
#: Markdown links and images, and HTML ``src``/``href`` attributes.
LINK = re.compile(r"\]\(([^)\s]+)\)|\b(?:src|href)=\"([^\"]+)\"")
PICTURE_LIMIT = 300_000  # bytes


def links(page: Path) -> list[str]:
    """Every link target in ``page`` outside fenced code, as written."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return [a or b for a, b in LINK.findall(text)]


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes from ``page``'s headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_the_pages_are_there() -> None:
    names = {page.name for page in PAGES}
    for name in (
        "install.md",
        "usage.md",
        "terminal.md",
        "safety.md",
        "mcp.md",
        "configuration.md",
        "platforms.md",
        "performance.md",
        "architecture.md",
        "contributing.md",
        "CHANGELOG.md",
    ):
        assert name in names
    assert (ROOT / "LICENSE").is_file()


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_leads_somewhere(page: Path) -> None:
    dead = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto: — not ours to check offline
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            dead.append(target)
    assert not dead, f"{page.name}: links to nothing: {dead}"


def test_the_readme_is_short_and_shows_the_app() -> None:
    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) <= 200
    assert any(target.startswith("docs/images/") for target in links(readme))


def test_pictures_are_small_pngs() -> None:
    pictures = sorted((ROOT / "docs" / "images").iterdir())
    assert pictures
    for picture in pictures:
        assert picture.suffix == ".png", picture.name
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture.name
        assert picture.stat().st_size < PICTURE_LIMIT, picture.name


def test_no_page_points_outside_the_repository() -> None:
    for page in PAGES:
        for target in links(page):
            if not re.match(r"[a-z]+:", target):
                resolved = (page.parent / target.partition("#")[0]).resolve()
                assert resolved.is_relative_to(ROOT), f"{page.name}: {target}"
