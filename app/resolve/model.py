"""Plain data the pure resolver reads and returns (frozen msgspec Structs, no behaviour).

The store-backed resolver builds ``Candidate``s from its indexes and graph (see
docs/decisions/0004-entity-resolution.md for the queries) and ``FactMentions`` from a retain
item; ``decide.resolve_fact`` returns one ``GroupDecision`` per group of mentions that name the
same thing; ``reconsider.reconsider`` returns a ``Reconsideration`` for an entity whose evidence
changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal

import msgspec

from app.resolve.qualifiers import Qualifier


class Neighbour(msgspec.Struct, frozen=True):
    """An entity that co-occurs with a candidate in at least one fact."""

    entity_id: str
    # Distinct entities this neighbour co-occurs with (its degree in the co-occurrence graph).
    degree: int
    # Its series key (``NameForm.series`` of its canonical name: "sprint #"), "" if none.
    series: str = ""
    # Facts in which the two co-occur (the co-occurrence relationship's count).
    count: int = 1


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """A stored entity returned by a candidate lookup, with what the decision needs.

    Everything comes from indexes or the entity's own relationships: names from the name-key
    exact and full-text lookups, counts and times from the entity node, neighbours from its
    co-occurrence relationships.
    """

    entity_id: str
    canonical_name: str
    # Every name key the entity has been called (``normalise.name_key``), canonical included.
    names: tuple[str, ...]
    # The subset of ``names`` that a text stated as an alias, a reviewer confirmed, or that
    # came from a controlled vocabulary: these skip the token guard and always count in full.
    stated_names: tuple[str, ...] = ()
    type: str | None = None
    # ``type`` is a local model's guess, made in this resolution run (``WorkingEntity``): it is
    # no guard, as a guessed type of a mention is none.
    type_guessed: bool = False
    first_seen: datetime
    last_seen: datetime
    # Facts (memories) that mention the entity.
    mention_count: int = 1
    # Distinct entities it co-occurs with.
    degree: int = 0
    # Its co-occurring entities. For ``resolve_fact`` the store may restrict the list to the
    # ids that can matter (the other candidates of the same fact, and neighbours whose series
    # key is one of the fact's), then it must set ``neighbour_mass``; ``reconsider`` needs the
    # full list (the store may cap it to the most frequent neighbours).
    neighbours: tuple[Neighbour, ...] = ()
    # Sum over ALL its neighbours of ``scoring.neighbour_weight(degree, policy, hub)`` (hub =
    # ``scoring.hub_degree(bank_entities, policy)``); None: computed from ``neighbours``.
    neighbour_mass: float | None = None
    # A value of a bank's controlled vocabulary (``entity_labels``): matched by exact key only.
    is_label: bool = False
    # Entities a reviewer decided are different from this one (never proposed again).
    decided_apart: tuple[str, ...] = ()
    # What texts stated next to its names ("in Tacoma", "from Harrow Freight"): evidence.
    qualifiers: tuple[Qualifier, ...] = ()
    # Topic words of the facts that mention it (``topics``; empty when not known).
    topics: frozenset[str] = frozenset()


class Mention(msgspec.Struct, frozen=True, kw_only=True):
    """One entity mention of a retain item, as the caller supplied it."""

    text: str
    type: str | None = None
    # Other names the caller or extraction states for it ("Ocean Probe 1 (OP-1)"): recorded as
    # stated aliases of the resulting entity and matched like its own name.
    aliases: tuple[str, ...] = ()
    # A controlled-vocabulary value (bank ``entity_labels``): exact key match only.
    is_label: bool = False
    # ``resolve_entities: false`` on the item: exact key match or a new entity, nothing fuzzy.
    resolve: bool = True
    # ``type`` is a local model's guess (NER): it never rules a candidate out.
    type_guessed: bool = False
    # Which namesake's company its fact keeps, when a settle found namesakes of its name
    # told apart by what their facts are about (``company.company_groups``).
    company: Qualifier | None = None


class FactMentions(msgspec.Struct, frozen=True, kw_only=True):
    """The mentions of one fact (retain item), its time and text."""

    mentions: tuple[Mention, ...]
    # The fact's own timestamp (not the wall clock): recency is measured between facts.
    at: datetime
    # The item text, searched for stated aliases ("X (Y)", "X, also known as Y").
    content: str = ""
    # Entities in the bank (a counter the store keeps), for the hub rule; 0: unknown, no hubs.
    bank_entities: int = 0
    # The fact's other mentions, whose entities are given, not decided here (a settle keeps
    # those outside its block where they are). The text is read with them all the same: "李娜
    # from 星河物流" states its qualifier through the mention after "from", whichever entities
    # the block holds.
    given: tuple[Mention, ...] = ()
    # The entity of each ``given`` mention, in the same order ("" where it is not loaded).
    given_ids: tuple[str, ...] = ()
    # The fact's topic words (``topics``): evidence between namesakes.
    topics: frozenset[str] = frozenset()
    # The title each of ``mentions`` opens with (``topics.title_word``), a topic word of its
    # own mention only; empty when topics are not read.
    titles: tuple[str | None, ...] = ()
    # How alike the fact is to each candidate's facts (entity id → mean cosine of their
    # embeddings; a settle only): evidence between namesakes (``evidence.alike_pick``).
    likeness: Mapping[str, float] = msgspec.field(default_factory=dict)
    # Mentions of the fact that a settle decides in a later pass: neither decided here nor
    # context, but read for the qualifiers of the others ("Cedar & Vine from Tacoma" states a
    # place when "Tacoma" is a place, whichever pass decides it).
    later: tuple[Mention, ...] = ()


NameKind = Literal[
    "exact",
    "same_form",
    "stated",
    "initials",
    "contained",
    "acronym",
    "given_name",
]


class NameMatch(msgspec.Struct, frozen=True):
    """The best name relation between a subject and a candidate."""

    kind: NameKind
    score: float
    subject_name: str
    candidate_name: str


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    """Why a candidate scored what it scored (kept on merges and reviews)."""

    entity_id: str
    name: NameMatch
    # Co-occurrence overlap in [0, 1] and the shared entities that produced it.
    context: float
    shared: tuple[str, ...]
    # Neighbours of the candidate that are siblings (same series) of the subject's context.
    siblings: tuple[str, ...] = ()
    # A qualifier stated with the mention fits one of the candidate's (full context).
    qualified: bool = False
    # Topic words its facts share with the mention's (``topics``).
    topics: tuple[str, ...] = ()
    # Of namesakes, the one whose facts the mention's fact is clearly most like
    # (``evidence.alike_pick``).
    alike: bool = False
    recency: float
    familiarity: float
    # Weighted sum, rounded to ``ResolutionPolicy.score_decimals``.
    score: float


class Rejection(msgspec.Struct, frozen=True):
    """A candidate a guard ruled out, and why."""

    entity_id: str
    reason: str


class SubjectSummary(msgspec.Struct, frozen=True, kw_only=True):
    """The mention side of a review: its names, type, time and context entities."""

    names: tuple[str, ...]
    type: str | None
    at: datetime
    context: tuple[str, ...]


class Merge(msgspec.Struct, frozen=True, tag="merge", kw_only=True):
    """Link the mention to an existing entity."""

    entity_id: str
    score: float
    evidence: Evidence


class Create(msgspec.Struct, frozen=True, tag="create", kw_only=True):
    """Create a new entity."""

    reason: str
    rejected: tuple[Rejection, ...] = ()


class CreateAndReview(msgspec.Struct, frozen=True, tag="review", kw_only=True):
    """Create a new entity and file a review against ``evidence[0].entity_id``.

    ``evidence`` is best first; a namesake tie carries both rivals. ``subject`` is the mention
    side of the pair.
    """

    reason: str
    subject: SubjectSummary
    evidence: tuple[Evidence, ...]


Decision = Merge | Create | CreateAndReview


class GroupDecision(msgspec.Struct, frozen=True, kw_only=True):
    """One decision for a group of mentions of one fact that name the same thing."""

    # Indexes into ``FactMentions.mentions``.
    mentions: tuple[int, ...]
    # Name keys to record on the resulting entity (each with this fact as provenance).
    names: tuple[str, ...]
    # Of ``names``, those stated as aliases by the text.
    stated_names: tuple[str, ...]
    decision: Decision
    # What the text states next to the group's names (``qualifiers.qualifiers_in``).
    qualifiers: tuple[Qualifier, ...] = ()


class KeepApart(msgspec.Struct, frozen=True, tag="apart", kw_only=True):
    """Reconsideration found no reason to merge."""

    reason: str


class Review(msgspec.Struct, frozen=True, tag="review", kw_only=True):
    """Reconsideration found a pair worth a human look (grey zone or tie)."""

    reason: str
    evidence: tuple[Evidence, ...]


Reconsideration = Merge | Review | KeepApart
