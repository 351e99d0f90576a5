"""What a fact claims, read closely enough to tell a restatement from a different claim.

Two facts can be worded alike and still say different things: another number ("two dogs" /
"three dogs"), another date, a negation, another person or place, or the same people the other
way round ("Ana trusts Ben" / "Ben trusts Ana"). Sentence embeddings see such pairs as nearly
identical, so offline consolidation never joins two facts on similarity alone: each fact is read
into a :class:`Claim` (from its tagged tokens, its entities and its time expressions), and
:func:`conflict` names the first difference between two claims, or None when one may restate the
other.

The reading is deliberately literal and conservative: a difference it cannot explain away keeps
two facts apart (a missed restatement costs one proof; a false join merges two claims).

* **Numbers** are compared as values ("2" = "two"), outside time expressions and entity names.
* **Times** are compared as the spans they resolve to, against each fact's own mention time
  ("yesterday" said on 11 March = "on 10 March"); a recurring expression ("every Saturday") is
  compared by its words, since it names no single span.
* **Negation**: the negated words must be the same ("never eats meat" = "doesn't eat meat";
  "is not allergic" ≠ "is allergic"; "cannot digest lactose" ≠ "is not lactose intolerant"),
  and a word negated by its prefix on one side only is a negation too ("likes" / "dislikes",
  "happy" / "unhappy").
* **Entities** (the fact's resolved mentions) must be the same set.
* **Direction**: with two or more entities, the logical subject must be the same entity. The
  subject is the first entity of the clause that no preposition governs, or the agent of a
  passive ("Grace is mentored by Farid": Farid). Entities joined by "and" share the rank.
* **Things**: when each fact names a thing (a common noun) that the other does not, nor any word
  of the same stem (``app.domain.words``), the facts speak of different things ("in the desk
  drawer" / "in the hotel safe"). Verbs, adjectives and adverbs may change (a paraphrase), and a
  thing named on one side only is a more complete wording, not a different claim.

Pure: no model is loaded here; ``app.consolidate.language`` tags the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

import msgspec

from app.domain.dates import find_time_mentions
from app.domain.names import name_key
from app.domain.words import related


class Token(msgspec.Struct, frozen=True, array_like=True):
    """One token as the tagger read it: surface, lemma, coarse and fine part of speech, offset."""

    text: str
    lemma: str
    pos: str
    tag: str
    start: int


class NamedEntity(msgspec.Struct, frozen=True):
    """An entity a fact mentions: its canonical name and the text the fact used for it."""

    name: str
    mention: str


class Claim(msgspec.Struct, frozen=True):
    """The parts of a fact that two restatements must share (see the module docstring)."""

    numbers: frozenset[float]
    times: frozenset[tuple[str, ...]]
    # The word each negation applies to (lemmas), sorted.
    negated: tuple[str, ...]
    entities: frozenset[str]
    subjects: frozenset[str]
    things: frozenset[str]
    # Every content lemma and lower-case word (stems of things are looked up here).
    words: frozenset[str]
    # How much the wording says: content tokens (the most complete wording names the observation).
    content: int


# Closed-class English: the words that negate, and those that name numbers.
_NEGATIONS = frozenset(
    {"not", "n't", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without",
     "cannot", "nowhere"}
)  # fmt: skip
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
_NUMBER_WORDS = {
    w: float(i)
    for i, w in enumerate(_UNITS.split())
} | {"thirty": 30.0, "forty": 40.0, "fifty": 50.0, "sixty": 60.0, "seventy": 70.0,
     "eighty": 80.0, "ninety": 90.0, "hundred": 100.0, "thousand": 1e3, "million": 1e6,
     "billion": 1e9, "dozen": 12.0}  # fmt: skip
_COUNT_ADVERBS = {"once": 1.0, "twice": 2.0, "thrice": 3.0}
_ORDINAL_WORDS = "zeroth first second third fourth fifth sixth seventh eighth ninth tenth"
_ORDINALS = {w: float(i) for i, w in enumerate(_ORDINAL_WORDS.split())}
_DIGITS = re.compile(r"^\d+(?:[.,]\d+)*(?:st|nd|rd|th)?$")
_RECURRING = frozenset({"every", "each"})
# Prefixes that negate the word they begin ("dislike", "unhappy", "impossible", "nonsmoker").
_NEGATING_PREFIXES = ("dis", "un", "in", "im", "il", "ir", "non")
_NEGATED_STEM_LETTERS = 4
_PASSIVE_AUXILIARIES = frozenset({"be", "get"})
_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
_THING_POS = frozenset({"NOUN", "PROPN"})
# Words that may stand between a preposition and the entity it governs ("to the University").
_MODIFIER_POS = frozenset({"DET", "ADJ"})
_COORDINATION = frozenset({"and", ",", "&"})


def read_claim(
    text: str,
    tokens: Sequence[Token],
    entities: Iterable[NamedEntity],
    mentioned_at: datetime | None,
) -> Claim:
    """Read one fact's claim from its tagged tokens, its entities and its mention time."""
    times, time_spans = _times(text, mentioned_at)
    placed = _place_entities(text, tokens, entities)
    entity_spans = [(start, end) for start, end, _ in placed]

    def outside(token: Token) -> bool:
        return not _inside(token.start, time_spans) and not _inside(token.start, entity_spans)

    free = [t for t in tokens if outside(t)]
    return Claim(
        numbers=frozenset(n for t in free if (n := _number(t)) is not None),
        times=times,
        negated=_negated(tokens),
        entities=frozenset(name_key(e.name) for e in entities) - {""},
        subjects=_subjects(tokens, placed, time_spans),
        things=frozenset(t.lemma.lower() for t in free if t.pos in _THING_POS),
        words=frozenset(
            {t.lemma.lower() for t in tokens if t.pos in _CONTENT_POS}
            | {t.text.lower() for t in tokens if t.text.isalpha()}
        ),
        content=sum(1 for t in tokens if t.pos in _CONTENT_POS),
    )


