"""Resolve facts one after another against a working set, then re-evaluate what changed.

This is the whole resolution procedure, pure: the store-backed resolver runs it over the
entities it loaded for a retain batch, the offline simulation over a whole corpus. Per fact:
candidates from the working set's index, ``decide.resolve_fact``, the decisions applied (merge
into a known entity or create one, names recorded with the fact as provenance), the fact's
entities co-occur, and every entity the fact touched is re-evaluated (``reconsider``) until
nothing more merges.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import partial

import msgspec

from app.domain.names import index_keys, name_form, name_key, type_class
from app.resolve.cluster import could_be_one
from app.resolve.decide import resolve_fact
from app.resolve.evidence import ContextRef
from app.resolve.guards import type_conflict
from app.resolve.model import (
    Candidate,
    CreateAndReview,
    FactMentions,
    Mention,
    Merge,
    Reconsideration,
    Review,
)
from app.resolve.reconsider import may_merge, reconsider
from app.resolve.scoring import ResolutionPolicy, hub_degree, name_relation, neighbour_weight
from app.resolve.topics import title_word, topic_words
from app.resolve.working_set import ReviewRecord, WorkingSet

# Re-evaluation rounds per touched entity (a merge re-queues the survivor).
RECONSIDER_ROUNDS = 8


class FactInput(msgspec.Struct, frozen=True, kw_only=True):
    """One fact to resolve: its mentions, time, text and id (provenance of its names)."""

    mentions: tuple[Mention, ...]
    at: datetime
    content: str = ""
    memory_id: str | None = None
    # Mentions a settle decides in a later pass, read for the others' qualifiers only.
    later: tuple[Mention, ...] = ()


def names_to_load(facts: Sequence[FactInput]) -> list[tuple[str, str | None]]:
    """Every (name key, type) a batch will look up: its mentions and their stated aliases.

    A guessed type (``Mention.type_guessed``) is looked up as no type: it must not keep the
    entities of other types out of sight, since it cannot rule them out either.
    """
    out: dict[tuple[str, str | None], None] = {}
    for fact in facts:
        for mention in fact.mentions:
            kind = None if mention.type_guessed else mention.type
            for text in (mention.text, *mention.aliases):
                key = name_key(text)
                if key:
                    out[(key, kind)] = None
    return list(out)


def could_merge(
    keys: Iterable[str],
    entity_type: str | None,
    is_label: bool,
    names: Sequence[tuple[str, str | None]],
    policy: ResolutionPolicy,
) -> bool:
    """Whether one of ``names`` could resolve to an entity called ``keys`` (a superset test).

    A merge needs a compatible type and a name relation between one of the mention's names and
    one of the entity's (``evidence.score_candidate``; re-evaluation the same between two
    entities' names); labels need an identical key. The store loads only index hits that pass,
    and looks up the names of an entity for re-evaluation only when it passes: without this,
    every fuzzy hit is loaded with its neighbours and brings twenty more, and the cost of a
    mention grows with the bank.
    """
    tclass = type_class(entity_type)
    own = [name_form(key, tclass) for key in dict.fromkeys(keys) if key]
    own_keys = {form.key for form in own}
    for key, subject_type in names:
        subject_class = type_class(subject_type)
        if type_conflict(subject_class, tclass) is not None:
            continue
        if key in own_keys:
            return True
        if is_label:
            continue
        subject = name_form(key, subject_class)
        if any(name_relation(subject, form, policy) is not None for form in own):
            return True
    return False


def named_apart(
    mentions: Sequence[Mention], assigned: Sequence[str], policy: ResolutionPolicy
) -> list[tuple[str, str]]:
    """Entity pairs of one fact's mentions whose names could be one's, yet ended apart.

    The fact's clustering kept them apart for what the text says (kin, a short form written
    ahead of its full form, a name already another's): two holders of one name
    (``WorkingSet.keep_apart``).
    """
    forms = [name_form(name_key(m.text), type_class(m.type)) for m in mentions]
    return [
        (assigned[i], assigned[j])
        for i, j in itertools.combinations(range(len(mentions)), 2)
        if assigned[i]
        and assigned[j]
        and assigned[i] != assigned[j]
        and forms[i].key
        and forms[j].key
        and could_be_one(forms[i], forms[j], policy)
    ]


def resolve_one(
    ws: WorkingSet, fact: FactInput, fixed: Mapping[int, str] | None = None
) -> list[str]:
    """Resolve one fact's mentions; returns the entity id per mention ("" for an empty name).

    ``fixed``: mentions (by index) whose entity is given and not decided here (a settle
    replaying a fact keeps the mentions of entities outside its block where they are); they
    count as context for the others and co-occur with them.
    """
    fixed = dict(fixed or {})
    free = [i for i in range(len(fact.mentions)) if i not in fixed]
    mentions = tuple(fact.mentions[i] for i in free)
    candidates, expand = _candidates(ws, mentions, frozenset(fixed.values()))
    topics = (
        topic_words(fact.content, [m.text for m in (*fact.mentions, *fact.later)])
        if ws.read_topics
        else frozenset()
    )
    # The title each mention opens with: a topic word of its own entity only (none read: ()).
    titles = tuple(title_word(m.text) for m in fact.mentions) if ws.read_topics else ()
    # How alike the fact is to each candidate's facts, where a settle embedded the block's facts.
    likeness = (
        {}
        if ws.fact_vectors is None or fact.memory_id is None
        else {
            c.entity_id: like
            for options in candidates
            for c in options
            if (like := ws.likeness(fact.memory_id, c.entity_id)) is not None
        }
    )
    decisions = resolve_fact(
        FactMentions(
            mentions=mentions,
            at=fact.at,
            content=fact.content,
            bank_entities=ws.bank_entities,
            given=tuple(fact.mentions[i] for i in sorted(fixed)),
            # "" for an entity the working set does not hold (a settle's context from outside
            # its block): it is no candidate of anything here.
            given_ids=tuple(fixed[i] if fixed[i] in ws.entities else "" for i in sorted(fixed)),
            later=fact.later,
            topics=topics,
            titles=tuple(titles[i] for i in free) if titles else (),
            likeness=likeness,
        ),
        candidates,
        ws.policy,
        expand=expand,
        fixed=tuple(_fixed_ref(ws, eid) for eid in sorted(set(fixed.values()))),
    )
    assigned = [""] * len(fact.mentions)
    for i, eid in fixed.items():
        assigned[i] = eid
    for group in decisions:
        decision = group.decision
        first = mentions[group.mentions[0]]
        if isinstance(decision, Merge):
            eid = decision.entity_id
        else:
            eid = ws.create(
                first.text,
                first.type,
                fact.at,
                is_label=first.is_label,
                type_guessed=first.type_guessed,
            )
            if isinstance(decision, CreateAndReview):
                ws.review(
                    ReviewRecord(
                        entity_id=eid,
                        others=tuple(e.entity_id for e in decision.evidence),
                        reason=decision.reason,
                        evidence=decision.evidence,
                    )
                )
        texts = _texts_by_key(mentions, group.mentions)
        for key in group.names:
            ws.add_name(
                eid,
                key,
                texts.get(key, key),
                stated=key in group.stated_names,
                memory_id=fact.memory_id,
                at=fact.at,
            )
        ws.touch(eid, fact.at, first.type, guessed=first.type_guessed)
        ws.qualify(eid, group.qualifiers)
        for i in group.mentions:
            assigned[free[i]] = eid
    ws.cooccur([a for a in assigned if a], fixed=set(fixed.values()))
    ws.keep_apart(named_apart(fact.mentions, assigned, ws.policy))
    for i, eid in enumerate(assigned):
        if eid:
            title = titles[i] if titles else None
            ws.note_topics([eid], topics | {title} if title else topics)
    if fact.memory_id is not None:
        ws.note_fact([a for a in assigned if a], fact.memory_id)
    # ``resolve_entities: false`` promises exact match or a new entity: what such a mention
    # resolved to is not re-evaluated (fuzzily) on its account.
    resolving = sorted({assigned[i] for i in free if assigned[i] and fact.mentions[i].resolve})
    reconsider_touched(ws, resolving, fact.at)
    return [ws.final(a) if a else "" for a in assigned]


def _fixed_ref(ws: WorkingSet, eid: str) -> ContextRef:
    """A fixed mention's entity as context: its id, weighed by its degree."""
    weight = neighbour_weight(ws.degree_of(eid), ws.policy, hub_degree(ws.bank_entities, ws.policy))
    return ContextRef((eid,), (weight,), ws.series_of(eid))


