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
    """A fact as the API shows it."""

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
    entities: list[MemoryEntity] = msgspec.field(default_factory=list)
    state: MemoryState = "valid"
    state_reason: str | None = None
    state_changed_at: datetime | None = None
    proof_count: int = 1
    edited_at: datetime | None = None
    created_at: datetime | None = None


class MemoryPage(msgspec.Struct, frozen=True):
    """One page of facts, newest first."""

    items: list[Memory]
    total: int
    limit: int
    offset: int


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
