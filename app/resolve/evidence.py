"""Evidence for one subject against its candidates: the pair rules shared by every decision.

A *subject* is what is being resolved: a group of mentions of one fact (``decide``) or a
stored entity whose evidence changed (``reconsider``). For each candidate, in order:

1. Exclusions: an entity a reviewer decided is different, or one already taken by another
   mention of the same fact, is out.
2. Controlled vocabularies: a label only matches a label with an identical key.
3. ``resolve_entities: false``: only candidates with an identical key stay in.
4. Guards (types, numbers/codes, tokens; ``guards``) between the full (maximal) names of
   both sides; stated aliases are exempt from the token guard. Titles of address ("Dr",
   "Mrs", "Mr") are compared between every name of both sides.
5. Score = name·0.5 + context·0.3 + salience·0.2 (``scoring.ResolutionPolicy``), rounded.
6. Best score ≥ merge threshold and no namesake within the tie margin → merge; a namesake
   within the margin → create + review; grey zone → create + review; else create.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

import msgspec

from app.domain.names import (
    GENDER_KINDS,
    NameForm,
    address_title,
    name_form,
    name_key,
    spelled_alike,
    type_class,
)
from app.resolve.guards import name_conflict, number_conflict, title_conflict, type_conflict
from app.resolve.model import (
    Candidate,
    Create,
    CreateAndReview,
    Decision,
    Evidence,
    Merge,
    NameMatch,
    Rejection,
    SubjectSummary,
)
from app.resolve.qualifiers import Qualifier, said_to_be
from app.resolve.qualifiers import conflict as qualifier_conflict
from app.resolve.qualifiers import shared as shared_qualifiers
from app.resolve.scoring import (
    DEFAULT_POLICY,
    ResolutionPolicy,
    combine,
    context_overlap,
    familiarity,
    maximal_names,
    name_relation,
    neighbour_weight,
    recency,
    shortening,
)
from app.resolve.topics import support as topic_support


class ContextRef(msgspec.Struct, frozen=True):
    """One co-occurring thing: the entity it may be (several while unresolved) and weights."""

    ids: tuple[str, ...]
    weights: tuple[float, ...]
    # Series key of the thing's name ("sprint #"), for sibling evidence; "" if none.
    series: str = ""

    @property
    def mass(self) -> float:
        """Largest weight: what the reference adds to its subject's context mass."""
        return max(self.weights, default=0.0)


class Subject(msgspec.Struct, frozen=True, kw_only=True):
    """What is being resolved: a group of mentions of one fact, or a stored entity."""

    names: tuple[NameForm, ...]
    stated: frozenset[str] = frozenset()
    type_class: str = ""
    first: datetime
    last: datetime
    mention_count: int = 1
    context: tuple[ContextRef, ...] = ()
    context_mass: float = 0.0
    exclude: frozenset[str] = frozenset()
    is_label: bool = False
    exact_only: bool = False
    # True when the subject is a stored entity (``reconsider``): no recency between entities.
    is_entity: bool = False
    # Degree from which a neighbour is a hub (``scoring.hub_degree``).
    hub: float = math.inf
    # For an entity subject: its non-hub neighbours met in two facts or more.
    recurring: frozenset[str] = frozenset()
    # For an entity subject: when the evidence that triggered re-evaluation arrived (the time
    # of the fact that changed it), or None.
    changed_at: datetime | None = None
    # What the text stated next to the subject's names (``qualifiers``).
    qualifiers: tuple[Qualifier, ...] = ()
    # The topic words of the subject's fact (``topics``).
    topics: frozenset[str] = frozenset()
    # How alike the subject's fact (an entity's facts, in ``reconsider``) is to each
    # candidate's facts (``FactMentions.likeness``).
    likeness: Mapping[str, float] = msgspec.field(default_factory=dict)
    # The subject's type is a local model's guess (NER): evidence, not a guard. spaCy calls
    # one name a person in one sentence and an organisation in the next.
    type_guessed: bool = False


class CandidateView(msgspec.Struct, frozen=True):
    """A candidate with its derived forms, computed once per call (``view``)."""

    candidate: Candidate
    type_class: str
    forms: tuple[NameForm, ...]
    maximal: tuple[NameForm, ...]
    stated: frozenset[str]
    neighbours: Mapping[str, int]
    # Series key -> neighbour ids of that series.
    series: Mapping[str, tuple[str, ...]]
    # Non-hub neighbours met in two facts or more: the entity's own recurring company.
    recurring: frozenset[str]
    mass: float
    # Whether roles the candidate was called by say man or woman (``qualifiers.said_to_be``).
    said_to_be: frozenset[str] = frozenset()