def reconsider_touched(ws: WorkingSet, touched: Sequence[str], at: datetime) -> None:
    """Re-evaluate each changed entity against its own candidates until nothing merges.

    A merge must be the partner's choice too, among what the partner's names find: "Mrs.
    Rua" is found by "Tane Rua", and was a tie of "Tane Rua" and "Mere Rua" when it was
    read; from Tane's side alone, Mere is out of sight. Where the partner sees a rival of
    this entity or prefers another, the pair goes to review. A partner that is merely less
    sure (salience is the larger entity's) agrees.
    """
    queue = list(touched)
    budget = RECONSIDER_ROUNDS * max(1, len(touched))
    while queue and budget > 0:
        budget -= 1
        eid = ws.final(queue.pop(0))
        result = _reconsider(ws, eid, at)
        if isinstance(result, Merge):
            back = _reconsider(ws, result.entity_id, at)
            if isinstance(back, Review) and any(
                ws.final(e.entity_id) != eid for e in back.evidence
            ):
                result = back  # the partner sees a rival of this entity: a tie, not a merge
            elif isinstance(back, Merge) and ws.final(back.entity_id) != eid:
                result = Review(
                    reason="partner prefers another entity", evidence=(result.evidence,)
                )
        if isinstance(result, Merge):
            # The entity with more mentions survives (ties: the smaller id, for determinism).
            keep, gone = sorted(
                (eid, result.entity_id), key=lambda x: (-ws.entities[x].mentions, x)
            )
            ws.merge(keep, gone, result.evidence)
            queue.append(keep)
        elif isinstance(result, Review):
            ws.review(
                ReviewRecord(
                    entity_id=eid,
                    others=tuple(e.entity_id for e in result.evidence),
                    reason=f"re-evaluation: {result.reason}",
                    evidence=result.evidence,
                )
            )


