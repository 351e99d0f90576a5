"""The one name normalisation, and the comparison forms derived from it.

``name_key`` is the identity of a surface name: Unicode NFKC, casefold, NFKC again (casefolding
can leave unnormalised sequences), invisible format characters removed, whitespace collapsed to
one space, and punctuation, emoji and other symbols trimmed from both ends. Inner punctuation is
kept: it is part of names such as "UA-123", "Ortiz & Lee" or "C#", so the key of "UA-123" differs
from the key of "UA 123"; the comparison forms below (tokens, compact form) make them equivalent
for similarity, so the difference only decides *exact* matches. The characters ``# % & @ * +``
stay even at the ends ("C#", "50%", "C++").

**Python computes every key, the database never does.** Python's ``casefold`` and Neo4j's
``toLower`` disagree on characters such as "İ" (U+0130: ``"İ".casefold()`` is "i̇", i followed
by a combining dot, while Cypher lower-cases it differently) and on "ß". Mnemo therefore computes
``name_key`` here, stores it on each name as a property (``name_key``) and Cypher only ever
compares stored keys (``WHERE n.name_key = $key``), never ``toLower(n.name)``. "İstanbul" has the
key "i̇stanbul" and matches itself exactly; "Istanbul" and "ISTANBUL" share the key "istanbul";
the two keys differ only by the combining dot, which ``fold`` removes, so they are equivalent
spellings for similarity (not an exact key match).

``fold`` is the accent-insensitive comparison form (NFD, combining marks dropped, a few letters
without a decomposition mapped: ø→o, ł→l, ı→i, æ→ae…). ``name_tokens`` splits a folded key into
word tokens; each CJK ideograph or kana is its own token (those scripts do not separate words),
and a digit run keeps the Latin letters that follow it ("4a", "4o") so that codes stay whole.
``name_form`` derives everything the guards and the scorer compare, from a key and a type class.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from typing import Protocol

import msgspec

# Characters that stay at the ends of a name because they are part of it ("C#", "50%", "C++").
_KEEP_AT_EDGE = frozenset("#%&@*+")
# Format characters that carry no identity (soft hyphen, zero-width space, word joiner, BOM,
# Mongolian vowel separator); ZWJ/ZWNJ stay because some scripts spell with them.
_INVISIBLE = frozenset("\u00ad\u200b\u2060\ufeff\u180e")
# Unicode categories trimmed at the ends: punctuation, other/modifier symbols (emoji, skin tones),
# format characters, separators and controls.
_TRIM_CATEGORIES = frozenset(
    {"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "So", "Sk", "Cf", "Zs", "Zl", "Zp", "Cc"}
)
# Emoji variation selectors and the keycap mark are combining marks that belong to a symbol.
_EMOJI_MARKS = frozenset(chr(c) for c in range(0xFE00, 0xFE10)) | {"\u20e3"}

# Letters that NFD does not decompose but that readers treat as accented variants.
_FOLD_MAP = str.maketrans(
    {
        "ø": "o",
        "ł": "l",
        "đ": "d",
        "ð": "d",
        "þ": "th",
        "ı": "i",
        "æ": "ae",
        "œ": "oe",
        "ħ": "h",
        "ŧ": "t",
        "ŋ": "n",
    }
)

# Titles of an office: what the person does, said as a form of address ("Coach Varga",
# "Captain Osei", "Father Lund"). Worn with any title of ``ADDRESS_TITLES``; a resolver reads
# them as a role stated for the name (``qualifiers``), which supports a holder said to do it.
OFFICE_TITLES = frozenset(
    {
        "rev",
        "coach",
        "captain",
        "capt",
        "officer",
        "detective",
        "sergeant",
        "sgt",
        "judge",
        "father",
        "fr",
        # A nun, a monk, and in British hospitals a senior nurse: "Sister Okafor".
        "sister",
        "brother",
        "pastor",
        "rabbi",
        "imam",
        "chef",
        "nurse",
        # By a civic office: "Councillor Ó Ceallaigh", "Mayor Okafor", "Inspector Lund".
        "councillor",
        "councilor",
        "mayor",
        "senator",
        "governor",
        "inspector",
        "constable",
    }
)
# Kinship put before a given name as a form of address ("Auntie Ngozi", "Avó Graça", "Oma
# Liesel"), folded: a title, not a word of the name, so "Avó Graça" may be the Graça of "Graça
# da Silva". Words that are given names as often ("Nana", "Lola", "Tito") are left out.
KIN_TITLES = frozenset(
    {
        *("aunt", "auntie", "aunty", "uncle", "grandma", "grandpa", "granny", "gran", "grandad"),
        *("granddad", "avo", "vovo", "tia", "tio", "abuela", "abuelo", "abuelita", "abuelito"),
        *("oma", "opa", "tante", "onkel", "nonna", "nonno", "zia", "zio", "babcia", "dziadek"),
        *("ciocia", "wujek", "mamie", "tonton"),
    }
)
# "Mr" and "Mrs" as other languages write them before a name ("Herr Brandt", "Señora Abril",
# "Mme Aubert"), folded: a user's notes keep the form the person is addressed by, and read as a
# word of the name "Herr Brandt" could never be the "Jürgen Brandt" it is said of. Forms that
# are given names or surnames as often ("Don", "Dona", "Pan") are left out.
ADDRESS_TITLES_ABROAD = {
    **dict.fromkeys(
        ("herr", "senor", "senhor", "signor", "signore", "monsieur", "meneer"),
        "man",
    ),
    **dict.fromkeys(
        (
            *("frau", "fraulein", "senora", "sra", "senorita", "srta", "senhora", "signora"),
            *("madame", "mme", "mademoiselle", "mlle", "mevrouw", "mevr", "fru"),
        ),
        "woman",
    ),
}
# Leading tokens that are professional, social or kinship titles, not part of a person's name.
PERSON_TITLES = (
    OFFICE_TITLES
    | KIN_TITLES
    | {
        "dr",
        "doctor",
        "prof",
        "professor",
        "mr",
        "mrs",
        "ms",
        "mx",
        "miss",
        "sir",
        "dame",
        "hon",
        # "Sr." is "Señor" in Spanish and Portuguese and "Sister" in English: a title, of no kind.
        "sr",
        *ADDRESS_TITLES_ABROAD,
    }
)
# Titles that say who a person is taken for, by kind: one person is written about with one of
# them ("Dr Varley" is not the "Mrs Varley" who is the doctor's neighbour; "Mr" and "Ms" are two
# people). Titles of office ("Coach", "Captain") are worn with any of them.
ADDRESS_TITLES = {
    "dr": "doctor",
    "doctor": "doctor",
    "prof": "doctor",
    "professor": "doctor",
    "mr": "man",
    "sir": "man",
    "mrs": "woman",
    "ms": "woman",
    "miss": "woman",
    "dame": "woman",
    **ADDRESS_TITLES_ABROAD,
}
# Nouns a text calls a person by that say which of ``ADDRESS_TITLES``' "man" and "woman" the
# person is taken for ("her husband, Tadeusz", "Ana, my sister,"): a "Mrs" of that surname is
# not the husband. Kinship and the like only: a job's name says nothing of it in English.
GENDERED_NOUNS = {
    **dict.fromkeys((
        "husband", "father", "dad", "daddy", "son", "brother", "uncle", "nephew", "grandfather",
        "grandpa", "granddad", "grandson", "boyfriend", "stepfather", "stepson", "stepbrother",
        "widower",
    ), "man"),
    **dict.fromkeys((
        "wife", "mother", "mum", "mom", "mummy", "mommy", "daughter", "sister", "aunt",
        "auntie", "niece", "grandmother", "grandma", "granny", "granddaughter", "girlfriend",
        "stepmother", "stepdaughter", "stepsister", "widow",
    ), "woman"),
}  # fmt: skip
# Nouns that say how a person stands to another in private life, as kin does, without saying
# man or woman: a relation any job, workplace or habit goes with ("my flatmate, Ada" who "works
# at the pharmacy").
RELATION_NOUNS = frozenset((
    "cousin", "sibling", "parent", "child", "kid", "grandchild", "grandparent", "spouse",
    "partner", "fiance", "fiancé", "fiancee", "fiancée", "godparent", "godchild", "friend",
    "neighbour", "neighbor", "flatmate", "roommate", "housemate",
))  # fmt: skip
# The kinds of ``ADDRESS_TITLES`` that ``GENDERED_NOUNS`` can contradict.
GENDER_KINDS = frozenset({"man", "woman"})
# Japanese titles of address written after a surname with a hyphen ("Tanaka-san", "Ito-sensei"):
# "Mr" or "Ms" (of no kind: "-san" is either), the formal form, "teacher". Read only when
# hyphenated onto a name, so a person named "San Lee" keeps her given name. "-chan" and "-kun"
# go with given names as kin titles do, and are left out.
HONORIFIC_SUFFIXES = frozenset({"san", "sama", "sensei"})
# Trailing tokens that are generational or academic suffixes of a person's name.
PERSON_SUFFIXES = frozenset({"jr", "sr", "phd", "md", "esq"})
# Trailing tokens that are legal forms of an organisation.
LEGAL_SUFFIXES = frozenset(
    {
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "ltd",
        "limited",
        "llc",
        "llp",
        "lp",
        "plc",
        "gmbh",
        "ag",
        "sa",
        "sas",
        "sarl",
        "bv",
        "nv",
        "oy",
        "ab",
        "pty",
        "pte",
        "kk",
        "srl",
        "spa",
        "ulc",
    }
)
# Words that make a place's name another place's: a kind of feature ("Lake Tarrow" is a lake,
# "Tarrow" the town on it; "Port Kelby" the harbour suburb of Kelby) or a word that sets one
# place apart from the one it is named after ("New Kelby", "North Vancouver"). A place
# written without them is the other place, not a short form. English, French, Spanish, Portuguese,
# Italian and German forms of the common ones.
PLACE_KIND_WORDS = frozenset(
    {
        "lake", "lakes", "lac", "loch", "lago", "see", "river", "riviere", "rio", "creek",
        "falls", "bay", "baie", "bahia", "gulf", "harbour", "harbor", "port", "porto", "puerto",
        "cape", "cap", "cabo", "point", "pointe", "ponta", "punta", "island", "islands", "isle",
        "ile", "ilha", "isla", "mount", "mt", "mont", "monte", "mountain", "mountains", "hill",
        "hills", "peak", "valley", "vale", "glen", "forest", "park", "beach", "plage", "praia",
        "fort", "castle", "county", "district", "province", "state", "region", "airport",
        "station", "street", "st", "road", "rd", "avenue", "ave", "boulevard", "square",
        "bridge", "new", "nouveau", "nouvelle", "nova", "novo", "nueva", "nuevo", "north",
        "south", "east", "west", "upper", "lower", "great", "greater", "little", "old",
    }
)  # fmt: skip
# A leading or trailing word that only repeats the type ("Project Orbit" is the project Orbit).
TYPE_HEADS: dict[str, frozenset[str]] = {
    "project": frozenset({"project", "programme", "program"}),
}
# The small words of names: left out of acronyms ("University of Washington" → "uw"), and
# never read as a contraction of a longer word ("The" is no "Trakhea").
# Lower-case particles written inside a name between its capitalised words ("Maria dos Santos",
# "Lagoa da Mira", "Pieter van der Berg", "Ponte di Legno", "Hamid bin Salleh").
NAME_PARTICLES = frozenset(
    {
        *("de", "da", "do", "dos", "das", "di", "del", "della", "delle", "dei", "degli", "du"),
        *("des", "la", "le", "lo", "van", "von", "der", "den", "ten", "ter", "zu", "zum", "zur"),
        *("vom", "bin", "binti", "ibn", "bint"),
    }
)
NAME_FUNCTION_WORDS = NAME_PARTICLES | frozenset(
    {
        "of",
        "the",
        "and",
        "for",
        "at",
        "in",
        "on",
        "de",
        "du",
        "des",
        "la",
        "le",
        "van",
        "von",
        "der",
        "den",
        "y",
        "e",
        "und",
        "et",
    }
)

# Canonical type classes and their synonyms; anything else keeps its own (lower-cased) name.
_TYPE_SYNONYMS: dict[str, str] = {
    **dict.fromkeys(("person", "people", "per", "human", "individual", "contact"), "person"),
    **dict.fromkeys(
        (
            "organization",
            "organisation",
            "org",
            "company",
            "business",
            "institution",
            "corporation",
            "agency",
            "norp",
        ),
        "organization",
    ),
    **dict.fromkeys(
        (
            "place",
            "location",
            "loc",
            "gpe",
            "city",
            "country",
            "region",
            "venue",
            "address",
            "fac",
            "facility",
        ),
        "place",
    ),
    **dict.fromkeys(
        ("product", "software", "tool", "app", "application", "device", "model"), "product"
    ),
    **dict.fromkeys(("project", "initiative", "programme", "program"), "project"),
    **dict.fromkeys(("event", "meeting", "conference", "sprint"), "event"),
    **dict.fromkeys(("concept", "topic", "idea", "skill"), "concept"),
    **dict.fromkeys(("other", "misc", "thing", "object"), "other"),
}
UNKNOWN_TYPES = frozenset({"", "unknown", "entity", "none", "any"})


@lru_cache(maxsize=65536)
def name_key(text: str) -> str:
    """Return the identity key of a surface name (see the module docstring).

    Idempotent: ``name_key(name_key(x)) == name_key(x)``. May return "" for a text made only of
    punctuation or symbols; callers treat an empty key as "no name". Cached: resolution keys
    the same few hundred names of a bank again for every candidate of every fact.
    """
    s = unicodedata.normalize("NFKC", text)
    s = unicodedata.normalize("NFKC", s.casefold())
    s = "".join(ch for ch in s if ch not in _INVISIBLE)
    s = " ".join(s.split())
    start, end = 0, len(s)
    while start < end and _trimmable(s[start]):
        start += 1
    while end > start and _trimmable(s[end - 1]):
        end -= 1
    return s[start:end]


def _trimmable(ch: str) -> bool:
    if ch in _KEEP_AT_EDGE:
        return False
    return ch in _EMOJI_MARKS or unicodedata.category(ch) in _TRIM_CATEGORIES


@lru_cache(maxsize=65536)
def fold(key: str) -> str:
    """Accent-insensitive comparison form of a key ("zoë" → "zoe", "i̇stanbul" → "istanbul")."""
    decomposed = unicodedata.normalize("NFD", key)
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return unicodedata.normalize("NFC", stripped).translate(_FOLD_MAP)


def is_cjk(ch: str) -> bool:
    """True for CJK ideographs and kana, scripts written without spaces between words."""
    c = ord(ch)
    return (
        0x3040 <= c <= 0x30FF
        or 0x3400 <= c <= 0x4DBF
        or 0x4E00 <= c <= 0x9FFF
        or 0xF900 <= c <= 0xFAFF
        or 0x20000 <= c <= 0x2FFFF
    )


@lru_cache(maxsize=65536)
def name_tokens(key: str) -> tuple[str, ...]:
    """Split a key into folded word tokens.

    Letters form words; a digit run is a token together with the Latin letters right after it
    ("room 4a" → room, 4a; "ua123" → ua, 123; "gpt-4o" → gpt, 4o); "#" and "+" right after a
    word stay in it ("c#", "c++"); every CJK ideograph or kana is a token of its own
    ("海探1" → 海, 探, 1); everything else separates tokens.
    """
    tokens: list[str] = []
    current: list[str] = []
    mode = ""  # "a" inside a word, "d" inside a number (and its letter suffix)
    for ch in fold(key):
        if is_cjk(ch):
            _flush(tokens, current)
            tokens.append(ch)
            mode = ""
        elif ch.isdigit():
            if mode != "d":
                _flush(tokens, current)
            current.append(ch)
            mode = "d"
        elif ch in "#+" and mode:
            current.append(ch)  # "c#", "c++": the sign is part of the word
        elif ch.isalpha():
            if mode == "d" and not ch.isascii():
                _flush(tokens, current)
                mode = ""
            current.append(ch)
            mode = mode or "a"
        else:
            _flush(tokens, current)
            mode = ""
    _flush(tokens, current)
    return tuple(tokens)


def _flush(tokens: list[str], current: list[str]) -> None:
    if current:
        tokens.append("".join(current))
        current.clear()


def is_number_token(token: str) -> bool:
    """True for tokens that start with a digit ("14", "4a", "123")."""
    return token[:1].isdigit()


def type_class(entity_type: str | None) -> str:
    """Map a caller's type label to a canonical class; "" means unknown (matches anything)."""
    if entity_type is None:
        return ""
    t = entity_type.strip().casefold()
    if t in UNKNOWN_TYPES:
        return ""
    return _TYPE_SYNONYMS.get(t, t)


