"""Entities: list, inspect, the co-occurrence graph, and repairs (merge, split, revert).

Reads come from indexes (names through the Name index and the ``entity_lookup`` full-text
index) and per-entity relationships. Repairs run in one transaction after the bank lock (the
lock retain takes first, so a repair and a retain of one bank never interleave), write an audit
record (``:EntityMerge`` of kind merge, split or revert) and are exactly reversible: every edge a
merge or split moves is tagged with its record, and a revert moves those back (see
cypher/resolve/merge_entities.cypher and cypher/entities/move_back.cypher). Derived data —
counts, first/last seen, ``CO_OCCURS``, the full-text lookup fields and the facts' keyword
field — is rebuilt from ``MENTIONS`` and names after each repair, never patched.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from app.curate.memories import HUB_MENTIONS
from app.curate.schemas.entities import (
    EntityChange,
    EntityDetail,
    EntityGraph,
    EntityMergePage,
    EntityMergeRecord,
    EntityNeighbour,
    EntityPage,
    EntityQualifier,
    EntitySummary,
    GraphEdge,
    GraphNode,
    MergeRequest,
    RecordKind,
    RevertRequest,
    SplitRequest,
)
from app.domain.banks import BankDirectory
from app.errors import Conflict, InvalidInput, NotFound
from app.resolve.graph_resolver import (
    merge_entities,
    refresh_lookup_fields,
    retype_entities,
)
from app.resolve.qualifiers import qualifiers_in
from app.resolve.repair import (
    EntityBrief,
    MentionUse,
    StoredClaim,
    TrimRecord,
    merge_refusal,
    name_filter,
    names_of,
    plan_split,
    restore_trims,
    trim_records,
)
from app.resolve.review_rows import review_id
from app.resolve.settle_store import refresh_fact_names
from app.store.graph import Graph, Tx
from app.store.search_keys import bank_key

# Co-occurring entities shown with an entity, and the most a caller may ask for.
DEFAULT_NEIGHBOURS = 10
MAX_NEIGHBOURS = 100
# The graph endpoint: nodes by default and at most, and edges at most.
DEFAULT_GRAPH_NODES = 100
MAX_GRAPH_NODES = 500
MAX_GRAPH_EDGES = 5000
# Merged-away ids are followed this far to name the entity they ended up in.
MAX_MERGE_HOPS = 32


class StoredEntity(msgspec.Struct):
    """An entity node's properties as stored."""

    id: str
    canonical_name: str
    name_key: str | None = None
    type: str | None = None
    mention_count: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    is_label: bool = False

    def brief(self) -> EntityBrief:
        """What merge checks read."""
        return EntityBrief(
            id=self.id,
            canonical_name=self.canonical_name,
            type=self.type or None,
            is_label=self.is_label,
            mention_count=self.mention_count,
        )


class _BriefRow(msgspec.Struct):
    id: str
    entity: StoredEntity | None = None
    merged_into: str | None = None
    merge_id: str | None = None


class _SaidMention(msgspec.Struct):
    entity_id: str
    text: str
    type: str | None = None


class _SaidFact(msgspec.Struct):
    memory_id: str
    at: datetime | None
    content: str | None
    mentions: list[_SaidMention]


class _DetailRow(msgspec.Struct):
    entity: StoredEntity
    claims: list[StoredClaim]
    neighbours: list[EntityNeighbour]
    open_reviews: int
    said: list[_SaidFact] = msgspec.field(default_factory=list)
    hub: bool = False


class _SaidRow(msgspec.Struct):
    said: list[_SaidFact]


class _ListRow(msgspec.Struct):
    total: int
    items: list[StoredEntity]


class _GraphRow(msgspec.Struct):
    nodes: list[StoredEntity]
    edges: list[GraphEdge]