def view(
    candidate: Candidate, policy: ResolutionPolicy = DEFAULT_POLICY, hub: float = math.inf
) -> CandidateView:
    """Derive the forms and neighbour map of a candidate."""
    tclass = type_class(candidate.type)
    keys = tuple(
        dict.fromkeys(k for k in (*candidate.names, name_key(candidate.canonical_name)) if k)
    )
    forms = tuple(name_form(k, tclass) for k in keys)
    stated = frozenset(candidate.stated_names)
    neighbours = {n.entity_id: n.degree for n in candidate.neighbours}
    series: dict[str, list[str]] = {}
    for n in candidate.neighbours:
        if n.series:
            series.setdefault(n.series, []).append(n.entity_id)
    mass = candidate.neighbour_mass
    if mass is None:
        mass = sum(neighbour_weight(d, policy, hub) for d in neighbours.values())
    return CandidateView(
        candidate=candidate,
        type_class=tclass,
        forms=forms,
        maximal=_maximal_of(forms, stated),
        stated=stated,
        neighbours=neighbours,
        series={k: tuple(v) for k, v in series.items()},
        recurring=frozenset(
            n.entity_id for n in candidate.neighbours if n.count >= 2 and n.degree < hub
        ),
        mass=mass,
        said_to_be=said_to_be(candidate.qualifiers),
    )


class ViewCache:
    """Views already derived, one per entity, reused while the same candidate object returns.

    A working set hands out one cached candidate object per entity until the entity or a
    neighbour's degree changes, and re-evaluation views an entity's rivals for nearly every
    fact that touches it: at 40k facts over half of all views were of an unchanged object,
    and a popular entity's view walks hundreds of neighbours. Identity, not equality, decides
    (comparing two such candidates would cost as much as the view); the slot per entity
    keeps the cache as small as the set of entities.
    """

    def __init__(self) -> None:
        self._views: dict[str, tuple[Candidate, ResolutionPolicy, float, CandidateView]] = {}

    def view(
        self, candidate: Candidate, policy: ResolutionPolicy = DEFAULT_POLICY, hub: float = math.inf
    ) -> CandidateView:
        """``view(candidate, policy, hub)``, derived once per candidate object."""
        held = self._views.get(candidate.entity_id)
        if held is not None and held[0] is candidate and held[1] is policy and held[2] == hub:
            return held[3]
        derived = view(candidate, policy, hub)
        self._views[candidate.entity_id] = (candidate, policy, hub, derived)
        return derived


NameScreen = Mapping[str, Rejection | None]
"""Rules 2-4 of one subject against its candidates, by candidate id (``screen_names``)."""


def admit(
    subject: Subject,
    cand: CandidateView,
    screen: NameScreen | None = None,
) -> Rejection | None:
    """Rules 1-4 for a non-label pair: the reason a candidate is ruled out, or None.

    ``screen``: rules 2-4 already applied to this subject's names (``screen_names``).
    """
    c = cand.candidate
    if c.entity_id in subject.exclude:
        return Rejection(c.entity_id, "excluded: decided different or taken in this fact")
    if screen is not None:
        return screen[c.entity_id]
    return name_rules(subject, cand)


def screen_names(subject: Subject, views: Iterable[CandidateView]) -> dict[str, Rejection | None]:
    """Rules 2-4 for each candidate, by id.

    They read names and types only, so a subject decided several times with different
    context and exclusions (``decide``, once per commit of another group) screens once.
    """
    return {v.candidate.entity_id: name_rules(subject, v) for v in views}


def name_rules(subject: Subject, cand: CandidateView) -> Rejection | None:
    """Rules 2-4 (types, exact-only, name guards, qualifiers) for a non-label pair; None: pass."""
    c = cand.candidate
    reason = _name_and_type_conflict(subject, cand) or qualifier_conflict(
        subject.qualifiers, c.qualifiers
    )
    return None if reason is None else Rejection(c.entity_id, reason)


def _name_and_type_conflict(subject: Subject, cand: CandidateView) -> str | None:
    guessed = subject.type_guessed or cand.candidate.type_guessed
    reason = None if guessed else type_conflict(subject.type_class, cand.type_class)
    if reason is None and guessed:
        reason = _surname_taken_for_a_place(subject, cand)
    if reason is not None:
        return reason
    keys = {f.key for f in cand.forms}
    if subject.exact_only and not any(f.key in keys for f in subject.names):
        return "resolve_entities is false: exact name only"
    return _titles_conflict(subject, cand) or _names_conflict(subject, cand)


