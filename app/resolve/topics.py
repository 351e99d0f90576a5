"""Topic words: what a fact says besides its names, as evidence between namesakes.

Two people called Daniel Osei, one an anaesthetist, one a potter: "Daniel Osei intubated the
patient" names neither by a qualifier, yet "patient" recurs in the anaesthetist's facts and
never in the potter's. A fact's topic words are its lower-case content words: capitalised
words are names or sentence openings, except an initialism no mention claims ("the ICU
ward"); the mentions' own words are left out, except a title ("Coach Varga" says "coach" of
its person). A word shared by a mention's fact and a candidate's facts counts as context,
weighed like a neighbour by how rare it is among the facts a settle replays (1/sqrt of those
containing it): two words met in only the two facts of the pair are as much as shared company
(``ResolutionPolicy.topic_full``). Only a settle has the block's facts to count, so a first
pass reads no topics. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping

from app.domain.names import PERSON_TITLES, name_key, name_tokens
from app.resolve.qualifiers import content_words
from app.resolve.scoring import ResolutionPolicy

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_ACRONYM = re.compile(r"[A-Z]{2,6}")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words of any topic: too common to tell two facts' subjects apart (numbers and ordinals say
# how many or which, not what about).
_COMMON = _word_set(
    """
    about after again also always another around back because been before being came come
    comes could does done each even every first from gave gets give given goes going good
    great have having here into just last later like little long look made make makes many
    more most much must never next night once only other over really same says should since
    some still such take takes than that their them then there these they thing things this
    those through today told took under until very want wants week weeks well went were what
    when where which while whole will with without would year years your yesterday tomorrow
    morning evening afternoon day days time times asked said sent says thought wrote
    within across along among against toward towards behind beside besides beyond inside
    outside upon onto home
    second third fourth fifth half quarter dozen hundred thousand couple several both
    """
)


def topic_words(content: str, surfaces: Iterable[str]) -> frozenset[str]:
    """The lower-case content words of ``content`` outside the mentions' surfaces."""
    masked = content
    words: set[str] = set()
    for surface in sorted({s for s in surfaces if s}, key=len, reverse=True):
        masked = masked.replace(surface, " ")
        # A title says what the person is ("Coach Varga" and "the head coach" share "coach").
        tokens = name_tokens(name_key(surface))
        if len(tokens) > 1 and tokens[0] in PERSON_TITLES and len(tokens[0]) >= 4:
            words.add(tokens[0])
    for m in _WORD.finditer(masked):
        if _ACRONYM.fullmatch(m.group()):
            # An initialism no mention claimed says what the fact is about ("the ICU ward").
            words.add(m.group().casefold())
            continue
        if not m.group()[0].islower():
            continue
        for word in content_words(m.group()):
            if len(word) >= 4 and word not in _COMMON:
                words.add(word)
    return frozenset(words)


def weights(words: Iterable[str], facts_with: Mapping[str, int]) -> dict[str, float]:
    """Each word's weight: 1/sqrt(the facts that contain it, this one among them)."""
    return {w: 1.0 / math.sqrt(max(facts_with.get(w, 0), 1)) for w in words}


def support(
    ours: Mapping[str, float], theirs: Collection[str], policy: ResolutionPolicy
) -> tuple[float, tuple[str, ...]]:
    """Context the shared topic words give (at most 1) and those words."""
    shared = tuple(sorted(w for w in ours if w in theirs))
    mass = sum(ours[w] for w in shared)
    return round(min(1.0, mass / policy.topic_full), 4), shared
