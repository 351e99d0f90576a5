"""Find aliases that a text states for two of its own mentions (pure, no I/O).

Recognised shapes, X and Y being mention surfaces and Y following X:

- ``X (Y)`` and full-width ``X（Y）``, optionally with an introducer inside the brackets
  (``app.domain.aliases``: "also known as", "aka", "short for", "hereafter", "简称"…);
- ``X, also known as Y`` / ``X aka Y`` / ``X, a.k.a. Y`` / ``X, better known as Y``;
- ``X，简称Y`` / ``X, 简称 Y``;
- who calls X so, after Y: ``X (Y to her friends)``, ``X (Y to everyone since school)``, ``X, Y
  to the whole market,``, ``X — Y to everyone —`` (``app.domain.aliases.AUDIENCE``), ``X, Y as
  his friends call him``;
- ``calls X "Y"``: a quoted name right after the name called by it;
- a naming clause between them: ``X, whom everyone calls Y`` (or ``who everyone calls Y``, ``who
  the kids call Y``: a "who" with a subject after it is the one called; or ``X, the neighbour
  everyone calls Y``, with no "whom"), ``X, the one the yard calls Y``, ``X ... everyone calls
  him Y``, ``X is called Y by ...``, ``X, who has gone by Y``, ``X, known around town as Y``,
  ``X, who signs every letter as Y``, ``X, who writes her name Y``, ``X, as the old men call
  Y`` (X the name Y goes by there). Y is then an alias of the mention nearest before the clause,
  in the same sentence ("Anna called Ben" is a phone call, not a naming: the clause needs
  "whom", "the one", an object pronoun, a passive, "known", "signs", "goes by" or a comma's
  "as"). When that name, or a "who" that stands for it, is itself the one calling ("X, who still
  calls him Y"), the pronoun is someone else (a plain "him" never means the clause's own
  subject): no pair. Y may be quoted ("calling him "Bear"").

A bracket holds more than aliases ("Meridian Health (Boston)"), so the resolver still applies
the type guard to every stated pair, and the number guard when both names have numbers; a plain
bracket that gives a number's name or a name's number ("Room 101 (Finance)") states nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain.aliases import AUDIENCE, BRACKET_WORDS, CJK_WORDS, INLINE_WORDS, pattern
from app.domain.names import name_form, name_key

_INTRO = f"(?:{pattern((*BRACKET_WORDS, *CJK_WORDS))})"
# A word of a noun phrase: no space, no punctuation that ends a clause.
_WORD = r"[^\s.;:!?(),]+"
# "calls", "called", "calling" someone a name.
_CALL = r"\bcall(?:s|ed|ing)?"
_BRACKET_OPEN = re.compile(r"\s*[(（]\s*(?P<intro>" + _INTRO + r"\s*[:：,，]?\s*)?", re.IGNORECASE)
# The bracket's end, after the alias and any audience ("(Maru to everyone since her first week)").
_BRACKET_CLOSE = re.compile(rf"(?:\s+{AUDIENCE}[^()（）]*)?\s*[)）]", re.IGNORECASE)
# ", Rezka to the whole market", " — Quim to everyone in the choir —", ", Zuzia as Saoirse calls
# her,": an alias set off after the name with who calls it so ("Ben, Carla to everyone's
# surprise" is no audience).
_APPOSITION = re.compile(r"\s*,\s*|\s*[—–]\s*|\s+-\s+")
_AUDIENCE_AFTER = re.compile(
    rf"\s+(?:{AUDIENCE}(?![\w'’])|as\s+{_WORD}(?:\s+{_WORD}){{0,3}}?\s+calls?\s+(?:him|her|them)\b)",
    re.IGNORECASE,
)
# "calls Tõnu Laur "Tõks"": a name called another, quoted, right after it.
_CALLS_BEFORE = re.compile(rf"{_CALL}\s+$", re.IGNORECASE)
_QUOTE_BETWEEN = re.compile(r"\s+[\"“‘']")
_INLINE = re.compile(
    rf"\s*[,，]?\s*(?:{pattern((*INLINE_WORDS, *CJK_WORDS))})\s*[:：]?\s*", re.IGNORECASE
)


# The subject of a clause whose object is the one called, when it cannot begin the object's
# own noun phrase: "everyone", "we", "his friends". A "the" subject ("the older drivers") only
# after "who", where it cannot be read as the head noun.
_CALLERS = (
    rf"(?:everyone|everybody|people|we|they|you|(?:his|her|their|our|my)(?:\s+{_WORD}){{1,3}}?)"
)
# Text right before Y that says "X is called Y" for the nearest name X before it.
_NAMING = re.compile(
    r"(?:\bwhom\b[^.;:!?()]{0,60}?\bcalls?"
    # "who everyone calls", "who the kids call": "who" as the object, a subject after it.
    rf"|\bwho\s+(?:{_CALLERS}|the(?:\s+{_WORD}){{1,3}}?)\s+calls?"
    # ", the neighbour everyone calls", ", the cook his crew call": the same clause, "whom" left
    # out, set off as an apposition ("met the man everyone calls Bear" names another).
    rf"|,\s*the\s+{_WORD}(?:\s+{_WORD}){{0,2}}?\s+{_CALLERS}\s+calls?"
    r"|\bthe\s+one\s+(?:that\s+|who\s+|whom\s+)?[^.;:!?(),]{0,40}?\bcalls?"
    rf"|(?P<pronoun>{_CALL}\s+(?:him|her|them))"
    r"|\b(?:is|was|are|were)\s+called"
    rf"|\bknown\s+(?:{_WORD}\s+){{0,6}}?as"
    rf"|\bsigns?\s+(?:{_WORD}\s+){{0,3}}?as"
    # "who writes her name 田中裕子", "spells his name Jörg": how the person writes it.
    r"|\b(?:writes|wrote|spells|spelled|spelt)\s+(?:his|her|their)\s+(?:own\s+)?name(?:\s+as)?"
    r"|\b(?:goes|went|go|gone|going)\s+by"
    rf"|,\s*as\s+(?:{_WORD}\s+){{1,5}}?calls?)"
    # The name may be quoted: "calling him "Ossi"".
    r"\s+[\"“‘']?$",
    re.IGNORECASE,
)
# A "calls him" clause (``_NAMING``'s ``pronoun``) right after its subject: the name itself or
# a "who"/"that" standing for it, adverbs between allowed. That subject is the caller, whom the
# pronoun cannot mean.
_ADVERBS = r"(?:(?:\w+ly|still|always|never|also|often|sometimes|just|even)\s+)*"
_SUBJECT_ADVERBS = re.compile(_ADVERBS, re.IGNORECASE)
_RELATIVE_SUBJECT = re.compile(rf"\b(?:who|that)\s+{_ADVERBS}$", re.IGNORECASE)
# A "who" clause still open where a naming begins: nothing closes it before then.
_OPEN_WHO_CLAUSE = re.compile(r",\s*who\s+[^,.;:!?()]*$", re.IGNORECASE)
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
                if j != i and second and second != first and _follows(text, after, first, second):
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
        if before and not _names_the_callers_object(text, clause, max(before)[0]):
            named = _antecedent(text, clause, spans)
            found.add((max(before)[1] if named is None else named, j))
    return found


def _antecedent(
    text: str, clause: re.Match[str], spans: Sequence[tuple[int, int, int]]
) -> int | None:
    """The name a "who" clause that holds the naming stands for, or None.

    "Maria Ferraz, who runs the bakery on Rua do Farol and is known to everyone as São": the
    one known as São is who runs the bakery, Maria, not the street nearest the naming. Not for
    "calls him" (the "who" is then the one calling), nor once a comma has closed the clause.
    """
    if clause.group("pronoun") is not None:
        return None
    who = _OPEN_WHO_CLAUSE.search(text, 0, clause.start())
    if who is None:
        return None
    return next((i for _, end, i in spans if end == who.start()), None)


def _names_the_callers_object(text: str, clause: re.Match[str], name_end: int) -> bool:
    """True when the name before a "calls him Y" clause is the one calling, not the one called."""
    if clause.group("pronoun") is None:
        return False
    lead = text[name_end : clause.start()]
    return (
        _RELATIVE_SUBJECT.search(lead) is not None
        or _SUBJECT_ADVERBS.fullmatch(lead.lstrip()) is not None
    )


def _follows(text: str, pos: int, first: str, second: str) -> bool:
    """True when ``second`` is stated as an alias of ``first``, which ends at ``pos``."""
    bracket = _BRACKET_OPEN.match(text, pos)
    if bracket is not None and text.startswith(second, bracket.end()):
        if bracket["intro"] is None and _numbered(first) != _numbered(second):
            # "Room 101 (Finance)", "Sprint 14 (Orion)": a plain bracket that adds a name to a
            # number says which or whose, not another name (the resolver lets a stated name
            # without a number be a numbered thing's nickname).
            return False
        return _BRACKET_CLOSE.match(text, bracket.end() + len(second)) is not None
    inline = _INLINE.match(text, pos)
    if inline is not None and text.startswith(second, inline.end()):
        return True
    apposition = _APPOSITION.match(text, pos)
    if apposition is not None and text.startswith(second, apposition.end()):
        return _AUDIENCE_AFTER.match(text, apposition.end() + len(second)) is not None
    quote = _QUOTE_BETWEEN.match(text, pos)
    return (
        quote is not None
        and text.startswith(second, quote.end())
        and _CALLS_BEFORE.search(text, 0, pos - len(first)) is not None
    )


def _numbered(surface: str) -> bool:
    """Whether the name has numbers as the number guard reads them (``NameForm.numbers``)."""
    return bool(name_form(name_key(surface)).numbers)