def read_as_person(entity_type: str | None) -> bool:
    """Whether a mention is read for what is said of a person: a person's, or of no known type.

    Local extraction leaves the type out most often for people NER did not know ("met Siwan
    at the bakery").
    """
    return type_class(entity_type) in ("person", "")


def may_be_a_person(entity_type: str | None) -> bool:
    """Whether a mention of this type may still be a person's.

    NER gives the names of people it does not know the type of an organisation or a product as
    often as a person's ("Ines Varga" ORG, "Théo" PRODUCT); who a pronoun may stand for is read
    with those counted as people.
    """
    return type_class(entity_type) in ("person", "", "organization", "product", "work")


class NameForm(msgspec.Struct, frozen=True):
    """Everything the guards and the scorer compare about one name key under one type class."""

    key: str
    type_class: str
    # All folded tokens of the key.
    tokens: tuple[str, ...]
    # Tokens left after titles, legal suffixes and type heads are removed, in order.
    core: tuple[str, ...]
    # Word tokens of the core (numbers excluded).
    words: tuple[str, ...]
    # Number tokens of the whole key, sorted (a multiset): "Sprint 14" → ("14",).
    numbers: tuple[str, ...]
    # Letters and digits of the core, concatenated: "quillon, inc." and "QUILLON INC" →
    # "quillon"; "ua-123" and "ua 123" → "ua123".
    compact: str
    # Initialisms of a multi-word core ("university of washington" → ("uw", "uow")).
    acronyms: tuple[str, ...]
    # The words spelled as an ASCII keyboard writes the letters that ``fold`` strips
    # ("jürgen" → "juergen", "søren" → "soeren"); equal to ``words`` for most names.
    spelled: tuple[str, ...] = ()
    # The type head the core left out ("project" of "Project Orbit"), if any.
    head: str = ""

    @property
    def core_key(self) -> str:
        """The core as one string: an index key ("project orbit" → "orbit")."""
        return " ".join(self.core)

    @property
    def series(self) -> str:
        """The name with its numbers blanked ("sprint 14" → "sprint #"); "" without numbers.

        Names of one series (Sprint 14 and Sprint 16, Room 4A and Room 4B) are distinct
        entities (the number guard), but they belong to the same surroundings.
        """
        if not self.numbers or not self.words:
            return ""
        return " ".join("#" if is_number_token(t) else t for t in self.core)


