"""Find aliases that a text states for two of its own mentions (pure, no I/O).

Recognised shapes, X and Y being mention surfaces and Y following X:

- ``X (Y)`` and full-width ``X（Y）``, optionally with an introducer inside the brackets
  (``app.domain.aliases``: "also known as", "aka", "short for", "hereafter", "简称"…);
- ``X, also known as Y`` / ``X aka Y`` / ``X, a.k.a. Y`` / ``X, better known as Y``;
- ``X，简称Y`` / ``X, 简称 Y``;
- a naming clause between them: ``X, whom everyone calls Y``, ``X ... everyone calls him Y``,
  ``X is called Y by ...``, ``X, who goes by Y``. Y is then an alias of the mention nearest
  before the clause, in the same sentence ("Anna called Ben" is a phone call, not a naming:
  the clause needs "whom", an object pronoun, a passive or "goes by").

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


# Text right before Y that says "X is called Y" for the nearest name X before it.
_NAMING = re.compile(
    r"(?:\bwhom\b[^.;:!?()]{0,60}?\bcalls?"
    r"|\bcall(?:s|ed)?\s+(?:him|her|them)"
    r"|\b(?:is|was|are|were)\s+called"
    r"|\b(?:goes|went|go)\s+by)\s+$",
    re.IGNORECASE,
)
# Where a sentence or clause of its own ends: a naming never reaches across it.
_SENTENCE_END = re.compile(r"[.;!?]\s")


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
    found.update(_named_pairs(text, surfaces))
    return tuple(sorted(found))


def _named_pairs(text: str, surfaces: Sequence[str]) -> set[tuple[int, int]]:
    """Pairs stated by a naming clause: (nearest mention before the clause, the name after)."""
    spans = sorted(
        (m.start(), m.end(), j)
        for j, surface in enumerate(surfaces)
        if surface
        for m in re.finditer(re.escape(surface), text)
    )
    found: set[tuple[int, int]] = set()
    for start, _, j in spans:
        clause = _NAMING.search(text, 0, start)
        if clause is None:
            continue
        before = [
            (end, i)
            for _, end, i in spans
            if end <= clause.start()
            and surfaces[i] != surfaces[j]
            and not _SENTENCE_END.search(text, end, clause.start())
        ]
        if before:
            found.add((max(before)[1], j))
    return found


def _follows(text: str, pos: int, second: str) -> bool:
    """True when ``second`` is stated as an alias right after position ``pos``."""
    bracket = _BRACKET_OPEN.match(text, pos)
    if bracket is not None and text.startswith(second, bracket.end()):
        return _BRACKET_CLOSE.match(text, bracket.end() + len(second)) is not None
    inline = _INLINE.match(text, pos)
    return inline is not None and text.startswith(second, inline.end())