def _surname_taken_for_a_place(subject: Subject, cand: CandidateView) -> str | None:
    """A one-word place or organisation against a person the text calls by it only as a surname.

    A guessed type is evidence, not a guard: a person's given name NER typed a place is still
    the person's. But when the person side holds the word only as a surname (after a given
    name or a title of address: "Rayén Nahuelpán", "Ms. Nahuelpán") and the other side is a
    place or a firm named by that one word ("up to Nahuelpán"), the two are apart: notes and
    chats seldom call a person by a bare surname, and a place by its one word always. Read
    between a person and a place or firm only; two people, or two places, are the guards'.
    """
    kinds = {subject.type_class, cand.type_class}
    if "person" not in kinds or not kinds & {"place", "organization"}:
        return None
    person, other = (subject.names, cand.forms)
    if subject.type_class != "person":
        person, other = other, person
    for word in {f.core[0] for f in other if len(f.core) == 1}:
        alone = [f for f in person if f.core == (word,)]
        as_surname = any(word in f.core[1:] for f in person) or any(
            address_title(f) is not None for f in alone
        )
        # Bare, first of a full name, or after a title a given name takes ("Father Tomás").
        as_given = any(f.core[0] == word for f in person if len(f.core) > 1) or any(
            address_title(f) is None for f in alone
        )
        if as_surname and not as_given:
            return f"'{word}' names a place or an organisation here, a person only as a surname"
    return None


def _titles_conflict(subject: Subject, cand: CandidateView) -> str | None:
    """A title the subject is written with against one the candidate was written with.

    Every name of both sides is read, not only the maximal ones: "Mrs Varley" is not the
    entity known as "Ruth Varley" and "Dr Varley". A title that says man or woman is also
    read against a role the other side was called by that says the other ("Mrs. Wróbel" is
    not the one stated to be "her husband"; ``said_to_be``).
    """
    for s in subject.names:
        for f in cand.forms:
            reason = title_conflict(s, f)
            if reason is not None:
                return reason
    return _gender_conflict(subject.names, cand.said_to_be) or (
        _gender_conflict(cand.forms, said_to_be(subject.qualifiers))
    )


def _gender_conflict(names: Iterable[NameForm], said: frozenset[str]) -> str | None:
    """A man's or woman's title among ``names`` against the one role-given kind of the other."""
    if len(said) != 1:
        return None  # none said, or both (a role read onto the wrong name): nothing to go by
    for form in names:
        title = address_title(form)
        if title in GENDER_KINDS and title not in said:
            return f"titled {title} ({form.key!r}) but called a {next(iter(said))}"
    return None


def _holds_the_name(subject: Subject, cand: CandidateView, screen: NameScreen | None) -> bool:
    """Whether the candidate may bear the subject's name: admitted, or apart by qualifiers only.

    A namesake that a qualifier rules out is still a holder of the name: "Dr. Novak at
    Hillside" is not the Dr. Novak known from the ICU, and that does not make it the other
    Dr. Novak, of whom nothing fits either.
    """
    if cand.candidate.is_label or subject.is_label:
        return False
    if admit(subject, cand, screen) is None:
        return True
    return (
        cand.candidate.entity_id not in subject.exclude
        and _name_and_type_conflict(subject, cand) is None
    )


def may_relate(
    subject: Subject,
    cand: CandidateView,
    policy: ResolutionPolicy,
    screen: NameScreen | None = None,
) -> bool:
    """Whether ``score_candidate`` could return evidence for a non-label pair.

    Rules 1-4 and a name relation, which read names, types and exclusions only: a candidate
    that fails is rejected whatever its neighbours, so they need not be built.
    """
    if subject.is_label or cand.candidate.is_label:
        return False  # labels match by key alone (``_label_match``), never by neighbours
    if admit(subject, cand, screen) is not None:
        return False
    return (
        best_name(subject, cand.maximal, policy) or best_name(subject, cand.forms, policy)
    ) is not None


