"""Find aliases that a text states for two of its own mentions (pure, no I/O).

Recognised shapes, X and Y being mention surfaces and Y following X:

- ``X (Y)`` and full-width ``X（Y）``, optionally with an introducer inside the brackets
  (``app.domain.aliases``: "also known as", "aka", "short for", "hereafter", "简称"…);
- ``X, also known as Y`` / ``X aka Y`` / ``X, a.k.a. Y`` / ``X, better known as Y``;
- ``X，简称Y`` / ``X, 简称 Y``.

A bracket holds more than aliases ("Meridian Health (Boston)"), so the resolver still applies
the type and number guards to every stated pair; only the token guard is waived.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain.aliases import BRACKET_WORDS, CJK_WORDS, INLINE_WORDS, pattern

_INTRO = f"(?:{pattern((*BRACKET_WORDS, *CJK_WORDS))})"
_BRACKET_OPEN = re.compile(r"\s*[(（]\s*(?:" + _INTRO + r"\s*[:：,，]?\s*)?", re.IGNORECASE)
_BRACKET_CLOSE = re.compile(r"\s*[)）]")
_INLINE = re.compile(
    rf"\s*[,，]?\s*(?:{pattern((*INLINE_WORDS, *CJK_WORDS))})\s*[:：]?\s*", re.IGNORECASE
)


def stated_alias_pairs(text: str, surfaces: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Pairs (i, j) of surface indexes that ``text`` states to name the same thing.

    ``i`` is the surface that comes first (usually the full name). Surfaces are matched
    verbatim; every occurrence of a surface is tried. The result is sorted and has no
    duplicates or self-pairs.
    """
    found: set[tuple[int, int]] = set()
    for i, first in enumerate(surfaces):
        if not first:
            continue
        start = text.find(first)
        while start >= 0:
            after = start + len(first)
            for j, second in enumerate(surfaces):
                if j != i and second and second != first and _follows(text, after, second):
                    found.add((i, j))
            start = text.find(first, start + 1)
    return tuple(sorted(found))


def _follows(text: str, pos: int, second: str) -> bool:
    """True when ``second`` is stated as an alias right after position ``pos``."""
    bracket = _BRACKET_OPEN.match(text, pos)
    if bracket is not None and text.startswith(second, bracket.end()):
        return _BRACKET_CLOSE.match(text, bracket.end() + len(second)) is not None
    inline = _INLINE.match(text, pos)
    return inline is not None and text.startswith(second, inline.end())
