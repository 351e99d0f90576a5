"""Markdown of mental models and reflect answers as HTML that is safe to show.

CommonMark without raw HTML: tags in the text are shown as text, and link targets that are not
web or mail addresses (``javascript:``…) are dropped by the parser's own link check.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markupsafe import Markup

_MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def to_html(text: str | None) -> Markup:
    """Rendered Markdown, marked safe for the templates (its input was escaped by the parser)."""
    return Markup(_MD.render(text or ""))
