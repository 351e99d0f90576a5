"""Read models for people browsing a bank: growth over time, a fact's links, a neighbourhood.

The listings (memories, documents, entities, reviews) have their own services; these are the
views around them that a console page shows and that no write path needs. Every read is bounded
(a limit per link kind, per entity and per neighbourhood), so a page stays cheap in a large bank.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime
from typing import Literal

import msgspec

from app.curate.memories import HUB_MENTIONS
from app.curate.schemas.browse import (
    ActivityBy,
    ActivityDay,
    BankActivity,
    CoMentioned,
    ConsolidationBacklog,
    EntityNeighbourhood,
    LinkedMemory,
    LinkGroup,
    LinkKind,
    MemoryLinks,
    NeighbourEdge,
    NeighbourNode,
)
from app.domain.banks import BankDirectory
from app.errors import NotFound
from app.store.background import stop_tasks
from app.store.graph import Graph, cypher_datetime

# Links of each kind shown on a fact's page; facts naming the same entities, and how many of
# each entity's newest facts are weighed to find them.
LINKS_PER_KIND = 10
CO_MENTIONED = 10
CO_MENTIONED_PER_ENTITY = 50
MAX_NEIGHBOURHOOD = 60
# The overview's counts of what waits on a bank stop past this many.
BACKLOG_CAP = 10_000
# The start of "all time" for an index range scan (every stored time is after it).
_EPOCH = datetime(1, 1, 1, tzinfo=UTC)
_KINDS: dict[str, LinkKind] = {
    "TEMPORAL": "temporal",
    "SEMANTIC": "semantic",
    "CAUSED_BY": "causal",
}

log = logging.getLogger(__name__)


class _LinkRow(msgspec.Struct):
    kind: str
    links: list[LinkedMemory]
    total: int


class CoRow(msgspec.Struct):
    """One of an entity's newest facts, with that entity's name."""

    id: str
    text: str
    created_at: datetime
    state: str | None = None
    name: str = ""


class _Hub(msgspec.Struct):
    id: str
    name: str


class _CoMentionedRow(msgspec.Struct):
    rows: list[CoRow]
    hubs: list[_Hub]


def merge_co_mentioned(rows: list[CoRow], limit: int) -> list[CoMentioned]:
    """One entry per fact with the names it shares, most shared first, then newest, then id."""
    shared: dict[str, list[str]] = {}
    first: dict[str, CoRow] = {}
    for r in rows:
        first.setdefault(r.id, r)
        names = shared.setdefault(r.id, [])
        if r.name not in names:
            names.append(r.name)
    order = sorted(
        first.values(), key=lambda r: (-len(shared[r.id]), -r.created_at.timestamp(), r.id)
    )
    return [
        CoMentioned(id=r.id, text=r.text, state=r.state, shared=shared[r.id]) for r in order[:limit]
    ]


class _Centre(msgspec.Struct):
    id: str
    canonical_name: str
    type: str | None = None
    mention_count: int | None = 0


class _NeighbourhoodRow(msgspec.Struct):
    centre: _Centre
    nodes: list[NeighbourNode]
    edges: list[NeighbourEdge]


class _Counted(msgspec.Struct):
    activity: BankActivity
    # time.monotonic() when counted, and the bank's memory count then.
    at: float
    memories: int


def chart_freshness(
    counted: _Counted | None, *, memories: int, now: float, max_age_s: float
) -> Literal["fresh", "stale", "missing"]:
    """Whether a counted chart may be shown as it is.

    It is stale once it is older than ``max_age_s`` or the bank's memory count moved since
    (a retain, a delete, a new observation); an edit that moves an event day without changing
    the count waits for the age bound.
    """
    if counted is None:
        return "missing"
    if counted.memories != memories or now - counted.at > max_age_s:
        return "stale"
    return "fresh"


class BrowseService:
    """Bounded reads that give the listings their context."""

    def __init__(self, graph: Graph, banks: BankDirectory, *, chart_max_age_s: float) -> None:
        self._graph = graph
        self._banks = banks
        self._chart_max_age_s = chart_max_age_s
        self._charts: dict[tuple[str, ActivityBy], _Counted] = {}
        self._recounts: dict[tuple[str, ActivityBy], asyncio.Task[None]] = {}

    async def activity(
        self, bank_id: str, *, by: ActivityBy = "retained", since: datetime | None = None
    ) -> BankActivity:
        """Memories per day, by retain day or event day, from ``since`` on (default: all)."""
        await self._banks.require(bank_id)
        days = await self._graph.rows(
            "banks/activity" if by == "retained" else "banks/activity_occurred",
            {"bank_id": bank_id, "since": cypher_datetime(since or _EPOCH)},
            ActivityDay,
        )
        return BankActivity(bank_id=bank_id, by=by, days=days, counted_at=datetime.now(UTC))

    async def chart_activity(self, bank_id: str, *, by: ActivityBy, memories: int) -> BankActivity:
        """``activity`` for the overview's chart: counted at most once per change or age bound.

        Counting reads one index entry per memory (its cost grows with the bank), so a glance at
        the overview shows the last count while a stale one is counted again in the background;
        only a bank never counted in this process waits for its count. ``memories`` is the
        bank's count now.
        """
        key = (bank_id, by)
        counted = self._charts.get(key)
        state = chart_freshness(
            counted, memories=memories, now=time.monotonic(), max_age_s=self._chart_max_age_s
        )
        if counted is None:  # state "missing"
            await self._recount(key, memories)
            return self._charts[key].activity
        if state == "stale" and key not in self._recounts:
            task = asyncio.create_task(self._recount_quietly(key, memories))
            self._recounts[key] = task
            task.add_done_callback(lambda _: self._recounts.pop(key, None))
        return counted.activity

    async def _recount(self, key: tuple[str, ActivityBy], memories: int) -> None:
        bank_id, by = key
        activity = await self.activity(bank_id, by=by)
        self._charts[key] = _Counted(activity=activity, at=time.monotonic(), memories=memories)

    async def _recount_quietly(self, key: tuple[str, ActivityBy], memories: int) -> None:
        try:
            await self._recount(key, memories)
        except NotFound:
            self._charts.pop(key, None)
        except Exception:  # a background recount must not take the process down
            log.warning("recounting the chart of bank %r failed", key[0], exc_info=True)

    async def close(self) -> None:
        """Cancel recounts still running (the service is shutting down)."""
        await stop_tasks(list(self._recounts.values()))

    async def backlog(self, bank_id: str, *, cap: int = BACKLOG_CAP) -> ConsolidationBacklog:
        """Facts waiting for consolidation or failed it, observations, unfinished operations.

        Each counted up to ``cap`` (then "cap+"): an exact count would read one index entry
        per fact on every load of the overview, ~0.1 s for 100k pending facts.
        """
        await self._banks.require(bank_id)
        params = {"bank_id": bank_id, "cap": cap}
        row = await self._graph.row("banks/backlog", params, ConsolidationBacklog)
        return row or ConsolidationBacklog()

    async def memory_links(self, bank_id: str, memory_id: str) -> MemoryLinks:
        """A fact's strongest links of each kind and the facts that name its entities."""
        await self._banks.require(bank_id)
        params = {"bank_id": bank_id, "memory_id": memory_id}
        rows = await self._graph.rows(
            "memories/links", {**params, "limit": LINKS_PER_KIND}, _LinkRow
        )
        shared = await self._co_mentioned(bank_id, memory_id)
        groups = [
            LinkGroup(kind=_KINDS[r.kind], links=r.links, total=r.total)
            for r in rows
            if r.kind in _KINDS
        ]
        return MemoryLinks(memory_id=memory_id, groups=groups, co_mentioned=shared)

    async def _co_mentioned(self, bank_id: str, memory_id: str) -> list[CoMentioned]:
        """Each of the fact's entities' newest facts, merged; a hub's read in index order."""
        per_entity = CO_MENTIONED_PER_ENTITY
        row = await self._graph.row(
            "memories/co_mentioned",
            {
                "bank_id": bank_id,
                "memory_id": memory_id,
                "per_entity": per_entity,
                "hub_mentions": HUB_MENTIONS,
            },
            _CoMentionedRow,
        )
        if row is None:
            return []
        rows = list(row.rows)
        for hub in row.hubs:
            found = await self._graph.rows(
                "memories/co_mentioned_hub",
                {
                    "bank_id": bank_id,
                    "memory_id": memory_id,
                    "entity_id": hub.id,
                    "per_entity": per_entity,
                },
                CoRow,
            )
            rows += [msgspec.structs.replace(r, name=hub.name) for r in found]
        return merge_co_mentioned(rows, CO_MENTIONED)

    async def neighbourhood(
        self, bank_id: str, entity_id: str, *, limit: int = 25
    ) -> EntityNeighbourhood:
        """The entity, its ``limit`` closest co-occurring entities and the edges among them."""
        await self._banks.require(bank_id)
        row = await self._graph.row(
            "entities/neighbourhood",
            {"bank_id": bank_id, "entity_id": entity_id, "limit": min(limit, MAX_NEIGHBOURHOOD)},
            _NeighbourhoodRow,
        )
        if row is None:
            raise NotFound(f"entity {entity_id!r} not found in bank {bank_id!r}")
        c = row.centre
        centre = NeighbourNode(
            id=c.id, name=c.canonical_name, type=c.type, mention_count=c.mention_count or 0
        )
        return EntityNeighbourhood(centre=centre, nodes=row.nodes, edges=row.edges)