@lru_cache(maxsize=65536)
def name_form(key: str, entity_type_class: str = "") -> NameForm:
    """Derive the comparison form of a key (already a ``name_key``) under a type class."""
    tokens = name_tokens(key)
    honorific = suffixed_honorific(key) if entity_type_class in ("person", "") else ""
    if honorific:
        # "Tanaka-san" is read as "Ms Tanaka" is: the title first, and not part of the core.
        tokens = (honorific, *tokens[:-1])
    core, head = _strip_decorations(tokens[1:] if honorific else tokens, entity_type_class)
    words = tuple(t for t in core if not is_number_token(t))
    return NameForm(
        key=key,
        type_class=entity_type_class,
        tokens=tokens,
        core=core,
        words=words,
        numbers=tuple(sorted(t for t in tokens if is_number_token(t))),
        compact="".join(core),
        acronyms=() if entity_type_class == "person" else _acronyms(words),
        spelled=_spelled(key, entity_type_class, words),
        head=head,
    )


# ASCII spellings of letters that fold to a bare vowel or consonant: "Jürgen" is written
# "Juergen" as often as "Jurgen", "Søren" as "Soeren", "Åsa" as "Aasa".
_SPELLED = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "ø": "oe", "å": "aa", "æ": "ae", "œ": "oe", "ß": "ss"}
)