class _RecordProps(msgspec.Struct):
    id: str
    kind: RecordKind
    state: Literal["active", "reverted"] = "active"
    reason: str | None = None
    by: str | None = None
    created_at: datetime | None = None
    seq: int | None = None
    keep: str | None = None
    keep_name: str | None = None
    gone: str | None = None
    gone_name: str | None = None
    source: str | None = None
    source_name: str | None = None
    created: str | None = None
    created_name: str | None = None
    memory_ids: list[str] | None = None
    review_id: str | None = None
    evidence_json: str | None = None
    reverts: str | None = None
    reverts_kind: str | None = None
    reverted_by: str | None = None
    reverted_at: datetime | None = None
    trims_json: str | None = None


class _RecordRow(msgspec.Struct):
    record: _RecordProps


class _HistoryRow(msgspec.Struct):
    total: int
    items: list[_RecordProps]


class _Use(msgspec.Struct):
    memory_id: str
    surface: str | None = None
    at: datetime | None = None


class _UsesRow(msgspec.Struct):
    uses: list[_Use]
    total: int


class _ClaimRow(msgspec.Struct):
    claim: StoredClaim


class _BlockerProps(msgspec.Struct):
    id: str
    kind: str
    seq: int | None = None
    created_at: datetime | None = None


class _BlockerRow(msgspec.Struct):
    record: _BlockerProps


class _SplitStateRow(msgspec.Struct):
    foreign_mentions: int
    decided_reviews: int


def clean_reason(reason: str, field: str = "reason") -> str:
    """A reason with its outer whitespace trimmed; 400 naming the field when nothing is left."""
    text = reason.strip()
    if not text:
        raise InvalidInput(f"{field} must not be blank", extra={"field": field})
    return text


