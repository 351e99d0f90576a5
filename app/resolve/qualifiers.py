"""Qualifiers: what a text says right next to a name that tells one holder of it from another.

"Cedar & Vine in Tacoma", "Sofia Marquez from Harrow Freight", "Dr. Haverkamp at the Gresham
clinic", "Tobias Lindqvist, the landlord". Two mentions of one name with qualifiers of one
kind that cannot name the same thing (Tacoma / Spokane) are two things, whatever their names
and timing say; a qualifier both share supports the merge like shared company does.

Kinds: ``place`` ("in X", "up in X", or "at/from/on X" where X is a place mention; for a
thing also a place mention right before its name, "the Zadar Brodoservis", or in an appositive
saying what and where it is, ", a chandlery on the Split waterfront", also before the name,
"The bakery in Mechelen, Kruimel,"), ``organization`` ("from/at/of X" otherwise), ``role`` (an
appositive: ", the landlord,", ", chair of the parents' committee,") and ``description`` (a
lower-case phrase that says how a person is known: "from next door", "from the choir", "at the
bike shop", ", who runs the bike shop,", "next door"). The qualifier is read from the text
right after the mention; a mention of the same fact found there gives its type. A role may
also come before a person's name ("The ward pharmacist, Rosa Delgado,"), saying where it is
held or not, or right before it after the writer's possessive ("our dispatcher Ben"; not "his"
or "her", whose owner changes between sentences); a clause's subject may be said to be
something right after its name ("works at Brightwater", "works as a dispatcher", "is our
dispatcher", "Anna the dentist ..."). A place or organisation mention that owns the name
("Brightwater's Anna Weber") or stands in brackets after it ("Meridian Health (Denver)") says
where or whose it is. A relative clause in the past or with a modal (", who signed the form,",
", who will stay until autumn,") tells what someone did or will do, not who they are; one in
the progressive (", who is drawing the new map,") what they are doing for now (``doing``),
which supports a holder it fits and parts no one.

A ``pronoun`` the sentence can only mean its one named person by ("Rui took his boat out")
says man or woman (``said_to_be``), as a kin role does, and is compared with nothing.

Places are compared with places. Organisations, roles and descriptions all say who a person is
to the user (where they work, what they do, where they live), so they are compared with one
another: two sides that state some, none of which shares a word with the other side's, are two
people ("from next door" / "from Harrow Freight"; ", the bike mechanic," / "from the choir"). A
shared content word ("from the choir" / ", our choir director,"), or two of one stem ("from the
walking club" / ", the walk leader,"), supports the merge. This reads a department and its
company ("from accounting" / "from Harrow") as two affiliations: the cost is a missed merge,
which a review or a curator repairs; a false merge is worse.

Where a lower-case phrase ends is read without a parser: at punctuation, a capitalised word, a
function word, or the clause's verb, recognised by its form (a past tense in -ed, a common
irregular past tense) or by what follows it (an object: a determiner, pronoun or name; a
preposition). After a person's name (or one of no known type), "at", "in" and "on" phrases
(lower-case or capitalised) count only for a mention that opens its clause ("Daniel at the
bike shop replaced...", "Ilse Haverkamp in Burnside fitted..."): after an object they usually
say where the action happened ("met Ingrid at the gym", "met Chloe in Krakow"); a locative
("upstairs", "next door") counts for such a mention and after a preposition ("a ladder for
Kofi upstairs"), not right after a verb ("invited Kofi downstairs" says where to). Pure: no
I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import msgspec

from app.domain.dates import MONTH_NAMES, SEASON_NAMES, WEEKDAY_NAMES
from app.domain.facts import SPEAKER_PREFIX
from app.domain.names import (
    GENDERED_NOUNS,
    OFFICE_TITLES,
    RELATION_NOUNS,
    may_be_a_person,
    name_form,
    name_key,
    read_as_person,
    type_class,
)
from app.domain.words import related
from app.resolve.guards import align_words

# "place" | "organization" | "role" | "description" | "doing" | "office" | "pronoun" | "company"
Kind = str
# The kind a settle gives the mentions of namesakes it tells apart by their facts' company
# (``company``): not read from the text, and compatible only with itself.
COMPANY: Kind = "company"

_PREP = re.compile(
    r"\s*,?\s*(?:based\s+)?(?P<prep>in|from|at|of|on|(?:up|down|out|over)\s+in)\s+(?:the\s+)?",
    re.IGNORECASE,
)
# An appositive that says what and where a thing is: ", a chandlery on the Split waterfront",
# ", the bakery in Tacoma,"; the place is the mention right after the preposition.
_WHAT_AND_WHERE = re.compile(
    r"\s*,\s*(?:a|an|the)\s+(?:[a-z][\w'’-]*\s+){1,6}?(?:in|on|at)\s+(?:the\s+)?"
)
# An appositive that names the place as a modifier of what the thing is: ", a Tartu
# contractor,", ", the Leeds branch."; the place is the mention right after the article.
_WHERE_AS_MODIFIER = re.compile(r"\s*,\s*(?:a|an|the)\s+")
_MODIFIED_NOUN = re.compile(r"\s+[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,2}\s*[,;.]")
# The same put before the name: "The bakery in Mechelen, Kruimel, ..."; matched
# against the text before the place mention that precedes ", " and the name.
_WHAT_AND_WHERE_BEFORE = re.compile(
    r"(?:^|(?<=\s))(?:[Tt]he|[Aa]n?)\s+(?:[a-z][\w'’-]*\s+){1,3}(?:in|on|at)\s+(?:the\s+)?$"
)
_CAPITALISED = re.compile(r"(?:[A-Z][\w'’.-]*|&)(?:[ \t]+(?:[A-Z][\w'’.-]*|&|of|de|la))*(?<![ .])")
_ROLE = re.compile(r"\s*,\s*(?:the|their|our|my|his|her)\s+(?P<role>[a-z]+(?:[ -][a-z]+)?)\s*[,;.]")
# An appositive or relative clause closed by punctuation: ", chair of the parents' committee,",
# ", who runs the bike shop on the corner,". It opens with a lower-case word; names and numbers
# inside it are words of the description (", the ICU anaesthetist,", ", the charge nurse on
# Ward 12,", ", who leads the Sunday walks,").
_APPOSITIVE = re.compile(
    r"\s*,\s*(?P<who>who\s+)?(?P<body>[a-z][a-z'’-]*(?:\s+\w[\w'’-]*){0,11})\s*[,;.]"
)
# A role put before the name, closed by a comma right before it ("The ward pharmacist, Rosa
# Delgado, ...", "saw her GP, Dr. Novak", "A home-care nurse, Kersti, ..."): matched against
# the text before the mention.
_ROLE_BEFORE = re.compile(
    r"(?:^|(?<=\s))(?P<lead>\S+\s+)?(?P<det>[Tt]he|[Oo]ur|[Mm]y|[Hh]is|[Hh]er|[Tt]heir|[Aa]n?)"
    r"\s+(?P<role>[A-Za-z][\w'’-]*(?:\s+[A-Za-z][\w'’-]*){0,3})"
    r"(?P<where>\s+(?:at|in|of|from|on)\s+(?:the\s+)?[A-Z][\w'’.&-]*(?:\s+[A-Z][\w'’.&-]*){0,3})?"
    r"\s*,\s*$"
)
# The same without the comma, after the writer's possessive: "our dispatcher Ben", "my
# neighbour Anna Weber". Not after "his", "her" or "their", whose owner changes from one
# sentence to the next ("his brother Goran", "his dad Goran": one man, Ivo's brother and Luka's
# dad), nor after "the" ("the day Ben left" says when).
_ROLE_RIGHT_BEFORE = re.compile(
    r"(?:^|(?<=\s))(?:[Oo]ur|[Mm]y|[Yy]our)\s+(?P<role>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?)\s$"
)
# What a clause's subject is said to be, right after its name: "Anna Weber works at
# Brightwater", "Ben works as a dispatcher", "Ben is our dispatcher", "Anna the dentist ...".
_WORKS = re.compile(r"\s+(?:works|worked)\s+(?:(?P<prep>at|for)\s+(?:the\s+)?|as\s+(?:an?\s+)?)")
_IS_POSSESSED = re.compile(r"\s+(?:is|was)\s+(?:now\s+)?(?:our|my|your)\s+")
_BRACKET_AFTER = re.compile(r"\s*[(（]\s*")
_BRACKET_CLOSE = re.compile(r"\s*[)）]")
_THE_AFTER = re.compile(r"\s+the\s+(?=[a-z])")
_WORD = re.compile(r"\s*(?P<word>[A-Za-z][\w'’-]*|[^\w\s]|\d\S*)")
# Locative adverbs that describe a person by where they live or sit, right after the name.
_LOCATIVE = re.compile(
    r"\s+(?P<where>next door|upstairs|downstairs|across the (?:street|road|hall)"
    r"|down the (?:street|road|hall))\b"
)
# A preposition right before a mention: what follows the name describes it ("to Kofi
# upstairs"), as it does for a clause's subject.
_PREPOSITION_BEFORE = re.compile(r"\b(?:to|with|for|from|by|of|about)\s+$", re.IGNORECASE)
# The opening of a clause: a mention here is its subject ("Daniel at the bike shop ...").
_CLAUSE_START = re.compile(r"(?:^|[.!?;:\n(\"“]\s*)$")


# What closes a sentence right after a name: the name was the one spoken to, if set off.
_SENTENCE_CLOSE = re.compile(r"\s*(?:[.?!]|$)")
# Where a role's head noun ends: the phrase after it says of what, where or whose.
_HEAD_END = re.compile(r"\s+(?:of|at|in|from|on|for|with|to)\s+")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that open or close a phrase rather than name what it describes.
_DETERMINERS = _word_set(
    """
    the a an our my his her their your its this that these those
    """
)
_SUBJECT_PRONOUNS = _word_set("i you he she it we they")
_FUNCTION_WORDS = _word_set(
    """
    is was are were be been has had have will would can could should may might must does
    did do who whom whose which that and or but nor so yet to for on in at from by about
    after before during near over into onto out up off back with without since until
    because while when where as than then also just still again there here not never
    always now though however too
    """
)
# A word after "her" that makes it an object ("told her the news", "and her at the bar"),
# not a possessive: a possessive is followed by what is owned.
_NOT_OWNED = _DETERMINERS | _FUNCTION_WORDS
_MODALS = _word_set(
    """
    will would shall should can could may might must
    """
)
_AUXILIARIES = _MODALS | _word_set("is was are were be been has had have does did do")
_OBJECT_PRONOUNS = _word_set(
    """
    him them us me it you
    """
)
# Common irregular past tenses (a regular one ends in -ed): the verb that ends the phrase.
_IRREGULAR_PAST = _word_set(
    """
    said told went came got gave took had did made brought sent lent ran met sang wrote left
    bought sold found kept paid put saw set spent taught thought won lost felt held drove
    rode built began brought caught chose drew fell fed flew forgot grew heard hid hit
    hurt knew laid led let lay meant read rang rose shook shot showed shut sat slept spoke
    stood stole struck swam swore threw understood woke wore
    """
)
# Third-person pronouns that say man or woman (``said_to_be``).
_PRONOUN_KINDS = {
    **dict.fromkeys(("he", "him", "his", "himself"), "man"),
    **dict.fromkeys(("she", "her", "hers", "herself"), "woman"),
}
_GENDERED_PRONOUN = re.compile(r"\b(?:he|him|his|himself|she|her|hers|herself)\b", re.IGNORECASE)
# A clause's subject, its verb (after an auxiliary or an adverb) and its own possessive:
# "Rui Valente took his boat out", "Ana has finally sold her flat".
_OWN_POSSESSIVE = re.compile(
    r"\s+(?:(?:has|had|have)\s+)?(?:[a-z]+ly\s+)?(?P<verb>[a-z]+)\s+"
    r"(?:(?:up|out|off|back|down|over|away)\s+)?(?P<pronoun>his|her)\s+(?P<next>[a-z][\w'’-]*)"
)
# The one named, and what is theirs: "swam with Aroha and her whole team", "Tomasz and his
# brother came by". Right after the name, the possessive has no one else to stand for.
_AND_OWN = re.compile(r"\s+and\s+(?P<pronoun>his|her)\s+(?P<next>[a-z][\w'’-]*)")
# A subject pronoun opening a later clause ("..., and she sold out"), or the next sentence of
# the fact (local extraction keeps a note's "She opened it in 1990." with the sentence before).
_CLAUSE_PRONOUN = re.compile(
    r"(?:(?:,\s*|\s+)(?:and|but|so|while|when|because|until|after|before|although|though|since"
    r"|once|as|then)\s+|[.!?][\"”’)]?\s+)(?P<pronoun>he|she)\b",
    re.IGNORECASE,
)
# Verbs that take a person as well as a thing ("told her the news", "gave her a lift"): "her"
# after one is the person it was done for, not the subject's possessive.
_TWO_OBJECT_VERBS = _word_set(
    """
    tell tells told give gives gave send sends sent show shows showed ask asks asked offer
    offers offered buy buys bought bring brings brought lend lends lent pay pays paid teach
    teaches taught promise promises promised hand hands handed owe owes owed wish wishes
    wished get gets got make makes made find finds found leave leaves left sell sells sold
    read reads write writes wrote cook cooks cooked bake bakes baked pass passes passed
    throw throws threw book books booked pour pours poured text texts texted email emails
    emailed call calls called save saves saved
    """
)
# Words a description shares without naming the same thing (light verbs of a relative clause).
_LIGHT_WORDS = _word_set(
    """
    runs run works work lives live owns own is was one new old former
    """
)
# Words after a preposition that are times, not places or organisations ("in March").
_NOT_QUALIFIERS = frozenset(
    [
        *MONTH_NAMES,
        *WEEKDAY_NAMES,
        *SEASON_NAMES,
        "christmas",
        "easter",
        "morning",
        "afternoon",
        "evening",
        "night",
        "weekend",
        "week",
        "month",
        "year",
        "today",
        "yesterday",
        "tomorrow",
        "lunch",
        "dinner",
        "breakfast",
        "home",
        "work",
        "time",
        "first",
        "last",
        "least",
        "all",
        "course",
    ]
)
# Last words of a phrase that says when, not who: "A week later, Kersti, ...", "A Sunday
# morning, ..." ("A night nurse, Kersti," ends in who she is).
_WHEN_WORDS = _NOT_QUALIFIERS | _word_set("day days weeks months years later ago earlier")


class Qualifier(msgspec.Struct, frozen=True, order=True):
    """One qualifier: its kind, the name key of its value and the value as written."""

    kind: Kind
    key: str
    text: str


def qualifiers_in(
    content: str, surfaces: Sequence[str], types: Sequence[str | None]
) -> list[tuple[Qualifier, ...]]:
    """The qualifiers the text states for each mention (by index), read after each occurrence."""
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    for j, surface in enumerate(surfaces):
        for match in re.finditer(re.escape(surface), content) if surface else ():
            starts.setdefault(match.start(), j)
            ends.setdefault(match.end(), j)
    sole_person = _sole_person(content, surfaces, types)
    out: list[tuple[Qualifier, ...]] = []
    for i, surface in enumerate(surfaces):
        found: dict[Qualifier, None] = {}
        for match in re.finditer(re.escape(surface), content) if surface else ():
            person = read_as_person(types[i])
            q = _after(content, match.start(), match.end(), surfaces, types, starts, i)
            if q is None and person:
                q = _described(content, match.start(), match.end())
            if q is None and person and _opens_clause(content, match.start()):
                q = _predicate(content, match.end(), surfaces, types, starts, i)
            if person:
                before = _role_before(content, match.start(), match.end())
            else:
                before = _place_around(
                    content, match.start(), match.end(), surfaces, types, starts, ends
                )
            beside = _named_beside(
                content, match.start(), match.end(), surfaces, types, starts, ends, i
            )
            office = _office(surface) if person else None
            pronoun = _pronoun_of(content, match.start(), match.end()) if sole_person == i else None
            found.update(
                dict.fromkeys(x for x in (q, office, before, beside, pronoun) if x is not None)
            )
        out.append(tuple(found))
    return out


def _sole_person(content: str, surfaces: Sequence[str], types: Sequence[str | None]) -> int | None:
    """The one mention read as a person's that a sentence names, a chat speaker aside.

    A pronoun in a turn is never its speaker ("Rui: He's in town" is someone else), and with
    two people named a pronoun may be either's, a name NER typed an organisation counted as
    one (``names.may_be_a_person``).
    """
    speaker = SPEAKER_PREFIX.match(content)
    body = content[speaker.end() :] if speaker else content
    people = [
        i
        for i, surface in enumerate(surfaces)
        if surface and may_be_a_person(types[i]) and re.search(re.escape(surface), body)
    ]
    return people[0] if len(people) == 1 and read_as_person(types[people[0]]) else None


def _pronoun_of(content: str, start: int, end: int) -> Qualifier | None:
    """A pronoun the sentence uses for the person named at ``start`` (kind ``pronoun``).

    Read where English leaves it no one else: the subject's own possessive right after its
    verb ("Rui Valente took his boat out"; "her" not after a verb that takes a person as well
    as a thing: "told her the news" is said to someone), a possessive joined to the name by
    "and" ("with Aroha and her team"), or the subject of a later clause or sentence ("...
    while she was in Lisbon"). The fact must name no other person and use pronouns
    of one kind only: "Anna met Tom's sister and he ..." tells nothing.
    """
    words = {w.casefold() for w in _GENDERED_PRONOUN.findall(content, end)}
    if len({_PRONOUN_KINDS[w] for w in words}) != 1 or _GENDERED_PRONOUN.search(content, 0, start):
        return None
    own = _OWN_POSSESSIVE.match(content, end) if _opens_clause(content, start) else None
    if own is not None and own["verb"] not in _AUXILIARIES | _FUNCTION_WORDS:
        her_as_object = own["pronoun"] == "her" and (
            own["verb"] in _TWO_OBJECT_VERBS or own["next"] in _NOT_OWNED
        )
        if not her_as_object:
            return _pronoun(own["pronoun"])
    joined = _AND_OWN.match(content, end)
    if joined is not None and joined["next"] not in _NOT_OWNED:
        # "Tom and her at the bar": an object pronoun, not a possessive.
        return _pronoun(joined["pronoun"])
    later = _CLAUSE_PRONOUN.search(content, end)
    if later is None or "him" in words:
        # "Zoë took him up to the castle so he could see": the one done to is the one who.
        return None
    return _pronoun(later["pronoun"])


def _pronoun(word: str) -> Qualifier:
    kind = _PRONOUN_KINDS[word.casefold()]
    return Qualifier("pronoun", kind, word)


def _after(
    content: str,
    start: int,
    pos: int,
    surfaces: Sequence[str],
    types: Sequence[str | None],
    starts: dict[int, int],
    own: int,
) -> Qualifier | None:
    role = _ROLE.match(content, pos)
    if role is not None:
        return Qualifier("role", name_key(role["role"]), role["role"])
    prep = _PREP.match(content, pos)
    if prep is None:
        return None
    at = prep.end()
    word = prep["prep"].casefold()
    if word not in ("from", "of") and read_as_person(types[own]) and not _says_who(content, start):
        # "Aisha met Chloe Garcia in Krakow": after an object, the phrase says where the
        # action happened, not where the person lives or works ("Chloe Garcia in Krakow
        # said ..." does). An organisation keeps it: "a contract with Cedar & Vine in Tacoma".
        return None
    j = starts.get(at)
    if j is not None and j != own:
        text = surfaces[j]
        tclass = type_class(types[j])
        if tclass in ("person", "product", "event", "concept"):
            return None
        kind = tclass if tclass in ("place", "organization") else _kind_of(word)
    else:
        if word == "on":
            # "reviewed it on Yelp", "open on Sundays": before a word that is not a place
            # mention, "on" names a medium, a day or a thing far more often than a place, and a
            # wrong place would part one thing in two. A street named as a place still counts.
            return None
        run = _CAPITALISED.match(content, at)
        if run is None:
            return None
        text = run.group()
        kind = _kind_of(word)
    key = name_key(text)
    if not key or key.split()[0] in _NOT_QUALIFIERS:
        return None
    return Qualifier(kind, key, text)


def _place_around(
    content: str,
    start: int,
    end: int,
    surfaces: Sequence[str],
    types: Sequence[str | None],
    starts: dict[int, int],
    ends: dict[int, int],
) -> Qualifier | None:
    """A place stated as part of a thing's description: before its name or in an appositive.

    "the Zadar Brodoservis" (a place mention right before the name), "Brodoservis, a
    chandlery on the Split waterfront" (what it is, then where), "Lõuna Ehitus, a Tartu
    contractor," (where, as a word of what it is). Read only through a mention typed as a
    place, never from a capitalised word alone.
    """
    j = ends.get(start - 1) if content[start - 1 : start] == " " else None
    if j is None:
        what = _WHAT_AND_WHERE.match(content, end)
        if what is not None and not _has_verb(what.group()):
            j = starts.get(what.end())
        modifier = _WHERE_AS_MODIFIER.match(content, end) if j is None else None
        if modifier is not None:
            k = starts.get(modifier.end())
            noun = (
                _MODIFIED_NOUN.match(content, modifier.end() + len(surfaces[k]))
                if k is not None
                else None
            )
            if noun is not None and not _has_verb(noun.group()):
                j = k
    if j is None and content[start - 2 : start] == ", ":
        before = ends.get(start - 2)
        if before is not None and _WHAT_AND_WHERE_BEFORE.search(
            content, max(0, start - 80), start - 2 - len(surfaces[before])
        ):
            j = before
    if j is None or type_class(types[j]) != "place":
        return None
    return Qualifier("place", name_key(surfaces[j]), surfaces[j])


def _named_beside(
    content: str,
    start: int,
    end: int,
    surfaces: Sequence[str],
    types: Sequence[str | None],
    starts: dict[int, int],
    ends: dict[int, int],
    own: int,
) -> Qualifier | None:
    """A place or organisation mention that owns the name or stands in brackets after it.

    "Brightwater's Anna Weber", "Denver's Meridian Health", "Meridian Health (Denver)": read
    only through a mention typed as a place or an organisation, never from a word alone. An
    organisation in brackets after an organisation is its short name ("Southern Gulf Community
    Radio (SGCR)"), not a qualifier.
    """
    j = None
    bracket = _BRACKET_AFTER.match(content, end)
    if bracket is not None:
        j = starts.get(bracket.end())
        if j is not None and not _BRACKET_CLOSE.match(content, bracket.end() + len(surfaces[j])):
            j = None
    elif content[start - 3 : start] in ("'s ", "’s "):
        j = ends.get(start - 3)
    tclass = type_class(types[j]) if j is not None else ""
    if j is None or tclass not in ("place", "organization"):
        return None
    if bracket is not None and tclass == type_class(types[own]):
        return None
    return Qualifier(tclass, name_key(surfaces[j]), surfaces[j])


def _opens_clause(content: str, start: int) -> bool:
    """Whether the mention at ``start`` opens its clause (is its subject, not an object)."""
    return _CLAUSE_START.search(content, 0, start) is not None


def _says_who(content: str, start: int) -> bool:
    """Whether an "at/in/on" phrase after the mention at ``start`` tells who the person is.

    It does after a clause's subject ("Ilse Haverkamp in Burnside fitted ...") and inside an
    appositive that names a role ("saw her GP, Dr. Novak at Hillside Surgery, about ..."): the
    phrase then belongs to the noun phrase that says who, not to the verb, which came before
    the role.
    """
    return _opens_clause(content, start) or _role_before(content, start) is not None


def _role_before(content: str, start: int, end: int | None = None) -> Qualifier | None:
    """A role stated right before a person's name ("The ward pharmacist, Rosa Delgado").

    Not after a preposition: "After lunch with the team, Rosa ..." opens the sentence with
    where or when, not with who Rosa is. Nor a "the" phrase inside a clause before a name
    that closes the sentence (``end``: where the name ends): that name is the one spoken to,
    and the phrase is the verb's object ("Can you cover the grill, Lupe?", "Save me a plate
    of the mole, Lupe."); "saw her GP, Dr. Novak." keeps its role.
    """
    # The pattern ends in the comma before the name: where there is none, it is not tried (a
    # search over the 80 characters before every mention is most of what reading costs).
    closed = content[max(0, start - 8) : start].rstrip().endswith(",")
    m = _ROLE_BEFORE.search(content, max(0, start - 80), start) if closed else None
    if m is None:
        right = _ROLE_RIGHT_BEFORE.search(content, max(0, start - 60), start)
        if right is None or any(w in _FUNCTION_WORDS or _is_past(w) for w in right["role"].split()):
            return None
        return _description("role", right["role"])
    lead = (m["lead"] or "").strip().casefold()
    if lead in _FUNCTION_WORDS or any(w in _FUNCTION_WORDS for w in m["role"].split()):
        return None
    opens = not lead or lead[-1] in ".!?:;,"
    if m["det"].casefold() in ("a", "an") and not (
        opens
        and lead[-1:] != ","
        and end is not None
        and content[end : end + 1] == ","
        and m["role"].split()[-1].casefold() not in _WHEN_WORDS
    ):
        # "A home-care nurse, Kersti, will visit" introduces her; "A week later, Kersti
        # called" and "in a minute, Kersti" say when. Only an apposition closed on both sides
        # that opens its sentence is read as who she is.
        return None
    if (
        m["det"].casefold() == "the"
        and not opens
        and end is not None
        and _SENTENCE_CLOSE.match(content, end)
    ):
        return None
    # "Her new PhD student at Tartu University, Kofi Boateng": where the role is held is part
    # of it.
    return _description("role", m["role"] + (m["where"] or ""))


def _described(content: str, start: int, end: int) -> Qualifier | None:
    """A lower-case phrase right after a person's name that says how they are known."""
    where = _LOCATIVE.match(content, end)
    if where is not None:
        # "Tom downstairs lent me a drill", "a ladder for Tom upstairs"; "invited Kofi
        # downstairs", right after the verb, says where to.
        if not (_opens_clause(content, start) or _PREPOSITION_BEFORE.search(content, 0, start)):
            return None
        return _description("description", where["where"])
    apposition = _APPOSITIVE.match(content, end)
    if apposition is not None:
        words = apposition["body"].split()
        if not apposition["who"] and (
            words[0] in _FUNCTION_WORDS | _SUBJECT_PRONOUNS
            or (words[0] not in _DETERMINERS and not _names_a_post(words))
        ):
            # ", then left", ", though, ...", ", and she gave each of us one": a new clause,
            # not a noun phrase. A bare noun appositive names a position in something (",
            # chair of the committee,", ", youth coach at Kangasala SK,").
            return None
        if apposition["who"] and (_is_past(words[0]) or words[0] in _MODALS or _perfect(words)):
            # ", who signed her fit for the walk,", ", who will stay until autumn,", ", who has
            # surveyed the cliffs for years,": something the person did or will do, not who
            # they are (", who runs the bike shop,").
            return None
        if apposition["who"] and _progressive(words):
            # ", who is drawing the new map,", ", who is standing for the council,": what the
            # person is doing for now. It may tell what they are ("Councillor Marsh"), but a
            # surveyor drawing a map is still the surveyor (``doing``).
            return _description("doing", apposition["body"])
        return _description("description" if apposition["who"] else "role", apposition["body"])
    prep = _PREP.match(content, end)
    if prep is None:
        return None
    word = prep["prep"].casefold()
    if word not in ("from", "of") and not _says_who(content, start):
        return None
    phrase = _phrase(content, prep.end("prep"), subject=_opens_clause(content, start))
    return None if phrase is None else _description("description", phrase)


def _names_a_post(words: Sequence[str]) -> bool:
    """Whether a bare noun appositive (no determiner) names a position in something.

    A post of a body (", chair of the committee,") or one held at a named place
    (", youth coach at Kangasala SK,", ", buyer for Hallam Foods,"). Not a clause: its first
    words hold no verb (", sent a tray home for Dad,", ", visiting his father at Dom Jelka,",
    ", back at Vana Oja,").
    """
    for i, word in enumerate(words[1:], start=1):
        named = i + 1 < len(words) and words[i + 1][:1].isupper()
        if word == "of" or (word in ("at", "for") and named):
            head = words[:i]
            return not head[0].endswith("ing") and all(
                w.islower()
                and w not in _FUNCTION_WORDS
                and w not in _DETERMINERS
                and not _is_past(w)
                for w in head
            )
    return False


def _predicate(
    content: str,
    end: int,
    surfaces: Sequence[str],
    types: Sequence[str | None],
    starts: dict[int, int],
    own: int,
) -> Qualifier | None:
    """What a clause's subject is said to be, right after its name.

    "Anna Weber works at Brightwater" (where she works), "Ben works as a dispatcher", "Ben is
    our dispatcher" (a role), "Anna the dentist fixed my crown" (a role said without a comma;
    only for a subject: "gave Anna the book" names what was given).
    """
    works = _WORKS.match(content, end)
    if works is not None and works["prep"]:
        at = works.end()
        j = starts.get(at)
        if j is not None and j != own and type_class(types[j]) in ("place", "organization"):
            return Qualifier("organization", name_key(surfaces[j]), surfaces[j])
        run = _CAPITALISED.match(content, at)
        if run is not None:
            return Qualifier("organization", name_key(run.group()), run.group())
        phrase = _phrase(content, at, subject=False)
        return None if phrase is None else _description("description", phrase)
    said = works or _IS_POSSESSED.match(content, end) or _THE_AFTER.match(content, end)
    if said is None:
        return None
    phrase = _phrase(content, said.end(), subject=True)
    return None if phrase is None else _description("role", phrase)


def _phrase(content: str, pos: int, *, subject: bool) -> str | None:
    """The lower-case noun phrase at ``pos``, up to where the clause's verb begins.

    ``subject``: the name opens its clause, so a word followed by an object ("Anna from the
    choir rang her") may be its verb. After an object the clause's verb came before the name:
    "lent Anna from the chess club her book" reads "chess club", and "club" is no verb.
    """
    tokens: list[str] = []
    while len(tokens) < 12:
        m = _WORD.match(content, pos)
        if m is None:
            break
        tokens.append(m["word"])
        pos = m.end()
    words: list[str] = []
    for i, tok in enumerate(tokens):
        if not tok[0].islower() or (tok in _FUNCTION_WORDS and tok != "of"):
            break
        if tok in _DETERMINERS and not words:
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if words and _is_verb(tok, following if subject else ""):
            break
        words.append(tok)
        if not subject and _is_verb(tok, following):
            break  # what follows is the verb's next object, not more of this phrase
        if len(words) == 4:
            break
    while words and words[-1] in ("of", *_DETERMINERS):
        words.pop()
    return " ".join(words) or None


def _has_verb(phrase: str) -> bool:
    """Whether a phrase holds a verb (a past tense or an auxiliary): a clause, not a noun phrase.

    ", the barge spent the week at Dock 13" says what happened, not what and where a thing is.
    """
    return any(_is_past(w) or w in _AUXILIARIES for w in re.findall(r"[a-z]+", phrase))


def _is_past(word: str) -> bool:
    return word in _IRREGULAR_PAST or (word.endswith("ed") and len(word) > 4)


def _office(surface: str) -> Qualifier | None:
    """The office a person's name is written with ("Councillor Ward": councillor), or None."""
    words = name_key(surface).split()
    title = words[0].rstrip(".") if len(words) >= 2 else ""
    if title not in OFFICE_TITLES:
        return None
    return Qualifier("office", title, surface.split()[0])


def _perfect(words: Sequence[str]) -> bool:
    """Whether a clause opens with a perfect ("has studied", "have moved"): a thing done."""
    return len(words) > 1 and words[0] in ("has", "have") and _is_past(words[1])


def _progressive(words: Sequence[str]) -> bool:
    """Whether a clause opens with a progressive ("is drawing", "was staying"): a thing done now."""
    return (
        len(words) > 1
        and words[0] in ("is", "are", "was", "were")
        and len(words[1]) > 4
        and words[1].endswith("ing")
    )


def _is_verb(word: str, after: str) -> bool:
    """Whether ``word``, inside a phrase after a subject's name, is the clause's verb."""
    if _is_past(word):
        return True
    if not after:
        return False
    return after[0].isupper() or after in _DETERMINERS or after in _OBJECT_PRONOUNS


def _description(kind: Kind, phrase: str) -> Qualifier | None:
    """A role or description qualifier keyed by its content words (None: it has none).

    None when every word is a time or the like ("from work", "at lunch today"): a time before
    a noun is part of a role ("the night dispatcher").
    """
    words = content_words(phrase)
    if not words or all(w in _NOT_QUALIFIERS for w in words):
        return None
    return Qualifier(kind, " ".join(words), phrase)


def said_to_be(qualifiers: Iterable[Qualifier]) -> frozenset[str]:
    """Whether what is said of a person calls them a man or a woman.

    A kin role's head noun says it (``GENDERED_NOUNS``), the last word before a preposition:
    "mother of two" is a woman, "son's teacher" is not said to be anyone's son. So does a
    pronoun the text uses for them (``_pronoun_of``).
    """
    qualifiers = list(qualifiers)
    pronouns = {q.key for q in qualifiers if q.kind == "pronoun"}
    return frozenset(pronouns | {kind for q in qualifiers if (kind := _kin(q)) is not None})


def called_kin(qualifiers: Iterable[Qualifier]) -> bool:
    """Whether a role stated for a person calls them someone's kin ("her brother, Magnus")."""
    return any(_kin(q) is not None for q in qualifiers)


def telling_apart(qualifiers: Iterable[Qualifier]) -> tuple[Qualifier, ...]:
    """The qualifiers that may tell one holder of a name from another.

    Not a pronoun, which says only man or woman.
    """
    return tuple(q for q in qualifiers if q.kind != "pronoun")


def _kin(q: Qualifier) -> str | None:
    """The kind, man or woman, of a role whose head noun is kin ("her husband"); else None."""
    head = _role_head(q)
    return GENDERED_NOUNS.get(head) if head else None


def _relation(q: Qualifier) -> bool:
    """Whether a role says how a person stands to another: kin, a friend, a flatmate."""
    head = _role_head(q)
    return head is not None and (head in GENDERED_NOUNS or head in RELATION_NOUNS)


def _role_head(q: Qualifier) -> str | None:
    """A role's head noun, its last word before a preposition ("mother" of "mother of two")."""
    if q.kind != "role":
        return None
    head = _HEAD_END.split(q.text.casefold(), maxsplit=1)[0].split()
    return head[-1] if head else None


def content_words(text: str) -> tuple[str, ...]:
    """The words of a qualifier that name something, folded to a plain singular form."""
    out: list[str] = []
    for raw in name_key(text).replace("’", "'").split():
        word = raw.strip("'-")
        word = word.removesuffix("'s")
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if (
            word
            and word not in _DETERMINERS
            and word not in _FUNCTION_WORDS
            and (word not in _LIGHT_WORDS)
            and word != "of"
        ):
            out.append(word)
    return tuple(dict.fromkeys(out))


def _kind_of(preposition: str) -> Kind:
    return "place" if preposition == "on" or preposition.endswith("in") else "organization"


# Kinds compared with one another: who a person is to the user, and where a thing is.
_WHO = "who"
_DIMENSIONS: dict[Kind, str] = {
    "place": "place",
    "organization": _WHO,
    "role": _WHO,
    "description": _WHO,
    "office": _WHO,
    "doing": _WHO,
}
# Kinds compared by their content words rather than as names.
_WORDED = frozenset({"role", "description", "office", "doing"})


def compatible(a: Qualifier, b: Qualifier) -> bool:
    """Whether two qualifiers may state the same thing.

    Two names (places, organisations) when one is inside the other; a role or description and
    anything of its dimension when they share a content word, or two words of one stem.
    """
    if a.key == b.key:
        return True
    if COMPANY in (a.kind, b.kind):
        return False  # one group of facts each (``company``): other keys, other namesakes
    if a.kind in _WORDED or b.kind in _WORDED:
        # Words of one stem say one thing: "from the walking club" / ", the walk leader,",
        # "from pharmacy" / ", the ward pharmacist,".
        return any(related(x, y) for x in content_words(a.key) for y in content_words(b.key))
    fa, fb = name_form(a.key), name_form(b.key)
    if fa.numbers != fb.numbers:
        return False
    return align_words(fa, fb, typos=False) is not None


def conflict(ours: Iterable[Qualifier], theirs: Iterable[Qualifier]) -> str | None:
    """Why two sides' qualifiers cannot hold for one thing (None: they can).

    Per dimension present on both sides (places; who a person is: organisation, role,
    description): some pair must be compatible. A qualifier stated for one side only says
    nothing against the other. A relation ("her husband, Tama", "my flatmate, Ada") is left
    out: it says how a person stands to someone, which any job, place of work or habit goes
    with.

    Two sides in one ``company`` group (a name's facts that are alike, told apart from its
    namesakes' by what they are about) are one holder's: what each says the holder is, a
    night nurse or someone from the choir, are facets of one person, not two people. Their
    places are still compared.
    """
    mine = _by_dimension(ours)
    other = _by_dimension(theirs)
    one_group = any(a.key == b.key for a in mine.get(COMPANY, ()) for b in other.get(COMPANY, ()))
    for dim in sorted(mine.keys() & other.keys()):
        if dim == _WHO and one_group:
            continue
        if not any(compatible(a, b) for a in mine[dim] for b in other[dim]):
            kinds = sorted({q.kind for q in (*mine[dim], *other[dim])})
            return (
                f"{' / '.join(kinds)} qualifiers differ: "
                f"{', '.join(q.text for q in mine[dim])} vs "
                f"{', '.join(q.text for q in other[dim])}"
            )
    return None


# Kinds that support a holder said to be so and part no one (``_by_dimension``).
_SUPPORT_ONLY = frozenset({"office", "doing", "pronoun"})


def _by_dimension(qualifiers: Iterable[Qualifier]) -> dict[str, list[Qualifier]]:
    """A side's qualifiers by what they say (``_DIMENSIONS``), relations and supports left out.

    For ``conflict``: an office is worn beside a trade ("Coach Varga" who is "the PE teacher"),
    and what someone is doing for now beside what they are (``doing``), so each supports a
    holder said to be so and parts no one.
    """
    out: dict[str, list[Qualifier]] = {}
    for q in qualifiers:
        if not _relation(q) and q.kind not in _SUPPORT_ONLY:
            out.setdefault(_dimension(q), []).append(q)
    return out


def _dimension(q: Qualifier) -> str:
    return _DIMENSIONS.get(q.kind, q.kind)


def shared(ours: Iterable[Qualifier], theirs: Iterable[Qualifier]) -> tuple[Qualifier, ...]:
    """The qualifiers of ``ours`` that a qualifier of ``theirs`` is compatible with."""
    theirs = list(theirs)
    return tuple(
        q
        for q in ours
        if q.kind != "pronoun"  # half of everyone: no sign of one person
        and any(_dimension(q) == _dimension(t) and compatible(q, t) for t in theirs)
    )