def _spelled(key: str, tclass: str, words: tuple[str, ...]) -> tuple[str, ...]:
    if not any(ch in key for ch in "äöüøåæœß"):
        return words
    alt = name_form(key.translate(_SPELLED), tclass).words
    return alt if len(alt) == len(words) else words


def spelled_alike(a: NameForm, b: NameForm, known: Iterable[NameForm]) -> bool:
    """Whether a name in ``known`` is written both as ``a`` and as ``b`` on an ASCII keyboard.

    "Jürgen Weiß" is "Jurgen Weiss" with its marks dropped and "Juergen Weiss" spelled out:
    where the marked name is known for the same thing, the two ASCII forms are that name, not
    a near miss of each other ("Jon" / "John"). Without it nothing says so, and they stay apart.
    """
    pair = {a.words, b.words}
    return len(pair) == 2 and any(
        g.spelled != g.words and pair == {g.words, g.spelled} for g in known
    )


def address_title(form: NameForm) -> str | None:
    """The kind of the title a person's name is written with ("Mrs Varley" → "woman"), if any."""
    title = person_title(form)
    return ADDRESS_TITLES.get(title) if title else None


def person_title(form: NameForm) -> str | None:
    """The title a person's name is written with ("Dr. Chen" → "dr"), if any."""
    if form.type_class not in ("person", "") or len(form.tokens) <= len(form.core):
        return None
    title = form.tokens[0]
    return title if title in PERSON_TITLES or title in HONORIFIC_SUFFIXES else None


