"""The loop's own notices in the turn's language, from the catalogue.

The terminal prints a notice's ``message`` as it is, so the loop writes it in the turn's
language: the page's own ``notice.<code>`` where the page says the same, else the loop's
longer ``notice_message.<code>``. The page shows its own text by ``code`` and falls back to
``message``.
"""

from __future__ import annotations

from tray_app.i18n import lookup


def notice_text(code: str, language: str, **values: object) -> str:
    """The sentence for ``code`` in ``language`` (English when there is no translation);
    its placeholders may carry a format (``{limit:,}``)."""
    template = lookup(f"notice_message.{code}", language) or lookup(f"notice.{code}", language)
    if template is None:
        raise KeyError(code)
    return template.format(**values)
