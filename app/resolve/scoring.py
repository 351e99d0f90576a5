"""Scoring signals and the one policy that weighs them.

A candidate's score is ``name·w_name + context·w_context + salience·w_salience`` where
salience = max(recency, familiarity); each signal lies in [0, 1], so the score does too. The
score is rounded (``score_decimals``) before any comparison, so two candidates whose evidence
differs only by float noise tie exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime

import msgspec

from app.domain.names import PLACE_KIND_WORDS, NameForm, fold
from app.resolve.guards import WordAlignment, align_words, is_acronym_of
from app.resolve.model import NameKind, NameMatch


class ResolutionPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """Every weight and threshold of entity resolution, with the reason for each number."""

    # Weights of the three signals (they sum to 1, so a score is in [0, 1]).
    # Name agreement is necessary but, for short or shared names, not sufficient: half.
    name_weight: float = 0.5
    # Shared context is the only signal that separates namesakes (two Alexes), so it is the
    # second largest; a full overlap plus a partial name still reaches the threshold.
    context_weight: float = 0.3
    # Salience (recent or familiar) breaks the remaining ambiguity: "Sarah" yesterday is the
    # Sarah of yesterday. Smallest, because it carries no identity information of its own.
    salience_weight: float = 0.2

    # Merge at or above this (after rounding): an exact full name needs salience >= 0.5 or
    # some shared context on top of its 0.5; a partial or bare name needs real context.
    merge_threshold: float = 0.6
    # Between this and the merge threshold: create a new entity and file a review.
    review_threshold: float = 0.5
    # Two candidates within this margin of each other are a namesake tie: create + review.
    tie_margin: float = 0.05
    # Scores are rounded to this many decimals before they are compared.
    score_decimals: int = 2

    # Name relation scores (see ``name_relation``).
    exact_name: float = 1.0
    # Same name up to accents, punctuation, titles, legal suffixes or a type word.
    same_form_name: float = 0.95
    # A pair the text states to be aliases ("海洋探测器1号（简称海探1）").
    stated_name: float = 0.95
    # Same name up to a middle initial or an initial for a first name ("Sarah J. Chen").
    initials_name: float = 0.9
    # One name's words inside the other's: base + span × share of the longer name covered.
    contained_base: float = 0.55
    contained_span: float = 0.35
    # "UW" for "University of Washington": a common, deliberate short form.
    acronym_name: float = 0.7
    # A person named by a single word (first name or surname only, "Alex", "Dr. Okafor"):
    # shared by many people, so it scores this flat, whether it equals a stored name or is
    # part of one, unless no namesake is in sight (then the relation's own score, up to 1).
    # 0.85 keeps a bare name plus full context (0.425 + 0.3) above the threshold.
    given_name: float = 0.85
    # A one-letter typo in a word keeps this share of the relation's score.
    typo_factor: float = 0.9

    # Co-occurrence: shared mass / max(min(subject mass, candidate mass), context_floor), each
    # neighbour weighing 1/sqrt(its degree). The floor keeps a thin context from counting as
    # a full overlap: one shared neighbour of degree <= 4 is full evidence, one of degree 16
    # half of it.
    context_floor: float = 0.5
    # Neighbour weight = degree ** -degree_exponent (the design's 1/sqrt(degree)).
    degree_exponent: float = 0.5
    # A neighbour of at least this share of the bank's entities (and at least hub_min_degree
    # of them) is a hub ("user", the team's main project): it co-occurs with nearly anything,
    # so sharing it is no evidence at all. 1/sqrt alone leaves "user" 0.2 in a 25-entity bank,
    # enough to tip a borderline pair of namesakes.
    hub_share: float = 0.4
    hub_min_degree: int = 10
    # A context entity of the same series as a candidate's neighbour (Sprint 16 next to the
    # Alex who was in Sprint 14) counts at this share of that neighbour's weight: the same
    # team, office or product line, but not the same thing.
    sibling_factor: float = 0.5

    # Salience granted to a repeated full name (``evidence.FULL_NAME_KINDS``) whatever the
    # time since it was last seen: enough for an exact name (0.5 + 0.13) and a same-form one
    # (0.475 + 0.13) to reach the merge threshold with no context at all.
    full_name_salience: float = 0.65
    # Salience granted to a bare person name whose only holder in sight is this candidate
    # (no namesake among the candidates): full, so the flat given-name score (0.425) reaches
    # the merge threshold with no context (0.425 + 0.2), however long ago it was last seen.
    sole_holder_salience: float = 1.0
    # Context each topic word (``topics``) a candidate's facts share with the mention's gives:
    # two make full context, as one shared neighbour of degree 1 does; one alone does not
    # (decision 0035).
    topic_word: float = 0.58
    # Context credited to a candidate that a qualifier of the mention fits ("Sofia from
    # Harrow" for the Sofia stated to be from Harrow): as much as full shared company.
    qualifier_support: float = 1.0
    # Between namesakes, a fact whose embedding is on average this much more alike the facts
    # of one holder than those of every other (mean cosine, all-MiniLM-L6-v2; a settle only)
    # is about that holder (``evidence.alike_pick``). On the development corpora, with each
    # holder's facts as the corpus gives them, the holder so picked is the right one for 98 %
    # of the short and plain names of namesakes at 0.04 and 99 % at 0.06.
    alike_margin: float = 0.05
    # Context credited to that holder: as much as a fitting qualifier.
    alike_support: float = 1.0
    # Facts a holder needs besides the mention's own to be compared at all: one sentence is
    # not what a person's facts are about (a fact naming one neighbour of each of two
    # namesakes is nearer one of their single facts by chance).
    alike_min_facts: int = 2
    # Recency halves every 7 days (the design's "decaying over ~7 days").
    recency_half_life_days: float = 7.0
    # Familiarity n / (n + 3), a Chinese-restaurant-process prior: an entity named in 3 facts
    # is as salient as one named 7 days ago (0.5), so an exact full name with no shared
    # context merges into it; into a one-fact entity it needs recency (0.25 < 0.5).
    familiarity_concentration: float = 3.0
    # For a match on a bare given name: 12, so only an entity called so in a dozen facts is
    # salient by familiarity alone ("Lily", the user's daughter, yes; an Alex met thrice, no).
    given_name_concentration: float = 12.0

    # A candidate of another mention in the same fact counts as that mention's possible
    # entity (for co-occurrence) when its name scores at least this.
    plausible_name: float = 0.7
    # Candidates per mention the store should fetch (exact matches first).
    max_candidates: int = 10
    # A review names the strongest candidates, at most this many (the subject's rivals, best
    # first): a bare name that dozens of entities hold would otherwise file a pair with each
    # of them, every pair carrying every candidate's evidence, so that a long conversation's
    # reviews would grow with the square of its ties.
    review_candidates: int = 5


DEFAULT_POLICY = ResolutionPolicy()


def name_relation(
    subject: NameForm,
    candidate: NameForm,
    policy: ResolutionPolicy,
    *,
    stated: bool = False,
    unique_holder: bool = False,
) -> NameMatch | None:
    """The relation between two compatible names and its score; None when the words do not align.

    Guards are the caller's job; this only grades names that passed them. A person pair whose
    agreement rests on one word scores ``given_name`` flat (so an entity known only as "Alex"
    does not out-score "Alex Kim" for a bare "Alex"), unless ``unique_holder`` says no
    namesake is in sight: then it keeps its own relation score if that is higher.
    """
    kind: NameKind
    if subject.key == candidate.key:
        kind, score = "exact", policy.exact_name
    elif (
        subject.compact == candidate.compact
        or fold(subject.key) == fold(candidate.key)
        or (subject.spelled == candidate.words or candidate.spelled == subject.words)
    ):
        kind, score = "same_form", policy.same_form_name
    elif stated:
        kind, score = "stated", policy.stated_name
    elif is_acronym_of(subject, candidate) or is_acronym_of(candidate, subject):
        kind, score = "acronym", policy.acronym_name
    else:
        person = "person" in (subject.type_class, candidate.type_class)
        alignment = align_words(subject, candidate, typos=not person)
        if alignment is None:
            return None
        if alignment.unmatched_long == 0:
            plain = alignment.initials == 0 and alignment.extra_initials == 0
            kind = "same_form" if plain else "initials"
            score = policy.same_form_name if kind == "same_form" else policy.initials_name
        else:
            if bool(subject.head) != bool(candidate.head):
                # "Project Atlas" ~ "Atlas Health": the head says what the short name is, and
                # the long one grows its bare word into another thing. Two relaxations (head
                # dropped, words dropped) on one pair are not a name relation.
                return None
            if _another_place(subject, candidate):
                return None
            kind = "contained"
            covered = (alignment.long_words - alignment.unmatched_long) / alignment.long_words
            score = policy.contained_base + policy.contained_span * covered
        if alignment.typos:
            score *= policy.typo_factor
    if kind != "stated" and _single_person_word(subject, candidate):
        kind = "given_name"
        score = max(score, policy.given_name) if unique_holder else policy.given_name
    return NameMatch(kind=kind, score=score, subject_name=subject.key, candidate_name=candidate.key)


def _another_place(a: NameForm, b: NameForm) -> bool:
    """True when a place name is another's with a word that makes it another place left out.

    "Tarrow" is not a short form of "Lake Tarrow", nor "Kelby" of "New Kelby"
    (``PLACE_KIND_WORDS``); "Lookout" of "Anvil Lookout" may be.
    """
    if "place" not in (a.type_class, b.type_class):
        return False
    short, long_ = (a, b) if len(a.words) < len(b.words) else (b, a)
    return any(fold(w) in PLACE_KIND_WORDS for w in set(long_.words) - set(short.words))


def _single_person_word(a: NameForm, b: NameForm) -> bool:
    """A person pair whose agreement rests on one word ("Alex" ~ "Alex Kim", "Alex" ~ "Alex").

    A hyphenated compound is one word of a person's name: "Prof. Halvorsen-Mbeki" is a title
    and a surname, as "Dr. Weber" is, and "Jean-Luc" alone a bare given name.
    """
    if "person" not in (a.type_class, b.type_class):
        return False
    return min(_person_words(a), _person_words(b)) <= 1


def _person_words(form: NameForm) -> int:
    return _informative(form.words) - _hyphen_joins(form.key)


def _informative(words: tuple[str, ...]) -> int:
    return sum(1 for w in words if _is_informative(w))


def _is_informative(word: str) -> bool:
    return len(word) > 1 or not (word.isascii() and word.isalpha())


def _hyphen_joins(key: str) -> int:
    """Hyphens that join two informative words of one written word ("halvorsen-mbeki": 1)."""
    joins = 0
    for written in key.split():
        if "-" in written:
            parts = [p for p in written.split("-") if _is_informative(p) and p.isalpha()]
            joins += max(0, len(parts) - 1)
    return joins


def maximal_names(forms: Sequence[NameForm], stated: Iterable[str] = ()) -> list[NameForm]:
    """Names not strictly contained (by words) in another name of the same entity.

    A stored short form ("alex" of Alex Kim) is evidence that the short form was used, not a
    full name of its own: scoring a mention against it would make every bare "Alex" an exact
    match. Stated aliases always count as full names.
    """
    stated_keys = set(stated)
    out = []
    for form in forms:
        if form.key in stated_keys or not any(
            _strictly_inside(form, other) for other in forms if other is not form
        ):
            out.append(form)
    return out


def _strictly_inside(a: NameForm, b: NameForm) -> bool:
    alignment = shortening(a, b)
    return alignment is not None and alignment.unmatched_long > 0


def shortening(short: NameForm, long_: NameForm) -> WordAlignment | None:
    """How ``short``, with fewer words and the same numbers, aligns with ``long_`` (no typos).

    None when it has as many words or more, other numbers, or words that do not align.
    """
    if len(short.words) >= len(long_.words) or short.numbers != long_.numbers:
        return None
    return align_words(short, long_, typos=False)


def context_overlap(
    shared_mass: float, subject_mass: float, candidate_mass: float, policy: ResolutionPolicy
) -> float:
    """Shared neighbour mass, normalised by the thinner side and floored; in [0, 1]."""
    if shared_mass <= 0:
        return 0.0
    norm = max(min(subject_mass, candidate_mass), policy.context_floor)
    return min(1.0, shared_mass / norm)


def hub_degree(bank_entities: int, policy: ResolutionPolicy) -> float:
    """The degree from which a neighbour is a hub; infinite when the bank size is unknown (0)."""
    if bank_entities <= 0:
        return math.inf
    return max(policy.hub_min_degree, policy.hub_share * bank_entities)


def neighbour_weight(degree: int, policy: ResolutionPolicy, hub: float = math.inf) -> float:
    """Weight of a shared neighbour: 1/sqrt(its degree) (``degree_exponent``), 0 for a hub."""
    if degree >= hub:
        return 0.0
    return float(max(degree, 1) ** -policy.degree_exponent)


def recency(
    first: datetime,
    last: datetime,
    cand_first: datetime,
    cand_last: datetime,
    policy: ResolutionPolicy,
) -> float:
    """Recency in [0, 1]: 0.5 ** (gap / half-life).

    The gap is the time between the two intervals (0 if they overlap), symmetric in time, so
    forward and reverse ingestion see the same gaps.
    """
    if last < cand_first:
        gap = (cand_first - last).total_seconds()
    elif cand_last < first:
        gap = (first - cand_last).total_seconds()
    else:
        gap = 0.0
    days = gap / 86400.0
    return float(0.5 ** (days / policy.recency_half_life_days))


def familiarity(
    mention_count: int,
    policy: ResolutionPolicy,
    *,
    bare_name: bool = False,
) -> float:
    """How established an entity is: n / (n + concentration).

    ``bare_name``: the match rests on one given name, which many people share; the much
    larger ``given_name_concentration`` applies (popularity alone must not fold two Alexes).
    """
    n = max(mention_count, 0)
    c = policy.given_name_concentration if bare_name else policy.familiarity_concentration
    return n / (n + c)


def combine(name: float, context: float, salience: float, policy: ResolutionPolicy) -> float:
    """Weighted sum of the signals, rounded to ``score_decimals``."""
    total = (
        policy.name_weight * name
        + policy.context_weight * context
        + policy.salience_weight * salience
    )
    return round(total, policy.score_decimals)
