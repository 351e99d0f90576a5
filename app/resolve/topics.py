"""Topic words: what a fact says besides its names, as evidence between namesakes.

Two people called Daniel Osei, one an anaesthetist, one a potter: "Daniel Osei intubated the
patient" names neither by a qualifier, yet "patient" recurs in the anaesthetist's facts and
never in the potter's. A fact's topic words are its lower-case content words: capitalised
words are names or sentence openings, except an initialism no mention claims ("the ICU
ward"); the mentions' own words are left out, except a title ("Coach Varga" says "coach" of
its person, and of no other person of the fact: ``title_word``). Each word shared by a
mention's fact and a candidate's facts counts ``ResolutionPolicy.topic_word`` of context:
two are as much as shared company, one is not. A word weighs the same whatever else a settle
replays: one settle covers the writes of up to two seconds (decision 0018), and a weight
counted over its block would make what a name's own facts say depend on the pace of the
writes (decision 0035). Only a settle reads topics (a first pass sees a few facts, not a
name's). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from app.domain.names import PERSON_TITLES, name_key, name_tokens
from app.resolve.qualifiers import content_words
from app.resolve.scoring import ResolutionPolicy

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_ACRONYM = re.compile(r"[A-Z]{2,6}")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words of any topic: too common to tell two facts' subjects apart (numbers and ordinals say
# how many or which, times of day, week and year say when, not what about).
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
    weekend tonight hour minute month fortnight summer winter autumn
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


def title_word(surface: str) -> str | None:
    """The title a person's name opens with, a topic word of that person only, or None.

    "Coach Varga" and "the head coach" share "coach"; in "Captain Lind thanked her brother,
    Ole Lind", "captain" says nothing of Ole.
    """
    tokens = name_tokens(name_key(surface))
    if len(tokens) > 1 and tokens[0] in PERSON_TITLES and len(tokens[0]) >= 4:
        return tokens[0]
    return None


def support(
    ours: Collection[str], theirs: Collection[str], policy: ResolutionPolicy
) -> tuple[float, tuple[str, ...]]:
    """Context the shared topic words give (at most 1) and those words."""
    shared = tuple(sorted(w for w in ours if w in theirs))
    return round(min(1.0, len(shared) * policy.topic_word), 4), shared