def score_candidate(
    subject: Subject,
    cand: CandidateView,
    policy: ResolutionPolicy,
    *,
    unique_holder: bool = False,
    screen: NameScreen | None = None,
    alike: bool = False,
) -> Evidence | Rejection:
    """Evidence for one candidate (rule 5), or the reason it is ruled out (rules 1-4).

    ``unique_holder``: no two admitted candidates are namesakes of each other, so a bare
    given name that equals a stored one counts in full (see ``scoring.name_relation``).
    ``screen``: rules 2-4 already applied (``screen_names``). ``alike``: of namesakes, the
    one whose facts the subject's fact is clearly most like (``alike_pick``).
    """
    if subject.is_label or cand.candidate.is_label:
        return _label_match(subject, cand, policy)
    rejection = admit(subject, cand, screen)
    if rejection is not None:
        return rejection
    c = cand.candidate
    match = best_name(subject, cand.maximal, policy, unique_holder, cand.stated) or best_name(
        subject, cand.forms, policy, unique_holder, cand.stated
    )
    if match is None:
        return Rejection(c.entity_id, "no name relation")
    shared_ids, sibling_ids, shared_mass = _shared(subject, cand, policy)
    context = context_overlap(shared_mass, subject.context_mass, cand.mass, policy)
    topic, topic_words = topic_support(subject.topics, c.topics, policy)
    context = max(context, topic)
    qualified = bool(shared_qualifiers(subject.qualifiers, c.qualifiers))
    if qualified:
        # "Sofia from Harrow" for the Sofia known from Harrow: said outright, full context.
        context = max(context, policy.qualifier_support)
    if alike:
        context = max(context, policy.alike_support)
    established = False
    if subject.is_entity:
        rec, fam = _pair_salience(subject, cand, policy, bare_name=match.kind == "given_name")
        established = _established_apart(subject, cand)
    else:
        rec = recency(subject.first, subject.last, c.first_seen, c.last_seen, policy)
        fam = familiarity(c.mention_count, policy, bare_name=match.kind == "given_name")
    salience = max(rec, fam)
    if match.kind in FULL_NAME_KINDS and not established:
        # The same full name, of a compatible type, with nothing against it (no guard, no
        # conflicting qualifier, no company of its own elsewhere): time apart is no evidence
        # of two things, so it joins however long ago the name was last seen.
        salience = max(salience, policy.full_name_salience)
    elif match.kind == "given_name" and unique_holder and not subject.is_entity:
        # A bare name ("Tomas", "Dr. Weber") that only this entity in sight can be: the
        # same holds, and there is no one else it could be. Two holders keep it flat
        # (``unique_holder`` false), which is where no guess under ambiguity takes over.
        salience = max(salience, policy.sole_holder_salience)
    elif (
        match.kind in ("contained", "initials", "acronym")
        and unique_holder
        and not subject.is_entity
        and "person" not in {subject.type_class, cand.type_class}
        and not (match.kind == "contained" and "place" in {subject.type_class, cand.type_class})
    ):
        # A short form of a thing's name ("Excel" of "Microsoft Excel", "Brightwater" of
        # "Brightwater Logistics", "VS Code" of "Visual Studio Code", an acronym) that only
        # this entity in sight can be: what a bare given name is to a person, scored alike
        # (guards on numbers, versions and types passed). A place's short form keeps every
        # word ("Mt. Hood", "St. Louis", "NYC"): a place named inside another's name is a
        # part of it or a venue in it ("Town Hall Seattle", "Kelso depot"), not a short form.
        match = msgspec.structs.replace(match, score=max(match.score, policy.given_name))
        salience = max(salience, policy.sole_holder_salience)
    score = combine(match.score, context, salience, policy)
    return Evidence(
        entity_id=c.entity_id,
        name=match,
        context=round(context, 4),
        shared=shared_ids,
        siblings=sibling_ids,
        qualified=qualified,
        topics=topic_words,
        alike=alike,
        recency=round(rec, 4),
        familiarity=round(fam, 4),
        score=score,
    )


def _label_match(
    subject: Subject,
    cand: CandidateView,
    policy: ResolutionPolicy,
) -> Evidence | Rejection:
    c = cand.candidate
    keys = {f.key for f in cand.forms}
    hit = next((f.key for f in subject.names if f.key in keys), None)
    if not (subject.is_label and c.is_label) or hit is None:
        return Rejection(c.entity_id, "controlled vocabulary: exact label match only")
    reason = type_conflict(subject.type_class, cand.type_class)
    if reason is not None:
        return Rejection(c.entity_id, reason)
    match = NameMatch(kind="exact", score=policy.exact_name, subject_name=hit, candidate_name=hit)
    return Evidence(
        entity_id=c.entity_id,
        name=match,
        context=0.0,
        shared=(),
        recency=0.0,
        familiarity=0.0,
        score=1.0,
    )


def _names_conflict(subject: Subject, cand: CandidateView) -> str | None:
    """Rule 4: number and token guards between the full names of both sides.

    Only maximal names are compared: a short form an entity was also called ("alex" of
    Alex Kim) must not let "Alex Kim" and "Alex Moreno" pass for compatible. A subject name
    equal to a stated alias of the candidate is exempt ("Bob" for the entity stated to be
    "Robert Smith (Bob)"), and so is a stated name against a name that shares a word with
    another name stated of its side ("Bob Smith" against "Robert Smith", stated with "Bob"),
    except from the numbers of a name that has some (``_explained_by_statement``).
    """
    return _maximal_conflict(_maximal_of(subject.names, subject.stated), subject.stated, cand)


