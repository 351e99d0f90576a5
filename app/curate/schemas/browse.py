"""What a person browsing a bank reads beside the listings (msgspec Structs, no I/O).

Growth over time, a fact's links to other facts, an entity's neighbourhood for drawing.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

import msgspec

# Count memories by the day they were retained, or by the day their event began.
ActivityBy = Literal["retained", "occurred"]
LinkKind = Literal["temporal", "semantic", "causal"]


class ActivityDay(msgspec.Struct, frozen=True):
    """How many memories (of a kind: ``type``) fall on one day."""

    day: date
    type: str
    count: int


class BankActivity(msgspec.Struct, frozen=True, kw_only=True):
    """A bank's memories per day and fact type, oldest day first, and when they were counted."""

    bank_id: str
    by: ActivityBy
    days: list[ActivityDay]
    counted_at: datetime | None = None


class LinkedMemory(msgspec.Struct, frozen=True, kw_only=True):
    """Another fact at the end of a link: which way the link points and its weight."""

    id: str
    text: str
    state: str | None = None
    weight: float | None = None
    outgoing: bool = True
    # The link belongs to an invalidated fact and is kept archived until it is restored.
    archived: bool = False


class LinkGroup(msgspec.Struct, frozen=True, kw_only=True):
    """The strongest links of one kind (``total`` counts them all)."""

    kind: LinkKind
    links: list[LinkedMemory]
    total: int


class CoMentioned(msgspec.Struct, frozen=True, kw_only=True):
    """A fact that names some of the same entities, and which ones."""

    id: str
    text: str
    state: str | None = None
    shared: list[str] = msgspec.field(default_factory=list)


class MemoryLinks(msgspec.Struct, frozen=True, kw_only=True):
    """A fact's links: temporal, semantic and causal ones, and facts naming the same entities."""

    memory_id: str
    groups: list[LinkGroup]
    co_mentioned: list[CoMentioned]


class NeighbourNode(msgspec.Struct, frozen=True, kw_only=True):
    """An entity in a neighbourhood; ``count``: facts it shares with the centre."""

    id: str
    name: str
    type: str | None = None
    mention_count: int = 0
    count: int = 0


class NeighbourEdge(msgspec.Struct, frozen=True, kw_only=True):
    """Two neighbours named together in ``count`` facts."""

    source: str
    target: str
    count: int


class EntityNeighbourhood(msgspec.Struct, frozen=True, kw_only=True):
    """An entity, its closest co-occurring entities and the co-occurrences among them."""

    centre: NeighbourNode
    nodes: list[NeighbourNode]
    edges: list[NeighbourEdge]


class ConsolidationBacklog(msgspec.Struct, frozen=True):
    """What waits on a bank, and what consolidation made.

    Facts waiting for consolidation and failed ones (retried later), observations, and
    unfinished and failed operations, each counted up to ``cap`` + 1.
    """

    pending: int = 0
    failed: int = 0
    observations: int = 0
    operations_pending: int = 0
    operations_failed: int = 0
    # Counts stop one past this (a page costs its rows, not the bank): such a count is "cap+".
    cap: int = 0

    def shown(self, count: int) -> str:
        """A count as a person reads it: exact up to the cap, "cap+" past it."""
        return f"{self.cap:,}+" if self.cap and count > self.cap else f"{count:,}"
