"""Entities as the API lists and shows them, their co-occurrence graph, and repair requests."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from app.domain.names import EntityName

Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]


RecordKind = Literal["merge", "split", "revert"]


class EntitySummary(msgspec.Struct, frozen=True, kw_only=True):
    """An entity in a listing (``canonical_name`` is Hindsight's name for ``name``)."""

    id: str
    name: str
    type: str | None = None
    mention_count: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    is_label: bool = False
    canonical_name: str = ""

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "canonical_name", self.name)


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


class EntityQualifier(msgspec.Struct, frozen=True, kw_only=True):
    """A place, organisation or role a text stated next to one of the entity's names.

    "Cedar & Vine in Tacoma": kind ``place``, value "Tacoma", said with "Cedar & Vine". The
    resolver weighs these: a shared one supports a merge, a conflicting one blocks it.
    """

    kind: str
    value: str
    said_with: str
    # The facts that state it (latest first), and the time of the latest.
    memory_ids: list[str]
    last_at: datetime | None = None


class EntityDetail(msgspec.Struct, frozen=True, kw_only=True):
    """One entity with its names (and where each came from) and its neighbours.

    ``canonical_name`` (= ``name``) and ``observations`` are Hindsight's names; Mnemo keeps no
    per-entity observations, so that list is empty.
    """

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
    # Qualifiers stated with its names in its latest 100 facts.
    qualifiers: list[EntityQualifier] = msgspec.field(default_factory=list)
    canonical_name: str = ""
    observations: list[dict[str, Any]] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "canonical_name", self.name)


class GraphNodeData(msgspec.Struct, frozen=True, kw_only=True):
    """A node as graph-drawing libraries (and Hindsight's clients) read it."""

    id: str
    label: str = ""
    mention_count: int = msgspec.field(default=0, name="mentionCount")


class GraphNode(msgspec.Struct, frozen=True, kw_only=True):
    """An entity of the co-occurrence graph (``data`` repeats it in Hindsight's shape)."""

    id: str
    name: str
    type: str | None = None
    mention_count: int = 0
    data: GraphNodeData | None = None

    def __post_init__(self) -> None:
        data = GraphNodeData(id=self.id, label=self.name, mention_count=self.mention_count)
        msgspec.structs.force_setattr(self, "data", data)


class GraphEdgeData(msgspec.Struct, frozen=True, kw_only=True):
    """An edge as graph-drawing libraries (and Hindsight's clients) read it."""

    id: str
    source: str
    target: str
    link_type: str = msgspec.field(default="cooccurrence", name="linkType")
    weight: int = 0
    last_cooccurred: datetime | None = msgspec.field(default=None, name="lastCooccurred")


class GraphEdge(msgspec.Struct, frozen=True, kw_only=True):
    """Two entities named together in ``count`` facts (``data`` in Hindsight's shape)."""

    source: str
    target: str
    count: int
    first_at: datetime | None = None
    last_at: datetime | None = None
    data: GraphEdgeData | None = None

    def __post_init__(self) -> None:
        data = GraphEdgeData(
            id=f"{self.source}--{self.target}",
            source=self.source,
            target=self.target,
            weight=self.count,
            last_cooccurred=self.last_at,
        )
        msgspec.structs.force_setattr(self, "data", data)


class EntityGraph(msgspec.Struct, frozen=True, kw_only=True):
    """The most mentioned entities and the co-occurrences among them.

    ``total_entities`` / ``total_edges`` count what is shown; ``limit`` is the node limit asked.
    """

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    limit: int = 0
    total_entities: int = 0
    total_edges: int = 0

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "total_entities", len(self.nodes))
        msgspec.structs.force_setattr(self, "total_edges", len(self.edges))


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