class EntityService:
    """Entity reads and curator repairs over the graph."""

    def __init__(
        self,
        graph: Graph,
        banks: BankDirectory,
        *,
        settled: Callable[[str], Awaitable[None]],
    ) -> None:
        self._graph = graph
        self._banks = banks
        self._settled = settled

    async def settled(self, bank_id: str) -> None:
        """Wait for the settle behind the bank's writes (decision 0018).

        Identities read or repaired here are then the ones the evidence gives, not a write's
        first pass; a repair also decides on the entities its caller was shown.
        """
        await self._settled(bank_id)

    async def _ready(self, bank_id: str) -> None:
        await self._banks.require(bank_id)
        await self.settled(bank_id)

    # -- reads --------------------------------------------------------------------------------

    async def page(
        self,
        bank_id: str,
        *,
        name: str | None = None,
        entity_type: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> EntityPage:
        """Entities most mentioned first, filtered by any of their names and by type."""
        await self._ready(bank_id)
        key: str | None = None
        lucene: str | None = None
        if name is not None:
            key, lucene = name_filter(bank_id, name)
            if not key:
                raise InvalidInput(
                    "name has no letters or digits to search for", extra={"field": "name"}
                )
        row = await self._graph.row(
            "entities/list",
            {
                "bank_id": bank_id,
                "key": key,
                "lucene": lucene,
                "type": entity_type,
                "offset": offset,
                "limit": limit,
            },
            _ListRow,
        )
        assert row is not None  # an aggregation always answers one row
        return EntityPage(
            items=[_summary(e) for e in row.items], total=row.total, limit=limit, offset=offset
        )

    async def get(
        self, bank_id: str, entity_id: str, *, neighbours: int = DEFAULT_NEIGHBOURS
    ) -> EntityDetail:
        """One entity; a merged-away id is a 404 naming the entity it went into."""
        await self._ready(bank_id)
        row = await self._graph.row(
            "entities/get",
            {
                "bank_id": bank_id,
                "id": entity_id,
                "neighbours": neighbours,
                "hub_mentions": HUB_MENTIONS,
            },
            _DetailRow,
        )
        if row is None:
            await self._not_found(self._graph, bank_id, entity_id)
        assert row is not None
        if row.hub:  # its latest facts in index order, rather than sorting all of them
            said = await self._graph.row(
                "entities/said_hub", {"bank_id": bank_id, "id": entity_id}, _SaidRow
            )
            row.said = said.said if said is not None else []
        return _detail(row)

    async def graph(
        self,
        bank_id: str,
        *,
        limit: int = DEFAULT_GRAPH_NODES,
        min_count: int = 1,
        entity_type: str | None = None,
    ) -> EntityGraph:
        """The ``limit`` most mentioned entities and their co-occurrences (≥ ``min_count``)."""
        await self._ready(bank_id)
        row = await self._graph.row(
            "entities/graph",
            {
                "bank_id": bank_id,
                "type": entity_type,
                "limit": limit,
                "min_count": min_count,
                "max_edges": MAX_GRAPH_EDGES,
            },
            _GraphRow,
        )
        assert row is not None
        return EntityGraph(
            nodes=[
                GraphNode(
                    id=n.id,
                    name=n.canonical_name,
                    type=n.type or None,
                    mention_count=n.mention_count,
                )
                for n in row.nodes
            ],
            edges=row.edges,
            limit=limit,
        )

    async def history(
        self,
        bank_id: str,
        *,
        kind: RecordKind | None = None,
        entity_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> EntityMergePage:
        """Audit records of merges, splits and reverts, newest first."""
        await self._ready(bank_id)
        row = await self._graph.row(
            "entities/history",
            {
                "bank_id": bank_id,
                "kind": kind,
                "entity_id": entity_id,
                "offset": offset,
                "limit": limit,
            },
            _HistoryRow,
        )
        assert row is not None
        return EntityMergePage(
            items=[_record(r) for r in row.items], total=row.total, limit=limit, offset=offset
        )

    async def record(self, bank_id: str, record_id: str) -> EntityMergeRecord:
        """One audit record; NotFound when it is not in this bank."""
        row = await self._graph.row(
            "entities/record", {"bank_id": bank_id, "id": record_id}, _RecordRow
        )
        if row is None:
            raise NotFound(f"entity merge {record_id!r} not found in bank {bank_id!r}")
        return _record(row.record)

    # -- repairs ------------------------------------------------------------------------------

    async def merge(self, bank_id: str, entity_id: str, request: MergeRequest) -> EntityChange:
        """Fold ``entity_id`` into ``request.into`` (audited, revertible)."""
        reason = clean_reason(request.reason)

        async def work(tx: Tx) -> tuple[str, str]:
            gone, keep = await self.require_entities(tx, bank_id, [entity_id, request.into])
            refusal = merge_refusal(gone.brief(), keep.brief())
            if refusal is not None:
                raise InvalidInput(refusal, extra={"entity_id": entity_id, "into": request.into})
            merge_id = await self.merge_in(
                tx, bank_id, keep=keep.id, gone=gone.id, reason=reason, by="api"
            )
            return (keep.id, merge_id)

        await self.settled(bank_id)
        keep_id, merge_id = await self._graph.write(bank_id, work)
        return EntityChange(
            record=await self.record(bank_id, merge_id),
            entities=[await self.get(bank_id, keep_id)],
        )

    async def merge_in(
        self,
        tx: Tx,
        bank_id: str,
        *,
        keep: str,
        gone: str,
        reason: str,
        by: str,
        pair_review: str | None = None,
        evidence_json: str | None = None,
    ) -> str:
        """Merge inside a locked transaction and rebuild what derives from it; the merge id.

        The open review of the pair, if any (or ``pair_review``, the one being decided), is
        settled as "same" with the merge's id.
        """
        memory_ids = await self._mentioning(tx, bank_id, [gone])
        merge_id = await merge_entities(
            tx,
            bank_id,
            keep=keep,
            gone=gone,
            reason=reason,
            by=by,
            evidence_json=evidence_json,
            review_id=pair_review,
        )
        # Recomputing the survivor rebuilds every CO_OCCURS edge it has from MENTIONS; its
        # neighbours' other edges are untouched by a merge, so they need nothing.
        await tx.run("resolve/recompute_entities", {"bank_id": bank_id, "ids": [keep]})
        await retype_entities(tx, bank_id, [keep])
        await refresh_lookup_fields(tx, bank_id, [keep])
        await refresh_fact_names(tx, bank_id, memory_ids)
        # The review being decided, and the pair's own review if one is open.
        settle = {review_id(bank_id, keep, gone), *([pair_review] if pair_review else [])}
        for rid in sorted(settle):
            await tx.run(
                "reviews/settle",
                {"bank_id": bank_id, "id": rid, "merge_id": merge_id, "reason": reason, "by": by},
            )
        return merge_id

    async def split(self, bank_id: str, entity_id: str, request: SplitRequest) -> EntityChange:
        """A new entity takes the mentions of ``request.memory_ids`` from ``entity_id``."""
        reason = clean_reason(request.reason)
        memory_ids = list(dict.fromkeys(request.memory_ids))
        now = datetime.now(UTC)
        split_id, created_id = str(uuid.uuid4()), str(uuid.uuid4())

        async def work(tx: Tx) -> str:
            (source,) = await self.require_entities(tx, bank_id, [entity_id])
            uses = await self._split_uses(tx, bank_id, source, memory_ids)
            claims = await self._claims(tx, bank_id, source.id)
            try:
                plan = plan_split(
                    claims,
                    uses,
                    source_key=source.name_key or "",
                    name=request.name,
                    now=now,
                )
            except ValueError as exc:
                raise InvalidInput(str(exc), extra={"field": "name"}) from None
            times = [u.at for u in uses if u.at is not None]
            await tx.run(
                "entities/split",
                {
                    "bank_id": bank_id,
                    "bank_key": bank_key(bank_id),
                    "split_id": split_id,
                    "source": source.id,
                    "memory_ids": memory_ids,
                    "surfaces": {},
                    "claim_refs": list(plan.move),
                    "reason": reason,
                    "by": "api",
                    "decided": True,
                    "trims_json": msgspec.json.encode(trim_records(plan)).decode(),
                    "entity": {
                        "id": created_id,
                        "canonical_name": plan.canonical,
                        "name_key": plan.canonical_key,
                        "first": min(times) if times else now,
                        "last": max(times) if times else now,
                    },
                },
            )
            await tx.run(
                "entities/add_claims",
                {
                    "bank_id": bank_id,
                    "bank_key": bank_key(bank_id),
                    "entity_id": created_id,
                    "claims": [msgspec.structs.asdict(c) for c in plan.new_claims],
                },
            )
            await tx.run(
                "entities/set_claims",
                {
                    "bank_id": bank_id,
                    "entity_id": source.id,
                    "updates": [
                        {
                            "ref": t.ref,
                            "memory_ids": t.memory_ids,
                            "first_memory_id": t.first_memory_id,
                        }
                        for t in plan.trims
                    ],
                },
            )
            await self._rebuild(tx, bank_id, [source.id, created_id], memory_ids)
            return source.id

        await self.settled(bank_id)
        source_id = await self._graph.write(bank_id, work)
        return EntityChange(
            record=await self.record(bank_id, split_id),
            entities=[await self.get(bank_id, source_id), await self.get(bank_id, created_id)],
        )

    async def revert(self, bank_id: str, record_id: str, request: RevertRequest) -> EntityChange:
        """Undo a merge or a split exactly; 409 when a later repair of its entities is active."""
        reason = clean_reason(request.reason)
        revert_id = str(uuid.uuid4())

        async def work(tx: Tx) -> list[str]:
            row = await tx.rows(
                "entities/record", {"bank_id": bank_id, "id": record_id}, _RecordRow
            )
            if not row:
                raise NotFound(f"entity merge {record_id!r} not found in bank {bank_id!r}")
            rec = row[0].record
            await self._check_revertible(tx, bank_id, rec)
            if rec.kind == "merge":
                assert rec.keep is not None and rec.gone is not None
                restored = [rec.keep, rec.gone]
                await self._revert_merge(tx, bank_id, rec, revert_id, reason)
            else:
                assert rec.source is not None and rec.created is not None
                restored = [rec.source]
                await self._revert_split(tx, bank_id, rec, revert_id, reason)
            return restored

        await self.settled(bank_id)
        restored = await self._graph.write(bank_id, work)
        return EntityChange(
            record=await self.record(bank_id, revert_id),
            entities=[await self.get(bank_id, eid) for eid in restored],
        )

    async def _check_revertible(self, tx: Tx, bank_id: str, rec: _RecordProps) -> None:
        if rec.kind == "revert":
            raise InvalidInput(
                f"{rec.id!r} is itself a revert: merge or split again instead",
                extra={"merge_id": rec.id},
            )
        if rec.state == "reverted":
            raise Conflict(
                f"{rec.kind} {rec.id!r} was already reverted (by {rec.reverted_by!r})",
                extra={"merge_id": rec.id, "reverted_by": rec.reverted_by},
            )
        involved = [x for x in (rec.keep, rec.gone, rec.source, rec.created) if x]
        blockers = await tx.rows(
            "entities/blockers",
            {"bank_id": bank_id, "id": rec.id, "seq": rec.seq or 0, "ids": involved},
            _BlockerRow,
        )
        if blockers:
            first = blockers[0].record
            raise Conflict(
                f"a later {first.kind} {first.id!r} involves the same entities: revert "
                + ", then ".join(repr(b.record.id) for b in blockers)
                + f" first, then {rec.id!r}",
                extra={"revert_first": [b.record.id for b in blockers]},
            )
        if rec.kind == "split":
            assert rec.created is not None
            state = await tx.rows(
                "entities/split_state",
                {"bank_id": bank_id, "id": rec.created, "split_id": rec.id},
                _SplitStateRow,
            )
            if not state:
                raise Conflict(f"the entity split off by {rec.id!r} no longer exists")
            if state[0].foreign_mentions or state[0].decided_reviews:
                raise Conflict(
                    f"entity {rec.created!r} was mentioned or reviewed since split {rec.id!r}: "
                    f"merge it into {rec.source!r} instead of reverting",
                    extra={"entity_id": rec.created, "into": rec.source},
                )

    async def _revert_merge(
        self, tx: Tx, bank_id: str, rec: _RecordProps, revert_id: str, reason: str
    ) -> None:
        assert rec.keep is not None and rec.gone is not None
        reviews = [r for r in (rec.review_id, review_id(bank_id, rec.keep, rec.gone)) if r]
        done = await tx.run(
            "entities/revert_merge",
            {
                "bank_id": bank_id,
                "merge_id": rec.id,
                "revert_id": revert_id,
                "reason": reason,
                "by": "api",
                "review_ids": reviews,
            },
        )
        if not done:
            raise Conflict(
                f"merge {rec.id!r} cannot be reverted: its entities changed outside the audit "
                "trail",
                extra={"merge_id": rec.id},
            )
        await tx.run(
            "entities/move_back",
            {"bank_id": bank_id, "record_id": rec.id, "from": rec.keep, "to": rec.gone},
        )
        memory_ids = await self._mentioning(tx, bank_id, [rec.gone])
        await self._rebuild(tx, bank_id, [rec.keep, rec.gone], memory_ids)

    async def _revert_split(
        self, tx: Tx, bank_id: str, rec: _RecordProps, revert_id: str, reason: str
    ) -> None:
        assert rec.source is not None and rec.created is not None
        memory_ids = await self._mentioning(tx, bank_id, [rec.created])
        await tx.run(
            "entities/move_back",
            {"bank_id": bank_id, "record_id": rec.id, "from": rec.created, "to": rec.source},
        )
        trims = msgspec.json.decode(rec.trims_json or "[]", type=list[TrimRecord])
        deleted = set(rec.memory_ids or ()) - set(memory_ids)
        updates = restore_trims(await self._claims(tx, bank_id, rec.source), trims, deleted)
        await tx.run(
            "entities/set_claims",
            {
                "bank_id": bank_id,
                "entity_id": rec.source,
                "updates": [msgspec.structs.asdict(u) for u in updates],
            },
        )
        await tx.run(
            "entities/revert_split",
            {
                "bank_id": bank_id,
                "split_id": rec.id,
                "revert_id": revert_id,
                "reason": reason,
                "by": "api",
            },
        )
        await self._rebuild(tx, bank_id, [rec.source], memory_ids)

    # -- helpers ------------------------------------------------------------------------------

    async def require_entities(
        self, tx: Tx, bank_id: str, ids: Sequence[str]
    ) -> list[StoredEntity]:
        """The entities, in order; NotFound naming the first missing one (or where it went)."""
        rows = await tx.rows("entities/brief", {"bank_id": bank_id, "ids": list(ids)}, _BriefRow)
        found = {r.id: r for r in rows}
        out = []
        for eid in ids:
            row = found.get(eid)
            if row is None or row.entity is None:
                await self._not_found(tx, bank_id, eid)
            assert row is not None and row.entity is not None
            out.append(row.entity)
        return out

    async def current_entity(self, tx: Tx, bank_id: str, entity_id: str) -> StoredEntity | None:
        """The entity ``entity_id`` is now: itself, or the one it was merged into (followed)."""
        current = entity_id
        for _ in range(MAX_MERGE_HOPS):
            rows = await tx.rows(
                "entities/brief", {"bank_id": bank_id, "ids": [current]}, _BriefRow
            )
            if not rows:
                return None
            row = rows[0]
            if row.entity is not None:
                return row.entity
            if row.merged_into is None:
                return None
            current = row.merged_into
        return None

    async def _not_found(self, runner: Graph | Tx, bank_id: str, entity_id: str) -> None:
        """Raise NotFound for an entity id, naming where a merged-away id went."""
        chain: list[tuple[str, str | None]] = []
        current = entity_id
        for _ in range(MAX_MERGE_HOPS):
            rows = await runner.rows(
                "entities/brief", {"bank_id": bank_id, "ids": [current]}, _BriefRow
            )
            row = rows[0] if rows else None
            if row is None or row.entity is not None or row.merged_into is None:
                break
            chain.append((row.merged_into, row.merge_id))
            current = row.merged_into
        if not chain:
            raise NotFound(f"entity {entity_id!r} not found in bank {bank_id!r}")
        into, merge_id = chain[0]
        final = chain[-1][0]
        later = f" (now part of {final!r})" if final != into else ""
        raise NotFound(
            f"entity {entity_id!r} was merged into {into!r} by merge {merge_id!r}{later}",
            extra={"merged_into": into, "merge_id": merge_id, "current_id": final},
        )

    async def _split_uses(
        self, tx: Tx, bank_id: str, source: StoredEntity, memory_ids: list[str]
    ) -> list[MentionUse]:
        rows = await tx.rows(
            "entities/split_uses",
            {"bank_id": bank_id, "id": source.id, "memory_ids": memory_ids, "surfaces": {}},
            _UsesRow,
        )
        row = rows[0]
        found = {u.memory_id for u in row.uses}
        missing = [m for m in memory_ids if m not in found]
        if missing:
            raise InvalidInput(
                f"{len(missing)} of memory_ids do not mention entity {source.id!r} "
                f"({source.canonical_name!r}): {', '.join(missing[:20])}",
                extra={"field": "memory_ids", "memory_ids": missing},
            )
        if len(found) >= row.total:
            raise InvalidInput(
                f"memory_ids are every fact that mentions entity {source.id!r}: nothing would "
                "remain of it (rename it, or merge it, instead)",
                extra={"field": "memory_ids"},
            )
        return [MentionUse(u.memory_id, u.surface or source.canonical_name, u.at) for u in row.uses]

    async def _claims(self, tx: Tx, bank_id: str, entity_id: str) -> list[StoredClaim]:
        rows = await tx.rows("entities/claims", {"bank_id": bank_id, "id": entity_id}, _ClaimRow)
        return [r.claim for r in rows]

    async def _mentioning(self, tx: Tx, bank_id: str, ids: Sequence[str]) -> list[str]:
        rows = await tx.run("entities/mentioning", {"bank_id": bank_id, "ids": list(ids)})
        return list(rows[0]["ids"]) if rows else []

    async def _rebuild(
        self, tx: Tx, bank_id: str, entity_ids: Sequence[str], memory_ids: Sequence[str]
    ) -> None:
        """Rebuild what derives from moved mentions and names.

        Counts, times and CO_OCCURS of the entities, the type their mentions now give by
        majority, their full-text lookup fields, and the keyword field of the facts whose
        mentions moved.
        """
        await tx.run("resolve/recompute_entities", {"bank_id": bank_id, "ids": list(entity_ids)})
        await retype_entities(tx, bank_id, entity_ids)
        await refresh_lookup_fields(tx, bank_id, entity_ids)
        await refresh_fact_names(tx, bank_id, memory_ids)


def _summary(e: StoredEntity) -> EntitySummary:
    return EntitySummary(
        id=e.id,
        name=e.canonical_name,
        type=e.type or None,
        mention_count=e.mention_count,
        first_seen=e.first_seen,
        last_seen=e.last_seen,
        is_label=e.is_label,
    )


def _detail(row: _DetailRow) -> EntityDetail:
    e = row.entity
    return EntityDetail(
        id=e.id,
        name=e.canonical_name,
        type=e.type or None,
        mention_count=e.mention_count,
        first_seen=e.first_seen,
        last_seen=e.last_seen,
        is_label=e.is_label,
        names=names_of(row.claims, e.name_key or ""),
        neighbours=row.neighbours,
        open_reviews=row.open_reviews,
        qualifiers=_qualifiers(e.id, row.said),
    )


def _record(props: _RecordProps) -> EntityMergeRecord:
    return EntityMergeRecord(
        id=props.id,
        kind=props.kind,
        state=props.state,
        reason=props.reason,
        by=props.by,
        created_at=props.created_at,
        seq=props.seq or 0,
        keep=props.keep,
        keep_name=props.keep_name,
        gone=props.gone,
        gone_name=props.gone_name,
        source=props.source,
        source_name=props.source_name,
        created=props.created,
        created_name=props.created_name,
        memory_ids=list(props.memory_ids or ()),
        review_id=props.review_id,
        evidence=decode_json(props.evidence_json),
        reverts=props.reverts,
        reverts_kind=props.reverts_kind,
        reverted_by=props.reverted_by,
        reverted_at=props.reverted_at,
    )


def decode_json(text: str | None) -> Any:
    """Stored JSON (evidence) as plain data; unreadable text is returned as it is."""
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _qualifiers(entity_id: str, said: Sequence[_SaidFact]) -> list[EntityQualifier]:
    """What the entity's facts state next to its names, one row per kind and value."""
    rows: dict[tuple[str, str], EntityQualifier] = {}
    for fact in sorted(said, key=lambda f: (f.at is None, f.at), reverse=True):
        surfaces = [m.text for m in fact.mentions]
        found = qualifiers_in(fact.content or "", surfaces, [m.type for m in fact.mentions])
        for mention, stated in zip(fact.mentions, found, strict=True):
            if mention.entity_id != entity_id:
                continue
            for q in stated:
                row = rows.get((q.kind, q.key))
                if row is None:
                    rows[(q.kind, q.key)] = EntityQualifier(
                        kind=q.kind,
                        value=q.text,
                        said_with=mention.text,
                        memory_ids=[fact.memory_id],
                        last_at=fact.at,
                    )
                elif fact.memory_id not in row.memory_ids:
                    row.memory_ids.append(fact.memory_id)
    return sorted(rows.values(), key=lambda q: (q.kind, -len(q.memory_ids), q.value))