@functools.lru_cache(maxsize=65536)
def _maximal_of(names: tuple[NameForm, ...], stated: frozenset[str]) -> tuple[NameForm, ...]:
    """A side's maximal names (``scoring.maximal_names``): the same names recur at every fact."""
    return tuple(maximal_names(names, stated))


def _maximal_conflict(
    maximal: Iterable[NameForm], stated: frozenset[str], cand: CandidateView
) -> str | None:
    """``_names_conflict`` for a side whose maximal names are known (a view has them)."""
    return _names_apart(tuple(maximal), stated, cand.maximal, cand.forms, cand.stated)


# Pure, and asked of the same two sides' names by every rule that reads names (the screen,
# the ranking, the namesakes' check, two candidates against each other) at every fact that
# names them: a bounded memo makes the repeats dict lookups (they were a third of the
# resolver's time on a bank with a recurring cast).
@functools.lru_cache(maxsize=65536)
def _names_apart(
    maximal: tuple[NameForm, ...],
    stated: frozenset[str],
    their_maximal: tuple[NameForm, ...],
    their_forms: tuple[NameForm, ...],
    their_stated: frozenset[str],
) -> str | None:
    """The first reason the maximal names of two sides cannot be one's, or None."""
    # Numbers are never exempt: "Unit 7", stated to be "the Beast", is not "Unit 8".
    for s in maximal:
        for f in their_maximal:
            if s.numbers and f.numbers and s.numbers != f.numbers:
                return number_conflict(s, f)
    stated_keys = {f.compact for f in their_forms if f.key in their_stated}
    ours = [f for f in maximal if f.compact not in stated_keys]
    our_statements = _statement_family(maximal, stated)
    their_statements = _statement_family(their_maximal, their_stated)
    known = (*maximal, *their_forms)
    for s in ours:
        for f in their_maximal:
            if _explained_by_statement(s, f, their_statements) or _explained_by_statement(
                f, s, our_statements
            ):
                continue
            reason = name_conflict(s, f)
            if reason is not None and not spelled_alike(s, f, known):
                return reason
    return None


def _statement_family(maximal: Sequence[NameForm], stated: frozenset[str]) -> list[NameForm]:
    """The names a statement made one person's: those stated, and those that lengthen one.

    "Eleni (Lena to her friends)" states "Eleni" and "Lena"; "Eleni Papadopoulou", the same
    Eleni's full name, belongs with them, so that "Mrs. Papadopoulou" is explained beside
    "Lena" as it would be were no nickname stated. A nickname whose partner is not kept as
    stated (a caller's or extractor's alias) was stated for one of its entity's names, which
    one unknown: every name of the entity is its partner.
    """
    said = [f for f in maximal if f.key in stated]
    if len(said) == 1:
        return list(maximal)
    return [f for f in maximal if f in said or any(shortening(g, f) is not None for g in said)]


def _explained_by_statement(
    name: NameForm, stated: NameForm, statements: Sequence[NameForm]
) -> bool:
    """Whether ``name`` may differ from ``stated``, a name the text stated with others.

    A statement ("Robert Smith, whom everyone calls Bob") says its names are one person's, so
    a name built from another of them ("Bob Smith") is no conflict with "Robert Smith". The
    words it has that ``stated`` lacks must come from another of them: "Agnieszka Wróbel"
    still conflicts with "Tadeusz Wróbel", stated with "Tadek" (spouses share a surname), and
    "Tama Ngata" with "Hine Ngata", stated with "Coach Ngata" (the surname is what the
    two names share, not what tells them apart).
    """
    if stated not in statements:
        return False
    words = set(name.words)
    own = words - set(stated.words) or words
    return any(other.key != stated.key and own & set(other.words) for other in statements)


def best_name(
    subject: Subject,
    forms: Iterable[NameForm],
    policy: ResolutionPolicy,
    unique_holder: bool = False,
    stated: frozenset[str] = frozenset(),
) -> NameMatch | None:
    """The highest-scoring relation between a subject's names and ``forms`` (None: none).

    ``stated``: keys of names the text said the candidate goes by ("the girls call her Coach
    Ngata"). A bare name or a title and surname written just so counts in full, as it does
    for a sole holder: the text gave that form to this one, whoever else shares its word.
    """
    best: NameMatch | None = None
    for s in subject.names:
        for f in forms:
            said = s.key == f.key and f.key in stated
            match = name_relation(s, f, policy, unique_holder=unique_holder or said)
            if match is not None and (best is None or match.score > best.score):
                best = match
    return best