def suffixed_honorific(key: str) -> str:
    """The title of address a name key ends with after a hyphen ("tanaka-san" → "san"); "" if none.

    There must be a name before it: "san" alone, or "-san", is no titled name.
    """
    name, hyphen, suffix = key.rpartition("-")
    if not hyphen or not name.strip() or " " in suffix:
        return ""
    return suffix if fold(suffix) in HONORIFIC_SUFFIXES else ""


def is_person_title(word: str) -> bool:
    """Whether one written word is a person's title ("Dr.", "Señora", "MME").

    In any case, with or without its marks and its full stop, as ``name_form`` reads a title.
    """
    tokens = name_tokens(name_key(word))
    return len(tokens) == 1 and tokens[0] in PERSON_TITLES


def _strip_decorations(tokens: tuple[str, ...], tclass: str) -> tuple[tuple[str, ...], str]:
    """Drop titles (persons), legal suffixes (organisations) and type heads; never everything.

    Returns the core and the type head it dropped ("" when none).
    """
    core = list(tokens)
    if tclass in ("person", ""):
        while len(core) > 1 and core[0] in PERSON_TITLES:
            core.pop(0)
        while len(core) > 1 and core[-1] in PERSON_SUFFIXES:
            core.pop()
    if tclass in ("organization", ""):
        while len(core) > 1 and core[-1] in LEGAL_SUFFIXES:
            core.pop()
    heads = TYPE_HEADS.get(tclass) if tclass else frozenset().union(*TYPE_HEADS.values())
    head = ""
    if heads:
        if len(core) > 1 and core[0] in heads:
            head = core.pop(0)
        if len(core) > 1 and core[-1] in heads:
            head = core.pop()
    return tuple(core), head


