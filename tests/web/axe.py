"""Runs the vendored axe-core on the page as it is and returns what it finds."""

from __future__ import annotations

from typing import Any

# WCAG 2.1 A and AA, colour contrast included.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(page: Any, include: str | None = None) -> list[str]:
    """One line per failing node: rule, target and axe's own summary."""
    if not page.evaluate("typeof window.axe === 'object'"):
        # Loaded as a file of the page's own origin, so the strict CSP allows it.
        page.add_script_tag(url="vendor/axe.min.js")
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
