"""Facts as the API shows them, how a listing filters them, and what a PATCH may change."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from app.domain.facts import (
    ConsolidationState,
    ExtractedFactType,
    FactType,
    MemoryState,
    RevisionKind,
)
from app.domain.tags import TagsMatch
from app.retain.schemas import EntityHint


class MemoryEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity a fact mentions: its id, canonical name and the surface text in this fact."""

    id: str
    name: str
    mention: str | None = None
    type: str | None = None


class SourceMemory(msgspec.Struct, frozen=True, kw_only=True):
    """A fact an observation is derived from, as ``GET`` of the observation shows it."""

    id: str
    text: str
    type: str
    context: str | None = None
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    document_id: str | None = None
    state: MemoryState = "valid"


class Memory(msgspec.Struct, frozen=True, kw_only=True):
    """A fact (or an observation) as the API shows it.

    ``mentions`` lists the entities the fact mentions (id, canonical name, surface text).
    Hindsight's names are derived beside Mnemo's: ``entities`` (the canonical names, comma
    separated), ``fact_type`` (= ``type``), ``date`` (event start, else mention time),
    ``invalidation_reason`` / ``invalidated_at`` (set while the fact is invalidated) and
    ``updated_at`` (the last edit, state change or, for an observation, rewrite).

    ``proof_count`` is 1 for a fact; for an observation, the number of distinct valid facts
    it is derived from (``source_memory_ids``; ``source_memories`` resolves them on ``GET``).
    Facts carry their consolidation state (``pending``, ``done`` or ``failed``, with the time
    and the reason); observations carry none.
    """

    id: str
    text: str
    type: str
    fact_kind: str | None = None
    context: str | None = None
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    document_id: str | None = None
    chunk_id: str | None = None
    metadata: dict[str, Any] | None = None
    tags: list[str] = msgspec.field(default_factory=list)
    mentions: list[MemoryEntity] = msgspec.field(default_factory=list)
    state: MemoryState = "valid"
    state_reason: str | None = None
    state_changed_at: datetime | None = None
    proof_count: int = 1
    edited_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    source_memory_ids: list[str] | None = None
    source_memories: list[SourceMemory] | None = None
    consolidation_state: ConsolidationState | None = None
    consolidated_at: datetime | None = None
    consolidation_failed_at: datetime | None = None
    consolidation_error: str | None = None
    entities: str = ""
    fact_type: str = ""
    date: str = ""
    invalidation_reason: str | None = None
    invalidated_at: datetime | None = None

    def __post_init__(self) -> None:
        when = self.occurred_start or self.mentioned_at
        invalid = self.state == "invalidated"
        # An observation's rewrites are stamped as updated_at by consolidation itself.
        changes = [
            t for t in (self.edited_at, self.state_changed_at, self.updated_at) if t is not None
        ]
        derived = {
            "entities": ", ".join(dict.fromkeys(m.name for m in self.mentions)),
            "fact_type": self.type,
            "date": when.isoformat() if when is not None else "",
            "invalidation_reason": self.state_reason if invalid else None,
            "invalidated_at": self.state_changed_at if invalid else None,
            "updated_at": max(changes) if changes else self.created_at,
        }
        for name, value in derived.items():
            msgspec.structs.force_setattr(self, name, value)


class MemoryPage(msgspec.Struct, frozen=True, kw_only=True):
    """One page of facts, newest first (``warnings``: filters sent that were not applied).

    ``next_cursor``, when more facts follow, asks for the next page as ``cursor`` (with
    ``offset`` 0): it seeks where this page ended, so deep pages cost what the first one does.
    """

    items: list[Memory]
    total: int
    limit: int
    offset: int
    next_cursor: str | None = None
    warnings: list[str] = msgspec.field(default_factory=list)


class MemoryWindow(msgspec.Struct, frozen=True, kw_only=True):
    """One page of facts without a total (``next_cursor`` when more follow)."""

    items: list[Memory]
    next_cursor: str | None = None


class MemoryFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Which facts a listing returns (every condition applies; None means no condition)."""

    types: tuple[FactType, ...] | None = None
    q: str | None = None
    states: tuple[MemoryState, ...] | None = None
    document_id: str | None = None
    entity_id: str | None = None
    tags: tuple[str, ...] | None = None
    tags_match: TagsMatch = "any"
    consolidation_states: tuple[ConsolidationState, ...] | None = None


class MemoryUpdate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A PATCH of one fact: fields not sent stay as they are.

    An observation takes ``state`` and ``reason`` only: it is derived from facts, so its text,
    type, dates and entities are corrected by correcting those facts.

    ``entities`` replaces the fact's mentions (each resolved like a retain mention, unless it
    names an entity the fact already mentions); ``resolve_entities: false`` resolves new names by
    exact match only. ``reason`` is recorded with the change (and as the state reason).
    """

    # Bounded by MNEMO_MAX_ITEM_CHARS, as retained text is (413 over it).
    text: Annotated[str, msgspec.Meta(min_length=1)] | UnsetType = UNSET
    context: Annotated[str, msgspec.Meta(max_length=2000)] | UnsetType | None = UNSET
    occurred_start: datetime | UnsetType = UNSET
    occurred_end: datetime | UnsetType = UNSET
    fact_type: ExtractedFactType | UnsetType = UNSET
    entities: list[EntityHint] | UnsetType = UNSET
    resolve_entities: bool | UnsetType = UNSET
    state: MemoryState | UnsetType = UNSET
    reason: Annotated[str, msgspec.Meta(max_length=2000)] | UnsetType | None = UNSET


class Revision(msgspec.Struct, frozen=True, kw_only=True):
    """One recorded change: what it was, why, when, and the values before and after."""

    id: str
    at: datetime
    kind: RevisionKind
    reason: str | None = None
    fields: list[str] = msgspec.field(default_factory=list)
    before: dict[str, Any] = msgspec.field(default_factory=dict)
    after: dict[str, Any] = msgspec.field(default_factory=dict)


class MemoryHistory(msgspec.Struct, frozen=True):
    """Every edit and state change of one fact, oldest first."""

    memory_id: str
    items: list[Revision]


class TagCount(msgspec.Struct, frozen=True):
    """A tag and how many valid memories carry it."""

    tag: str
    count: int


class TagPage(msgspec.Struct, frozen=True):
    """One page of a bank's tags, most used first."""

    items: list[TagCount]
    total: int
    limit: int
    offset: int