def conflict(a: Claim, b: Claim) -> str | None:
    """The first difference that makes ``a`` and ``b`` two claims, or None (see the module)."""
    if a.numbers != b.numbers:
        return "number"
    if a.times != b.times:
        return "date"
    if not _same_negation(a.negated, b.negated) or _prefix_negation(a.words, b.words):
        return "negation"
    if a.entities != b.entities:
        return "entity"
    if len(a.entities) >= 2 and a.subjects and b.subjects and a.subjects != b.subjects:
        return "direction"
    if _unmatched(a.things, b.words) and _unmatched(b.things, a.words):
        return "thing"
    return None


# -- helpers ------------------------------------------------------------------------------------


def _inside(offset: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in spans)


def _times(
    text: str, mentioned_at: datetime | None
) -> tuple[frozenset[tuple[str, ...]], list[tuple[int, int]]]:
    """Each time expression as the span it resolves to (recurring ones by their words)."""
    keys: set[tuple[str, ...]] = set()
    spans: list[tuple[int, int]] = []
    for mention in find_time_mentions(text, mentioned_at):
        spans.append((mention.char_start, mention.char_end))
        before = text[: mention.char_start].lower().split()[-1:]
        words = mention.text.lower().split()
        if (before and before[0] in _RECURRING) or (words and words[0] in _RECURRING):
            keys.add(("every", " ".join(w for w in words if w not in _RECURRING)))
        else:
            keys.add(
                (
                    mention.start.date().isoformat(),
                    mention.end.date().isoformat(),
                    mention.qualifier,
                )
            )
    return frozenset(keys), spans


def _place_entities(
    text: str, tokens: Sequence[Token], entities: Iterable[NamedEntity]
) -> list[tuple[int, int, str]]:
    """Where each entity's mention stands in the text: (start, end, entity key), in text order."""
    lower = text.lower()
    placed: list[tuple[int, int, str]] = []
    for entity in entities:
        key = name_key(entity.name)
        for surface in dict.fromkeys((entity.mention, entity.name)):
            at = lower.find(surface.lower()) if surface else -1
            if at >= 0:
                placed.append((at, at + len(surface), key))
                break
    placed.sort()
    return placed