def _shared(
    subject: Subject,
    cand: CandidateView,
    policy: ResolutionPolicy,
) -> tuple[tuple[str, ...], tuple[str, ...], float]:
    """Shared context mass, with the shared ids and the sibling ids that produced it.

    Per context reference: the largest weight among its ids that the candidate neighbours;
    failing that, ``sibling_factor`` × the largest weight among the candidate's neighbours of
    the same series (another sprint of the same team).
    """
    own = cand.candidate.entity_id
    neighbours = cand.neighbours
    ids: list[str] = []
    siblings: list[str] = []
    mass = 0.0
    for ref in subject.context:
        if len(ref.ids) == 1:
            # One known entity (every reference of an entity subject): no list to build.
            only = ref.ids[0]
            if only != own and only in neighbours:
                ids.append(only)
                mass += ref.weights[0]
                continue
        else:
            hits = [
                (i, w)
                for i, w in zip(ref.ids, ref.weights, strict=True)
                if i != own and i in neighbours
            ]
            if hits:
                ids.extend(i for i, _ in hits)
                mass += max(w for _, w in hits)
                continue
        if not ref.series:
            continue  # most references: an entity of no series, not a neighbour
        kin = [i for i in cand.series.get(ref.series, ()) if i != own and i not in ref.ids]
        if kin:
            siblings.extend(kin)
            best = max(neighbour_weight(cand.neighbours[i], policy, subject.hub) for i in kin)
            mass += policy.sibling_factor * best
    return tuple(sorted(set(ids))), tuple(sorted(set(siblings))), mass


# Name relations that repeat a whole name (up to case, accents, punctuation, titles, legal
# form): an entity so named is that entity unless something speaks against it.
FULL_NAME_KINDS = frozenset({"exact", "same_form"})


def _established_apart(subject: Subject, cand: CandidateView) -> bool:
    """Whether the smaller of two entities has recurring company the larger one lacks."""
    c = cand.candidate
    if subject.mention_count <= c.mention_count:
        return any(n not in cand.neighbours for n in subject.recurring)
    mine = {ref.ids[0] for ref in subject.context if ref.ids}
    return any(n not in mine for n in cand.recurring)


def _pair_salience(
    subject: Subject, cand: CandidateView, policy: ResolutionPolicy, *, bare_name: bool
) -> tuple[float, float]:
    """Recency and familiarity between two stored entities, as (recency, familiarity).

    A fragment (an entity kept apart earlier) is judged as its mentions would be today: by
    the larger entity's familiarity, and by the recency between the fact that triggered the
    re-evaluation and the other entity (the "Lily" of Sep 8 and the "Lily" of Sep 10).
    Interval overlap is no recency: namesakes are active at the same time.
    But a smaller entity with recurring company of its own that the larger one lacks
    (Meridian Health with Renata Silva twice, against Meridian Health with Daniel Park) is
    likely a namesake: then recency counts for nothing and familiarity is discounted by the
    smaller entity's own (minus its first mention), so established namesakes stay apart.
    """
    c = cand.candidate
    mine, theirs = subject.mention_count, c.mention_count
    if mine <= theirs:
        small_count, small_recurring, big_neighbours = mine, subject.recurring, cand.neighbours
    else:
        small_count, small_recurring = theirs, cand.recurring
        big_neighbours = {ref.ids[0]: 0 for ref in subject.context if ref.ids}
    fam = familiarity(max(mine, theirs), policy, bare_name=bare_name)
    if any(n not in big_neighbours for n in small_recurring):
        return 0.0, fam * (1.0 - familiarity(small_count - 1, policy, bare_name=bare_name))
    at = subject.changed_at
    if at is None:
        return 0.0, fam
    return recency(at, at, c.first_seen, c.last_seen, policy), fam


def rank(
    subject: Subject,
    candidates: Iterable[CandidateView],
    policy: ResolutionPolicy,
    screen: NameScreen | None = None,
) -> tuple[list[Evidence], list[Rejection]]:
    """Score every candidate; evidence best first (score, then name, then id), and rejections.

    ``screen``: rules 2-4 already applied to every candidate (``screen_names``).
    """
    views = list(candidates)
    holders = [v for v in views if _holds_the_name(subject, v, screen)]
    unique = not any(views_conflict(a, b) for i, a in enumerate(holders) for b in holders[i + 1 :])
    pick = None if unique else alike_pick(subject, holders, policy)
    ranked: list[Evidence] = []
    rejected: list[Rejection] = []
    for cand in views:
        result = score_candidate(
            subject,
            cand,
            policy,
            unique_holder=unique,
            screen=screen,
            alike=cand.candidate.entity_id == pick,
        )
        if isinstance(result, Rejection):
            rejected.append(result)
        else:
            ranked.append(result)
    ranked.sort(key=lambda e: (-e.score, -e.name.score, e.entity_id))
    return ranked, rejected