def _reconsider(ws: WorkingSet, eid: str, at: datetime) -> Reconsideration | None:
    """``reconsider`` for ``eid`` against the entities its names find; None: none may merge."""
    # Names only: the same until a name changes, whatever else the batch changed.
    others = ws.names_memo(("reconsider", eid), partial(_mergeable_others, ws, eid))
    if not others:
        return None
    return reconsider(
        ws.candidate(eid),
        [ws.candidate(i) for i in others],
        ws.policy,
        changed_at=at,
        bank_entities=ws.bank_entities,
        views=ws.views,
        # The likeness a first pass weighed for the entity's facts, so a tie it found between
        # namesakes is not settled here by company alone.
        likeness={o: like for o in others if (like := ws.entity_likeness(eid, o)) is not None},
    )


def _mergeable_others(ws: WorkingSet, eid: str) -> tuple[str, ...]:
    """The entities ``eid``'s names find, or none when it could merge with none on names alone.

    When none passes the name rules, ranking would reject every one: re-evaluation is
    skipped without building their neighbour lists (the costly part).
    """
    entity = ws.entities[eid]
    others: list[str] = []
    for key in entity.names:
        others.extend(i for i in ws.lookup(key, entity.type) if i != eid and i not in others)
    bare = [ws.bare_candidate(i) for i in others]
    return tuple(others) if may_merge(ws.bare_candidate(eid), bare, ws.policy) else ()


def _candidates(
    ws: WorkingSet, mentions: Sequence[Mention], fixed: frozenset[str] = frozenset()
) -> tuple[list[tuple[Candidate, ...]], Callable[[str], Candidate]]:
    """Per mention, its candidates (and its aliases'), without neighbours.

    Also returns how to build a candidate with the neighbours the fact needs
    (``decide.resolve_fact``'s ``expand``): those among the fact's candidates and ``fixed``
    entities (context that is not being decided).
    """
    ids_per_mention: list[list[str]] = []
    for mention in mentions:
        ids: list[str] = []
        for text in (mention.text, *mention.aliases):
            key = name_key(text)
            if key:
                ids.extend(i for i in ws.lookup(key, mention.type) if i not in ids)
        ids_per_mention.append(ids)
    focus = frozenset(i for ids in ids_per_mention for i in ids) | fixed
    series = frozenset(s for m in mentions if (s := index_keys(name_key(m.text), m.type).series))
    return (
        [tuple(ws.bare_candidate(i) for i in ids) for ids in ids_per_mention],
        lambda i: ws.candidate(i, focus=focus, focus_series=series),
    )


def _texts_by_key(mentions: Sequence[Mention], indexes: Sequence[int]) -> dict[str, str]:
    """Surface text of each name key of a group (as first written in the fact)."""
    out: dict[str, str] = {}
    for i in indexes:
        mention = mentions[i]
        for text in (mention.text, *mention.aliases):
            out.setdefault(name_key(text), text)
    return out
