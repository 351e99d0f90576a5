"""Names the text says are shared: "a different Oskar Brandt", "Pia Holm, same as our goalkeeper".

Writers who know two people (or two cafés) of one name usually say so once: "the new goalie
is also called Pia Holm", "Café Lumen by the pier. Same name as the one at home, no
relation", or they name both in one sentence. That statement does not say which of the name's
other mentions is which, but it settles the question the resolver cannot answer from the
facts alone: whether the name is held by more than one. ``company.company_groups`` then parts
the name's facts by what they are about without first asking whether they are apart enough.

Read, as qualifiers are, from the words around a mention (pure, no model):

- a person's full name written twice in one fact ("X called about the brake job, and ten
  minutes later X called about the licence"), whether the fact lists it once or twice (a
  caller's hints of one name are one mention); a given name said twice is often one person
  said twice ("told Anselm …; Anselm agreed"), and a place or a product named twice is one;
- "a different", "another", "also called", "also named" right before the name;
- "same name", "same as our/my/the …", "shares his/her/the name" after it in its sentence,
  before any other name of a person or organisation; a sentence with the cue and no such
  name before it ("He shares his full name with …", "Same name as our café") points back to
  the last such name before that sentence.

"No relation" alone is not read: it is said of people who share a surname ("Ida Mahler; no
relation to anyone I know"), which says nothing about a full name; nor is "namesake" ("her
namesake city").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from app.domain.names import name_key, type_class

_CUE_BEFORE = re.compile(r"\b(?:a different|another|also called|also named)\s+$", re.IGNORECASE)
_CUE_AFTER = re.compile(
    r"\b(?:same name|same as (?:our|my|the|his|her|their)\b"
    r"|shar(?:e|es|ed|ing) (?:his|her|their|its|the|a|my|our) (?:full )?name\b)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?\n]")
# The kinds of name a statement of sharing is read for (a place's namesake is told apart by
# where it is, which qualifiers read already).
_NAMED = frozenset({"person", "organization"})


def shared_names(content: str, surfaces: Sequence[str], types: Sequence[str | None]) -> set[int]:
    """Indices of the mentions whose name the fact says is held by someone else as well."""
    spans = sorted(
        (match.start(), match.end(), i)
        for i, surface in enumerate(surfaces)
        if surface and type_class(types[i]) in _NAMED
        for match in re.finditer(re.escape(surface), content)
    )
    out: set[int] = set()
    # Where each person's name is written (a name the fact lists twice is found twice).
    written = Counter(
        name_key(content[a:b]) for a, b in {(a, b) for a, b, i in spans if _person(types[i])}
    )
    for i, surface in enumerate(surfaces):
        key = name_key(surface)
        if _person(types[i]) and len(key.split()) >= 2 and written[key] >= 2:
            out.add(i)
    for start, _, i in spans:
        if _CUE_BEFORE.search(content[:start]):
            out.add(i)
    for cue in _CUE_AFTER.finditer(content):
        named = _named_before(content, cue.start(), spans)
        if named is not None:
            out.add(named)
    return out


def _person(kind: str | None) -> bool:
    return type_class(kind) == "person"


def _named_before(content: str, pos: int, spans: Sequence[tuple[int, int, int]]) -> int | None:
    """The last name of a person or organisation before ``pos``, in its sentence.

    A cue with no such name before it in its sentence ("Same name as our café", "He shares his
    name with …") points back to the last such name before that sentence.
    """
    opening = max((m.end() for m in _SENTENCE_END.finditer(content, 0, pos)), default=0)
    before = [(end, i) for start, end, i in spans if end <= pos]
    in_sentence = [(end, i) for end, i in before if end > opening]
    if in_sentence:
        return max(in_sentence)[1]
    earlier = [(end, i) for end, i in before if end <= opening]
    return max(earlier)[1] if earlier else None
