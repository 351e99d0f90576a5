"""Re-evaluate earlier "apart" decisions when an entity gains evidence.

Ingesting the same facts forward or in reverse should end with the same identities. A
mention that arrives before the evidence that would identify it is kept apart (and
reviewed); when that evidence arrives later (an entity gains a name, a neighbour, mentions),
the store calls ``reconsider`` for the changed entity against the entities its names find
in the indexes, and the same guards and signals decide whether the pair now merges.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime

import msgspec

from app.resolve.evidence import (
    CandidateView,
    ContextRef,
    Subject,
    ViewCache,
    classify,
    may_relate,
    rank,
    rivals,
    view,
)
from app.resolve.model import (
    Candidate,
    Create,
    CreateAndReview,
    KeepApart,
    Reconsideration,
    Review,
)
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy, hub_degree, neighbour_weight


def entity_subject(
    entity: Candidate,
    policy: ResolutionPolicy = DEFAULT_POLICY,
    hub: float = math.inf,
    v: CandidateView | None = None,
) -> Subject:
    """A stored entity as a subject: its names, its neighbours as context (``v``: its view)."""
    if v is None:
        v = view(entity, policy, hub)
    refs = tuple(
        ContextRef((n.entity_id,), (neighbour_weight(n.degree, policy, hub),), n.series)
        for n in entity.neighbours
    )
    return Subject(
        names=v.forms,
        stated=v.stated,
        type_class=v.type_class,
        first=entity.first_seen,
        last=entity.last_seen,
        mention_count=entity.mention_count,
        context=refs,
        context_mass=v.mass,
        exclude=frozenset({entity.entity_id, *entity.decided_apart}),
        is_label=entity.is_label,
        is_entity=True,
        hub=hub,
        recurring=v.recurring,
        qualifiers=entity.qualifiers,
    )


def may_merge(
    entity: Candidate, others: Sequence[Candidate], policy: ResolutionPolicy = DEFAULT_POLICY
) -> bool:
    """Whether ``reconsider`` could propose anything but keeping ``entity`` apart.

    The same rules 1-4 and name relation that ``rank`` applies first, on names alone: when no
    other entity passes them, ranking would reject every one of them and ``reconsider`` keep
    the entity apart, so the caller can skip building neighbour lists (the costly part) for
    a pair that cannot merge. Neighbours are not read; candidates may come without them.
    """
    if entity.is_label:
        return False
    subject = entity_subject(msgspec.structs.replace(entity, neighbours=()), policy)
    return any(
        entity.entity_id not in other.decided_apart
        and may_relate(subject, view(msgspec.structs.replace(other, neighbours=()), policy), policy)
        for other in others
    )


def reconsider(
    entity: Candidate,
    others: Sequence[Candidate],
    policy: ResolutionPolicy = DEFAULT_POLICY,
    *,
    changed_at: datetime | None = None,
    bank_entities: int = 0,
    views: ViewCache | None = None,
    likeness: Mapping[str, float] | None = None,
) -> Reconsideration:
    """Re-evaluate an entity whose evidence changed (a new name or neighbour) against others.

    ``others`` are the entities a candidate lookup on ``entity``'s names returned (namesakes
    included: they are the rivals). Same guards and signals as for a mention; salience is
    that of the fragment's mentions judged today (``evidence._pair_salience``): the larger
    entity's familiarity and the recency between ``changed_at`` (the time of the fact that
    changed ``entity``) and the other entity, both void when the smaller entity is
    established with company of its own. A proposed merge with B must also be B's own best
    choice among ``entity`` and ``others``, without a namesake tie; otherwise the pair goes
    to review. Neighbour lists must be complete for both sides (or ``neighbour_mass`` set).
    ``views``: where the views of candidate objects seen before are kept (the same answer,
    derived once). ``likeness``: how alike ``entity``'s facts are to each other's, where a
    settle embedded them (``Subject.likeness``), as for a mention of its fact.
    """
    if entity.is_label:
        return KeepApart(reason="controlled vocabulary: never merged by resolution")
    derive = (views or ViewCache()).view
    # Two entities named side by side in one fact are two things (the fact's mentions were
    # judged apart when it was read), and a merge could not be taken back: a fact keeps one
    # link per entity, so no settle could split its two mentions again.
    named_with = {n.entity_id for n in entity.neighbours}
    pool = [
        o
        for o in others
        if o.entity_id != entity.entity_id
        and entity.entity_id not in o.decided_apart
        and o.entity_id not in named_with
        and entity.entity_id not in {n.entity_id for n in o.neighbours}
    ]
    hub = hub_degree(bank_entities, policy)
    own = derive(entity, policy, hub)
    subject = msgspec.structs.replace(
        entity_subject(entity, policy, hub, own),
        changed_at=changed_at,
        likeness=dict(likeness or {}),
    )
    pool_views = {o.entity_id: derive(o, policy, hub) for o in pool}
    ranked, rejected = rank(subject, pool_views.values(), policy)
    decision = classify(subject, ranked, rejected, pool_views, policy)
    if isinstance(decision, Create):
        return KeepApart(reason=decision.reason)
    if isinstance(decision, CreateAndReview):
        return Review(reason=decision.reason, evidence=decision.evidence)
    partner = next(o for o in pool if o.entity_id == decision.entity_id)
    contenders = [entity, *(o for o in pool if o.entity_id != partner.entity_id)]
    back_views = {o.entity_id: derive(o, policy, hub) for o in contenders}
    back_subject = msgspec.structs.replace(
        entity_subject(partner, policy, hub, pool_views[partner.entity_id]), changed_at=changed_at
    )
    back, _ = rank(back_subject, back_views.values(), policy)
    if not back or back[0].entity_id != entity.entity_id:
        return Review(reason="partner prefers another entity", evidence=(decision.evidence,))
    back_rivals = rivals(back, back_views, policy)
    if back_rivals:
        return Review(reason="namesake tie", evidence=(back[0], *back_rivals))
    ev = decision.evidence
    if (
        ev.name.kind == "given_name"
        and ev.context == 0
        and any(e.context > 0 for e in back if e.entity_id != entity.entity_id)
    ):
        # A bare given name joined on salience alone, while the partner's own context points
        # to another holder of the name: two Alexes a day apart are not one Alex.
        return Review(reason="bare name: context points elsewhere", evidence=(ev, *back[:1]))
    return decision