def alike_pick(
    subject: Subject, holders: Sequence[CandidateView], policy: ResolutionPolicy
) -> str | None:
    """Of namesakes holding the subject's name, the one whose facts its fact is clearly most like.

    The holder whose facts the subject's fact is on average most alike (``Subject.likeness``),
    by ``policy.alike_margin`` over every holder it cannot be one with; None when there is no
    such margin, when a namesake's facts are not known (nothing to compare), or when the text
    states a qualifier that fits a holder (what is said outranks what is alike). "Oren finally
    understood rook endgames" is about the chess pupil, not the pastry chef, though both are
    Oren and the fact names the chef's town.

    Nor is a holder picked that another name of the fact may be: "Imre: is Father Kalnai
    around?" is like Father Imre Kalnai's facts because it names him, and who names him is
    someone else (the resolver keeps two names of one fact apart).
    """
    if any(shared_qualifiers(subject.qualifiers, v.candidate.qualifiers) for v in holders):
        return None
    like = subject.likeness
    known = sorted(
        (v for v in holders if v.candidate.entity_id in like),
        key=lambda v: (-like[v.candidate.entity_id], v.candidate.entity_id),
    )
    if not known:
        return None
    best = known[0]
    if any(best.candidate.entity_id in ref.ids for ref in subject.context):
        return None
    apart = [v for v in holders if v is not best and views_conflict(best, v)]
    if not apart or any(v.candidate.entity_id not in like for v in apart):
        return None
    margin = like[best.candidate.entity_id] - max(like[v.candidate.entity_id] for v in apart)
    return best.candidate.entity_id if margin >= policy.alike_margin else None


def _is_tie(best: Evidence, rival: Evidence, policy: ResolutionPolicy) -> bool:
    return round(best.score - rival.score, policy.score_decimals) < policy.tie_margin


def _same_evidence(best: Evidence, rival: Evidence, policy: ResolutionPolicy) -> bool:
    """Whether what the mention says fails to tell the best candidate from a rival.

    Evidence that separates them is something the best has and the rival lacks: a better
    name, a qualifier that fits it alone, or company or topic words of its own that raise its
    context by the margin. Company both share does not separate them, however the overlap is
    scaled by each one's other company; salience (recent, familiar) is a prior, not evidence
    about this mention: it picks the likelier of two candidates that may be one thing, never
    one of two namesakes.
    """
    if _better_name_or_qualifier(best, rival, policy):
        return False
    gap = round(best.context - rival.context, policy.score_decimals)
    return not (_own_context(best, rival) and gap >= policy.tie_margin)


def _better_name_or_qualifier(ours: Evidence, theirs: Evidence, policy: ResolutionPolicy) -> bool:
    """Whether ``ours`` has a better name by the margin, or evidence ``theirs`` lacks.

    That is a qualifier that fits it, or a fact clearly most like its facts (``alike_pick``).
    """
    if round(ours.name.score - theirs.name.score, policy.score_decimals) >= policy.tie_margin:
        return True
    return (ours.qualified and not theirs.qualified) or (ours.alike and not theirs.alike)


def _own_context(ours: Evidence, theirs: Evidence) -> set[str]:
    """Company and topic words of ``ours`` that ``theirs`` does not share."""
    return {*ours.shared, *ours.siblings, *ours.topics} - {
        *theirs.shared,
        *theirs.siblings,
        *theirs.topics,
    }


def rivals(
    ranked: Sequence[Evidence], views: Mapping[str, CandidateView], policy: ResolutionPolicy
) -> list[Evidence]:
    """Candidates within the tie margin of the best that are namesakes of it or of each other.

    Near-equal candidates whose names are compatible may be one entity stored twice (an
    earlier "apart" awaiting evidence); they are no reason to stop a merge into the best one
    (re-evaluation will look at the pair). Near-equal candidates whose names conflict
    ("Alex Kim" and "Alex Moreno" for a bare "Alex") are namesakes: a tie.
    """
    best = ranked[0]
    close = [
        e
        for e in ranked[1:]
        if (_is_tie(best, e, policy) or _same_evidence(best, e, policy))
        and not _told_apart(best, e, views, policy)
    ]
    if not close:
        return []
    group = [best, *close]
    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            if views_conflict(views[a.entity_id], views[b.entity_id]):
                return close
    return []


def _told_apart(
    best: Evidence, rival: Evidence, views: Mapping[str, CandidateView], policy: ResolutionPolicy
) -> bool:
    """Whether the mention's evidence picks ``best`` over a namesake ``rival`` that has none.

    ``rival`` has nothing of its own: no better name, no qualifier ``best`` lacks, no company
    or topic word ``best`` does not share. Two namesakes that each have some are told apart
    by the context margin alone (``_same_evidence``), as before.
    """
    return (
        not _same_evidence(best, rival, policy)
        and not _own_evidence(rival, best, policy)
        and views_conflict(views[best.entity_id], views[rival.entity_id])
    )


