"""Finished messages as HTML: the small markdown subset the play page renders.

The same subset as ``static/js/markdown.js`` (paragraphs, line breaks, **bold**, *italic*,
`code`), so the first paint and the live client agree. Raw HTML from the model or the world is
escaped by markdown-it (``html=False``) and anything that still looks like markup is cut by nh3,
so the result is safe to mark as such.
"""

from __future__ import annotations

from functools import lru_cache

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_TAGS = {"p", "br", "strong", "em", "code"}


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("zero", {"breaks": True, "html": False}).enable(
        ["emphasis", "backticks", "newline"]
    )


def render_markdown(text: str) -> SafeString:
    """Render ``text`` to sanitized HTML; anything that is not the subset stays literal text."""
    html = _parser().render(text or "")
    clean = nh3.clean(html, tags=ALLOWED_TAGS, attributes={}, link_rel=None)
    return mark_safe(clean.strip())
