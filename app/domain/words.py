"""Words of one stem: "allergy" / "allergic", "pharmacy" / "pharmacist", "walk" / "walking".

Consolidation reads two facts about "the cello" and "the cellist" as one thing; the resolver
reads "from the walking club" and ", the walk leader," as one description of a person. Both
ask the same question of two lower-case words, answered here once. A shared beginning is the
test (no stemmer, no word list): long enough to be more than a prefix ("garage" / "garden"
share three letters, "car" / "cart" only the shorter word), and most of the shorter word, so
that a suffix, not a different word, is what tells them apart. Pure: no I/O.
"""

from __future__ import annotations

# Two words share a stem when they agree on this many leading letters, and on this share of
# the shorter one.
STEM_LETTERS = 4
STEM_SHARE = 0.6


def related(a: str, b: str) -> bool:
    """Whether two lower-case words are the same or share a stem (see ``STEM_*``)."""
    if a == b:
        return True
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return common >= STEM_LETTERS and common >= STEM_SHARE * min(len(a), len(b))