def _acronyms(words: tuple[str, ...]) -> tuple[str, ...]:
    """Initialisms of a name of two or more Latin words, without and with the stopwords."""
    if len(words) < 2 or not all(w.isascii() and w.isalpha() for w in words):
        return ()
    full = "".join(w[0] for w in words)
    content = "".join(w[0] for w in words if w not in NAME_FUNCTION_WORDS)
    found = [a for a in (content, full) if len(a) >= 2]
    return tuple(dict.fromkeys(found))


def letters_in_order(letters: str, word: str) -> bool:
    """True when every letter of ``letters`` appears in ``word``, in that order ("ms", "microsoft").

    What shortened forms of a word have in common: a contraction ("Dept"), a clipped nickname
    ("Liz" of "Elizabeth"), an abbreviation.
    """
    remaining = iter(word)
    return all(ch in remaining for ch in letters)


class NameKeys(msgspec.Struct, frozen=True):
    """What the store indexes for one name claim, so that candidate lookups stay index-only.

    ``key``: exact lookups (range index). ``core``, ``compact`` and ``acronyms``: lookups of
    "same name up to titles / legal suffixes / punctuation" and of acronyms (range index on a
    list of lookup keys). ``text``: folded words for the full-text index (token and fuzzy
    queries: "sarah" finds "sarah chen", "quilon~" finds "quillon"), with the ASCII spellings
    of marked words ("jürgen" also as "juergen", which is two edits from "jurgen": no fuzzy
    query finds it). ``series``: the entity's series key when it names one ("sprint #").
    """

    key: str
    lookup: tuple[str, ...]
    text: str
    series: str


