"""Facts as the API shows them, how a listing filters them, and what a PATCH may change."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from app.domain.facts import ExtractedFactType, FactType, MemoryState, RevisionKind
from app.domain.tags import TagsMatch
from app.retain.schemas import EntityHint

MAX_TEXT_CHARS = 100_000


class MemoryEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity a fact mentions: its id, canonical name and the surface text in this fact."""

    id: str
    name: str
    mention: str | None = None
    type: str | None = None


class Memory(msgspec.Struct, frozen=True, kw_only=True):
    """A fact as the API shows it.

    ``mentions`` lists the entities the fact mentions (id, canonical name, surface text).
    Hindsight's names are derived beside Mnemo's: ``entities`` (the canonical names, comma
    separated), ``fact_type`` (= ``type``), ``date`` (event start, else mention time),
    ``invalidation_reason`` / ``invalidated_at`` (set while the fact is invalidated) and
    ``updated_at`` (the last edit or state change).
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
    entities: str = ""
    fact_type: str = ""
    date: str = ""
    invalidation_reason: str | None = None
    invalidated_at: datetime | None = None
    updated_at: datetime | None = None

    def __post_init__(self) -> None:
        when = self.occurred_start or self.mentioned_at
        invalid = self.state == "invalidated"
        changes = [t for t in (self.edited_at, self.state_changed_at) if t is not None]
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
    """One page of facts, newest first (``warnings``: filters sent that were not applied)."""

    items: list[Memory]
    total: int
    limit: int
    offset: int
    warnings: list[str] = msgspec.field(default_factory=list)


class MemoryFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Which facts a listing returns (every condition applies; None means no condition)."""

    types: tuple[FactType, ...] | None = None
    q: str | None = None
    states: tuple[MemoryState, ...] | None = None
    document_id: str | None = None
    entity_id: str | None = None
    tags: tuple[str, ...] | None = None
    tags_match: TagsMatch = "any"


class MemoryUpdate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A PATCH of one fact: fields not sent stay as they are.

    ``entities`` replaces the fact's mentions (each resolved like a retain mention, unless it
    names an entity the fact already mentions); ``resolve_entities: false`` resolves new names by
    exact match only. ``reason`` is recorded with the change (and as the state reason).
    """

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TEXT_CHARS)] | UnsetType = UNSET
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


class ObservationsCleared(msgspec.Struct, frozen=True):
    """How many observations derived from a memory were removed."""

    deleted_count: int


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