def _number(token: Token) -> float | None:
    word = token.text.lower()
    if _DIGITS.match(word):
        digits = re.sub(r"(st|nd|rd|th)$", "", word).replace(",", "")
        try:
            return float(digits)
        except ValueError:
            return None
    if token.pos == "NUM" and word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    if word in _COUNT_ADVERBS:
        return _COUNT_ADVERBS[word]
    if word in _ORDINALS and token.pos in ("ADJ", "NUM"):
        return _ORDINALS[word]
    return None


def _negated(tokens: Sequence[Token]) -> tuple[str, ...]:
    """For each negation, the first content word after it (what it negates), as a lemma."""
    found: list[str] = []
    for i, token in enumerate(tokens):
        if token.text.lower() not in _NEGATIONS and token.lemma.lower() not in _NEGATIONS:
            continue
        scope = next(
            (t.lemma.lower() for t in tokens[i + 1 : i + 5] if t.pos in _CONTENT_POS - {"NUM"}),
            "",
        )
        found.append(scope)
    return tuple(sorted(found))


def _same_negation(a: Sequence[str], b: Sequence[str]) -> bool:
    if len(a) != len(b):
        return False
    return all(related(x, y) or not x or not y for x, y in zip(a, b, strict=True))


def _prefix_negation(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether one side has a word the other has only with a negating prefix (or vice versa)."""
    for mine, theirs in ((a, b), (b, a)):
        for word in mine - theirs:
            for prefix in _NEGATING_PREFIXES:
                stem = word[len(prefix) :]
                if (
                    word.startswith(prefix)
                    and len(stem) >= _NEGATED_STEM_LETTERS
                    and stem in theirs
                    and stem not in mine
                ):
                    return True
    return False


def _subjects(
    tokens: Sequence[Token],
    placed: Sequence[tuple[int, int, str]],
    time_spans: Sequence[tuple[int, int]],
) -> frozenset[str]:
    """The entities that do what the clause says (see the module docstring: direction)."""
    index = {t.start: i for i, t in enumerate(tokens)}
    passive = any(
        t.lemma.lower() in _PASSIVE_AUXILIARIES
        and any(u.tag == "VBN" for u in tokens[i + 1 : i + 3])
        for i, t in enumerate(tokens)
    )
    agents: list[str] = []
    core: list[tuple[str, bool]] = []
    previous_end: int | None = None
    for start, end, key in placed:
        first = _first_token(index, tokens, start)
        if first is None:
            continue
        j = first - 1
        while (
            j >= 0 and tokens[j].pos in _MODIFIER_POS and not _inside(tokens[j].start, time_spans)
        ):
            j -= 1
        governor = tokens[j] if j >= 0 else None
        if (
            governor is not None
            and governor.pos == "ADP"
            and not _inside(governor.start, time_spans)
        ):
            if governor.text.lower() == "by" and passive:
                agents.append(key)
            previous_end = None
            continue
        joined = (
            bool(core)
            and previous_end is not None
            and all(t.text.lower() in _COORDINATION for t in _between(tokens, previous_end, start))
            and any(True for _ in _between(tokens, previous_end, start))
        )
        core.append((key, joined))
        previous_end = end
    if agents:
        return frozenset(agents)
    subjects: set[str] = set()
    for n, (key, joined) in enumerate(core):
        if n and not joined:
            break
        subjects.add(key)
    return frozenset(subjects)


def _first_token(index: dict[int, int], tokens: Sequence[Token], start: int) -> int | None:
    if start in index:
        return index[start]
    for i, t in enumerate(tokens):
        if t.start >= start:
            return i
    return None


def _between(tokens: Sequence[Token], start: int, end: int) -> Iterable[Token]:
    return (t for t in tokens if start <= t.start < end)


def _unmatched(things: Iterable[str], words: frozenset[str]) -> bool:
    """Whether some thing has no word of the same stem among ``words``."""
    return any(not any(related(thing, w) for w in words) for thing in things)