def index_keys(key: str, entity_type: str | None = None) -> NameKeys:
    """The index keys of a name key (see ``NameKeys``), under the entity's type."""
    form = name_form(key, type_class(entity_type))
    lookup = tuple(dict.fromkeys(k for k in (form.core_key, form.compact, *form.acronyms) if k))
    text = " ".join(dict.fromkeys((*form.tokens, *form.spelled)))
    return NameKeys(key=key, lookup=lookup, text=text, series=form.series)


class EntityName(msgspec.Struct, frozen=True, kw_only=True):
    """One name of an entity with its provenance, all its claims on that name together."""

    name: str
    key: str
    # mention (a fact called it so), alias (a text stated it), curator (a person named it), …
    source: str | None
    # A text stated it as an alias, or a curator gave it: it skips the word guard in matching.
    stated: bool
    surfaces: list[str]
    # Facts that called the entity by this name (the first few; the count is complete).
    memory_ids: list[str]
    memory_count: int
    first_seen_at: datetime | None


class NamedMention(Protocol):
    """A mention resolved to an entity: the entity's canonical name and the text as written."""

    @property
    def canonical_name(self) -> str:
        """The entity's canonical name."""
        ...

    @property
    def mention(self) -> str:
        """The surface text in the fact."""
        ...


def entity_names(mentions: Iterable[NamedMention]) -> str:
    """A fact's ``entity_names`` (keyword field): canonical names and surface texts it names."""
    names = {m.canonical_name for m in mentions} | {m.mention for m in mentions}
    return " · ".join(sorted(names))