def _own_evidence(ours: Evidence, theirs: Evidence, policy: ResolutionPolicy) -> bool:
    """Whether ``ours`` has evidence ``theirs`` lacks (a name, qualifier, company or word)."""
    return _better_name_or_qualifier(ours, theirs, policy) or bool(_own_context(ours, theirs))


def evidence_first(
    ranked: Sequence[Evidence], views: Mapping[str, CandidateView], policy: ResolutionPolicy
) -> list[Evidence]:
    """``ranked`` with the first namesake that the evidence picks over the best moved first.

    Between namesakes salience is no evidence: a familiar "Tamas Varga" ranked above "Dr. Ilse
    Varga" on mentions alone does not keep "Dr. Varga retested my hearing" from the doctor.
    """
    if not ranked:
        return []
    best = ranked[0]
    for e in ranked[1:]:
        if _told_apart(e, best, views, policy):
            return [e, *(x for x in ranked if x is not e)]
    return list(ranked)


def views_conflict(a: CandidateView, b: CandidateView) -> bool:
    """True when two candidates cannot be one entity (decided apart, names or types conflict).

    A type a local model guessed is evidence, not a guard, between two candidates as between a
    mention and a candidate (``name_rules``): "Helen's" tagged an organisation is no second
    bearer of the name beside the person Helen.
    """
    if a.candidate.entity_id in b.candidate.decided_apart:
        return True
    if b.candidate.entity_id in a.candidate.decided_apart:
        return True
    guessed = a.candidate.type_guessed or b.candidate.type_guessed
    return (
        _maximal_conflict(a.maximal, a.stated, b) is not None
        or (not guessed and bool(type_conflict(a.type_class, b.type_class)))
        or qualifier_conflict(a.candidate.qualifiers, b.candidate.qualifiers) is not None
    )


def classify(
    subject: Subject,
    ranked: Sequence[Evidence],
    rejected: Sequence[Rejection],
    views: Mapping[str, CandidateView],
    policy: ResolutionPolicy,
) -> Decision:
    """Rule 6: turn ranked evidence into merge / create / create-and-review.

    An exact-only subject (``resolve_entities: false``) merges into its exact match whatever
    the score: only namesakes (conflicting exact matches) stop it.
    """
    if not ranked:
        return Create(reason="no compatible candidate", rejected=tuple(rejected))
    ranked = evidence_first(ranked, views, policy)
    best = ranked[0]
    close = rivals(ranked, views, policy)
    if best.score >= policy.merge_threshold or subject.exact_only:
        if not close and _unsupported_among_namesakes(subject, best, rejected, views, policy):
            return CreateAndReview(
                reason="a namesake ruled out by qualifiers, nothing for this one",
                subject=_summary(subject),
                evidence=(best,),
            )
        if not close:
            return Merge(entity_id=best.entity_id, score=best.score, evidence=best)
        return CreateAndReview(
            reason="namesake tie", subject=_summary(subject), evidence=(best, *close)
        )
    if best.score >= policy.review_threshold:
        return CreateAndReview(
            reason="grey zone", subject=_summary(subject), evidence=(best, *close)
        )
    return Create(reason="below review threshold", rejected=tuple(rejected))


def _unsupported_among_namesakes(
    subject: Subject,
    best: Evidence,
    rejected: Sequence[Rejection],
    views: Mapping[str, CandidateView],
    policy: ResolutionPolicy,
) -> bool:
    """Whether ``best`` is left only because a qualifier ruled out a namesake of it.

    "Dr. Novak at Hillside" with one Dr. Novak known from the ICU and another known with
    nothing said: the qualifier tells the mention from the first, and nothing tells it for the
    second. Without a qualifier that fits it, or company or topic words of its own, joining it
    is a guess.
    """
    if (best.qualified or best.alike) or (
        (best.shared or best.siblings or best.topics) and best.context >= policy.tie_margin
    ):
        return False
    ours = views[best.entity_id]
    return any(
        _holds_the_name(subject, views[r.entity_id], None)
        and views_conflict(ours, views[r.entity_id])
        for r in rejected
        if r.entity_id in views
    )


def _summary(subject: Subject) -> SubjectSummary:
    return SubjectSummary(
        names=tuple(f.key for f in subject.names),
        type=subject.type_class or None,
        at=subject.first,
        context=tuple(i for ref in subject.context for i in ref.ids),
    )
