"""Runs axe-core (tests/web/vendor/, never shipped with the page) on the page as it is and
returns what it finds."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

# WCAG 2.1 A and AA, colour contrast included.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


@cache
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


def axe_violations(page: Any, include: str | None = None) -> list[str]:
    """One line per failing node: rule, target and axe's own summary."""
    if not page.evaluate("typeof window.axe === 'object'"):
        # Evaluated through the browser's debugging protocol, which the page's strict CSP does
        # not govern: the page itself keeps refusing every script that is not its own file.
        page.evaluate(axe_source() + "\n;undefined")
    result = page.evaluate(
        """async ([tags, include]) => {
          const r = await axe.run(include ? { include: [include] } : document,
            { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
          const why = (n) => (n.failureSummary || '').split('\\n').slice(1, 3).join(' ');
          return r.violations.flatMap((v) => v.nodes.map((n) =>
            `${v.id}: ${n.target.join(' ')}: ${why(n)}`));
        }""",
        [TAGS, include],
    )
    return list(result)
