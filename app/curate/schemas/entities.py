"""Entities as the API lists and shows them, their co-occurrence graph, and repair requests."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from app.domain.names import EntityName

Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]


RecordKind = Literal["merge", "split", "revert"]


class EntitySummary(msgspec.Struct, frozen=True, kw_only=True):
    """An entity in a listing."""

    id: str
    name: str
    type: str | None = None
    mention_count: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    is_label: bool = False


class EntityPage(msgspec.Struct, frozen=True):
    """One page of entities, most mentioned first."""

    items: list[EntitySummary]
    total: int
    limit: int
    offset: int


class EntityNeighbour(msgspec.Struct, frozen=True):
    """An entity named in the same facts, and in how many."""

    id: str
    name: str
    count: int


class EntityDetail(msgspec.Struct, frozen=True, kw_only=True):
    """One entity with its names (and where each came from) and its neighbours."""

    id: str
    name: str
    type: str | None = None
    mention_count: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    is_label: bool = False
    names: list[EntityName] = msgspec.field(default_factory=list)
    neighbours: list[EntityNeighbour] = msgspec.field(default_factory=list)
    open_reviews: int = 0


class GraphNode(msgspec.Struct, frozen=True, kw_only=True):
    """An entity of the co-occurrence graph."""

    id: str
    name: str
    type: str | None = None
    mention_count: int = 0


class GraphEdge(msgspec.Struct, frozen=True, kw_only=True):
    """Two entities named together in ``count`` facts."""

    source: str
    target: str
    count: int
    first_at: datetime | None = None
    last_at: datetime | None = None


class EntityGraph(msgspec.Struct, frozen=True):
    """The most mentioned entities and the co-occurrences among them."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]


class MergeRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Fold this entity into ``into``; ``reason`` goes into the audit record."""

    into: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    reason: Reason


class SplitRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Move the mentions of ``memory_ids`` to a new entity named ``name`` (or its usual name)."""

    memory_ids: Annotated[list[str], msgspec.Meta(min_length=1, max_length=10_000)]
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=512)] | None = None
    reason: Reason


class RevertRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Why a merge or split is being undone."""

    reason: Reason


class EntityMergeRecord(msgspec.Struct, frozen=True, kw_only=True):
    """An audit record of entity repairs.

    ``merge``: ``gone`` was folded into ``keep``. ``split``: ``created`` took some of
    ``source``'s facts (``memory_ids``). ``revert``: record ``reverts`` was undone. ``by`` says who
    acted: ``api`` (a curator), ``review`` (a review decided "same"), ``resolver`` (re-evaluation).
    """

    id: str
    kind: RecordKind
    state: Literal["active", "reverted"]
    reason: str | None = None
    by: str | None = None
    created_at: datetime | None = None
    seq: int = 0
    keep: str | None = None
    keep_name: str | None = None
    gone: str | None = None
    gone_name: str | None = None
    source: str | None = None
    source_name: str | None = None
    created: str | None = None
    created_name: str | None = None
    memory_ids: list[str] = msgspec.field(default_factory=list)
    review_id: str | None = None
    evidence: Any = None
    reverts: str | None = None
    reverts_kind: str | None = None
    reverted_by: str | None = None
    reverted_at: datetime | None = None


class EntityMergePage(msgspec.Struct, frozen=True):
    """One page of audit records, newest first."""

    items: list[EntityMergeRecord]
    total: int
    limit: int
    offset: int


class EntityChange(msgspec.Struct, frozen=True):
    """What a repair did: its audit record and the entities as they are now."""

    record: EntityMergeRecord
    entities: list[EntityDetail]
