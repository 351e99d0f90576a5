"""Memories: list, inspect, edit, invalidate/restore, and the audit trail of each fact.

Edits keep the two stores honest the way retain does: everything graph-side happens in one
transaction after the bank lock (the fact is ``vector_pending`` when its vector must change),
then the vector store is updated and the fact confirmed; reconciliation finishes the job if the
process dies in between. How a fact leaves and re-enters the active graph is
``app.domain.lifecycle``'s business; docs/decisions/0006-curation.md says why.

An observation is derived from facts: a PATCH may invalidate or restore it (with a reason), never
rewrite it (correct its facts instead). An edited fact leaves its observations in the same write
and waits for consolidation again (decision 0011).
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt
from msgspec import UnsetType

from app.curate.cursor import EARLIEST, LATEST, decode_cursor, encode_cursor
from app.curate.schemas.memories import (
    Memory,
    MemoryEntity,
    MemoryFilter,
    MemoryHistory,
    MemoryPage,
    MemoryUpdate,
    MemoryWindow,
    Revision,
    SourceMemory,
    TagCount,
    TagPage,
)
from app.domain.banks import BankConfig, BankDirectory
from app.domain.dates import as_utc
from app.domain.defense import SecurityEvent, events_for, screen, violation_of
from app.domain.facts import ConsolidationState, MemoryState, RevisionKind
from app.domain.lifecycle import (
    NewRevision,
    add_revisions,
    attach_facts,
    claim_counts,
    detach_facts,
    release_counts,
    requeue_facts,
    withdraw_from_observations,
)
from app.domain.names import entity_names, name_key
from app.errors import Blocked, Conflict, InvalidInput, NotFound
from app.resolve.port import FactToResolve, MentionToResolve, ResolvedMention
from app.retain.defense import record_events
from app.retain.extract.extracted import ExtractedEntity, ExtractionInput
from app.retain.extract.port import ExtractionSettings
from app.retain.limits import check_text
from app.retain.links import Link
from app.retain.pipeline import LinkedFact, RetainPipeline
from app.retain.publish import mark_vectors_written
from app.store.embeddings import Embedder
from app.store.graph import Graph, Tx
from app.store.search_keys import bank_key, escape_lucene, searchable
from app.store.vectors import VectorPayload, VectorPoint, VectorStore

Vector = npt.NDArray[np.float32]

# An entity named by more facts than this lists them by scanning the bank's newest facts (a page
# fills within bank size / mentions rows); fewer are sorted, which costs their number.
HUB_MENTIONS = 2000
# Fields of a PATCH that change something (``reason`` and ``resolve_entities`` only qualify them).
EDITABLE_FIELDS = (
    "text",
    "context",
    "occurred_start",
    "occurred_end",
    "fact_type",
    "entities",
    "state",
)
# What a PATCH may change on an observation (the rest follows its source facts).
OBSERVATION_FIELDS = ("state", "reason")


# -- stored shapes ----------------------------------------------------------------------------


class _StoredMemory(msgspec.Struct):
    id: str
    text: str
    fact_type: str = "world"
    fact_kind: str | None = None
    context: str | None = None
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    document_id: str | None = None
    chunk_id: str | None = None
    metadata_json: str | None = None
    tags: list[str] | None = None
    state: MemoryState = "valid"
    state_reason: str | None = None
    state_changed_at: datetime | None = None
    proof_count: int | None = None
    edited_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    vector_pending: bool | None = None
    consolidation_state: ConsolidationState | None = None
    consolidated_at: datetime | None = None
    consolidation_failed_at: datetime | None = None
    consolidation_error: str | None = None


class _MemoryRow(msgspec.Struct):
    memory: _StoredMemory
    entities: list[MemoryEntity]
    source_ids: list[str] | None = None

    @property
    def is_observation(self) -> bool:
        return self.memory.fact_type == "observation"


class _SourceRow(msgspec.Struct):
    source: _StoredMemory


class _TagsRow(msgspec.Struct):
    total: int
    items: list[TagCount]


class _KeyRow(msgspec.Struct):
    id: str
    key: list[str]


class _TotalRow(msgspec.Struct):
    total: int


class _Mentions(msgspec.Struct):
    mentions: int | None = None


class _StoredRevision(msgspec.Struct):
    id: str
    at: datetime
    kind: RevisionKind
    reason: str | None = None
    fields: list[str] | None = None
    before_json: str | None = None
    after_json: str | None = None


class _RevisionRow(msgspec.Struct):
    revision: _StoredRevision


class _Plan(msgspec.Struct, kw_only=True):
    """What one PATCH changes, decided before the write (pure data)."""

    props: dict[str, Any]
    before: dict[str, Any]
    after: dict[str, Any]
    fact_type: str | None
    text_changed: bool
    time_changed: bool
    state: MemoryState
    state_changed: bool
    reason: str | None
    # Desired mentions: None when the mentions are not to be touched.
    mentions: list[MentionToResolve] | None
    # Old mentions kept as they are (entity id → surface), when mentions are touched.
    kept: dict[str, ResolvedMention]

    @property
    def vector_changed(self) -> bool:
        """Whether the stored vector or its filter payload must be rewritten."""
        return self.text_changed or self.time_changed or self.fact_type is not None


class MemoryService:
    """Listing, reading and curating the facts of a bank."""

    def __init__(
        self,
        *,
        graph: Graph,
        vectors: VectorStore,
        embedder: Embedder,
        banks: BankDirectory,
        retainer: RetainPipeline,
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._embedder = embedder
        self._banks = banks
        self._retainer = retainer
        # One edit at a time per bank in this process: an edit's vector is computed before its
        # transaction and written after it, so two edits of one fact must not interleave.
        self._edit_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    # -- read ---------------------------------------------------------------------------------

    async def page(
        self,
        bank_id: str,
        where: MemoryFilter,
        *,
        limit: int,
        offset: int,
        cursor: str | None = None,
    ) -> MemoryPage:
        """Facts matching ``where``, newest first, one page, with the total.

        The total is counted apart from the page: from the index alone without filters, by
        reading the candidates' properties with them. :meth:`window` is the page without it.
        """
        window = await self.window(bank_id, where, limit=limit, offset=offset, cursor=cursor)
        return MemoryPage(
            items=window.items,
            total=await self.count(bank_id, where),
            limit=limit,
            offset=offset,
            next_cursor=window.next_cursor,
        )

    async def window(
        self,
        bank_id: str,
        where: MemoryFilter,
        *,
        limit: int,
        offset: int = 0,
        cursor: str | None = None,
    ) -> MemoryWindow:
        """One page of facts matching ``where``, newest first, after ``cursor`` and ``offset``.

        Reads ``limit + 1`` rows in index order (or the text search's or entity's matches in
        order), so its cost follows the page, not the bank; ``next_cursor`` is set when more
        rows follow. Each fact's entities are the settled ones (decision 0018).
        """
        await self._banks.require(bank_id)
        await self._retainer.settled(bank_id)
        before, mentioned, after_id = (
            decode_cursor(cursor, 3) if cursor else [LATEST, EARLIEST, None]
        )
        lucene = _lucene(bank_id, where.q)
        params = {
            **_filter_params(bank_id, where),
            "before": before,
            "after_mentioned": mentioned,
            "after_id": after_id,
            "offset": offset,
            "limit": limit + 1,
        }
        if (
            lucene is None
            and where.document_id is None
            and await self._is_hub(bank_id, where.entity_id)
        ):
            params.update(entity_id=where.entity_id)
            rows = await self._graph.rows("memories/list", params, _KeyRow)
        else:
            params.update(lucene=lucene, entity_id=where.entity_id)
            rows = await self._graph.rows("memories/list_matches", params, _KeyRow)
        shown = rows[:limit]
        return MemoryWindow(
            items=await self._by_ids(bank_id, [r.id for r in shown]),
            next_cursor=encode_cursor(shown[-1].key) if len(rows) > limit else None,
        )

    async def _is_hub(self, bank_id: str, entity_id: str | None) -> bool:
        """Whether the bank's newest facts are read in order rather than the entity's sorted.

        True without an entity; for one named by more than ``HUB_MENTIONS`` facts, the scan
        meets a page of them within a few rows, where sorting them all costs the hub's size.
        """
        if entity_id is None:
            return True
        row = await self._graph.row(
            "memories/entity_mentions", {"bank_id": bank_id, "entity_id": entity_id}, _Mentions
        )
        return row is not None and (row.mentions or 0) > HUB_MENTIONS

    async def count(self, bank_id: str, where: MemoryFilter) -> int:
        """How many facts match ``where`` (from the index alone when nothing filters)."""
        await self._banks.require(bank_id)
        if _filters_nothing(where):
            row = await self._graph.row("memories/total", {"bank_id": bank_id}, _TotalRow)
        else:
            params = {
                **_filter_params(bank_id, where),
                "lucene": _lucene(bank_id, where.q),
                "entity_id": where.entity_id,
            }
            row = await self._graph.row("memories/count", params, _TotalRow)
        return row.total if row else 0

    async def get(self, bank_id: str, memory_id: str) -> Memory:
        """One fact (valid or invalidated); NotFound when it is not in this bank.

        An observation comes with its sources resolved (``source_memories``). Its entities are
        the settled ones (decision 0018).
        """
        await self._retainer.settled(bank_id)
        row = await self._stored(bank_id, memory_id)
        if not row.is_observation:
            return _to_memory(row)
        sources = await self._graph.rows(
            "observations/sources", {"bank_id": bank_id, "memory_id": memory_id}, _SourceRow
        )
        return msgspec.structs.replace(
            _to_memory(row), source_memories=[_to_source(r.source) for r in sources]
        )

    async def history(self, bank_id: str, memory_id: str) -> MemoryHistory:
        """The fact's revisions, oldest first."""
        await self._stored(bank_id, memory_id)
        rows = await self._graph.rows(
            "memories/history", {"bank_id": bank_id, "memory_id": memory_id}, _RevisionRow
        )
        return MemoryHistory(memory_id=memory_id, items=[_to_revision(r.revision) for r in rows])

    async def tags(self, bank_id: str, *, q: str | None, limit: int, offset: int) -> TagPage:
        """The bank's tags on valid memories, most used first (``q``: those containing it)."""
        await self._banks.require(bank_id)
        row = await self._graph.row(
            "memories/tags",
            {"bank_id": bank_id, "q": q or None, "limit": limit, "offset": offset},
            _TagsRow,
        )
        total, items = (row.total, row.items) if row else (0, [])
        return TagPage(items=items, total=total, limit=limit, offset=offset)

    # -- edit ---------------------------------------------------------------------------------

    async def update(self, bank_id: str, memory_id: str, patch: MemoryUpdate) -> Memory:
        """Apply a PATCH: edit fields, re-resolve mentions, rebuild links, change state.

        Editing an invalidated fact is allowed: it stays invalidated, and the edit is what a
        later restore brings back. It acts on the settled bank (decision 0018).
        """
        _check_patch(patch)
        bank = await self._banks.config(bank_id)
        await self._retainer.settled(bank_id)
        async with self._edit_locks[bank_id]:
            current = await self._stored(bank_id, memory_id)
            patch = await self._defend(bank, memory_id, patch)
            if current.is_observation:
                return await self._update_observation(bank_id, current, patch)
            extracted = await self._extract_entities(bank, current, patch)
            plan = _plan(current, patch, extracted)
            if not (plan.props or plan.state_changed or plan.mentions is not None):
                return _to_memory(current)
            text = plan.props.get("text", current.memory.text)
            vector = (await self._embedder.embed([text]))[0] if plan.vector_changed else None
            semantic = (
                await self._retainer.semantic_links(bank_id, [memory_id], vector[None, :])
                if vector is not None and plan.text_changed
                else []
            )
            now = datetime.now(UTC)

            async def work(tx: Tx) -> None:
                await self._check_unchanged(tx, bank_id, current)
                changed_mentions = await self._write(tx, bank, current, plan, semantic, now)
                revision = _revision(current, plan, changed_mentions, now)
                # Sent values equal to the stored ones change nothing and record nothing.
                if revision.before or revision.after:
                    await add_revisions(tx, bank_id, [revision])

            await self._graph.write(bank_id, work)
            await self._publish(bank_id, current, plan, vector)
        return await self.get(bank_id, memory_id)

    async def _defend(self, bank: BankConfig, memory_id: str, patch: MemoryUpdate) -> MemoryUpdate:
        """Size limits and memory defense for edited text, as retain applies them."""
        if isinstance(patch.text, str):
            check_text(patch.text, self._retainer.limits, "text")
        changes: dict[str, str] = {}
        events: list[SecurityEvent] = []
        now = datetime.now(UTC)
        for field in ("text", "context"):
            value = getattr(patch, field)
            if not isinstance(value, str):
                continue
            screened = screen(value, bank.defense)
            events += events_for(
                screened,
                field=field,
                index=0,
                at=now,
                source="memory_edit",
                new_id=lambda: str(uuid.uuid4()),
                memory_id=memory_id,
            )
            changes[field] = screened.text
        await record_events(self._graph, bank.id, events)
        blocked = [violation_of(e) for e in events if e.action == "blocked"]
        if blocked:
            raise Blocked(
                "the edit was blocked by the bank's memory defense",
                extra={"violations": msgspec.to_builtins(blocked)},
            )
        return msgspec.structs.replace(patch, **changes) if events else patch

    async def _write(
        self,
        tx: Tx,
        bank: BankConfig,
        current: _MemoryRow,
        plan: _Plan,
        semantic: Sequence[Link],
        now: datetime,
    ) -> tuple[list[MemoryEntity], list[MemoryEntity]] | None:
        """The graph side of an edit; returns (before, after) mentions when they changed."""
        memory = current.memory
        ids = [memory.id]
        active = memory.state == "valid"
        relink = plan.text_changed or "occurred_start" in plan.props or plan.mentions is not None
        if not active and (relink or plan.state == "valid"):
            # Links and mentions are rebuilt on the active graph; an edited fact that stays
            # invalidated is detached again below, so the edit is what a restore brings back.
            await attach_facts(tx, bank.id, ids)
            active = True
        changed = None
        if plan.mentions is not None:
            changed = await self._rewrite_mentions(tx, bank, current, plan, plan.mentions)
        if plan.props or changed is not None:
            await tx.run(
                "memories/update_fields",
                {
                    "bank_id": bank.id,
                    "memory_id": memory.id,
                    "props": plan.props,
                    "fact_type": plan.fact_type,
                    "edited_at": now,
                    "pending": plan.vector_changed,
                },
            )
        if plan.text_changed:
            await _unlink(tx, bank.id, memory.id, "SEMANTIC")
            await self._retainer.write_links(tx, bank.id, [], semantic)
        if "occurred_start" in plan.props:
            # Temporal links hang on the event's start (as retain builds them).
            await _unlink(tx, bank.id, memory.id, "TEMPORAL")
            start = plan.props.get("occurred_start", memory.occurred_start)
            if start is not None:
                linked = [LinkedFact(memory.id, start)]
                await self._retainer.write_links(tx, bank.id, linked, [])
        if plan.state == "invalidated" and active:
            await detach_facts(tx, bank.id, ids, now)
        elif active and _changes_claim(plan, changed):
            # What the fact says changed: it leaves its observations and is consolidated again.
            await withdraw_from_observations(tx, bank.id, ids, at=now, why="edited")
            await requeue_facts(tx, bank.id, ids)
        if plan.state_changed:
            await tx.run(
                "memories/set_state",
                {
                    "bank_id": bank.id,
                    "memory_ids": ids,
                    "state": plan.state,
                    "reason": plan.reason,
                    "at": now,
                },
            )
            if plan.state == "valid":
                # A restored fact is consolidated again (it left its observations).
                await requeue_facts(tx, bank.id, ids)
        return changed

    async def _update_observation(
        self, bank_id: str, current: _MemoryRow, patch: MemoryUpdate
    ) -> Memory:
        """Invalidate or restore an observation (nothing else of it can be edited).

        Invalidating archives its mentions (it counts nothing, so no count moves); restoring
        needs a valid source left, and rebuilds its proof count and mentions from its sources.
        """
        sent = [
            f
            for f in EDITABLE_FIELDS
            if f not in OBSERVATION_FIELDS and not isinstance(getattr(patch, f), UnsetType)
        ]
        if sent:
            raise InvalidInput(
                "an observation is derived from facts and cannot be edited: correct its source "
                f"facts instead (PATCH them; consolidation rewrites the observation); not {sent}",
                extra={"field": sent[0], "source_memory_ids": current.source_ids or []},
            )
        memory = current.memory
        state = memory.state if isinstance(patch.state, UnsetType) else patch.state
        if state == memory.state:
            return _to_memory(current)
        reason = None if isinstance(patch.reason, UnsetType) else patch.reason
        if state == "valid" and not current.source_ids:
            raise Conflict(
                "this observation has no valid source fact left: it cannot be restored",
                extra={"memory_id": memory.id},
            )
        now = datetime.now(UTC)
        ids = [memory.id]

        async def work(tx: Tx) -> None:
            await self._check_unchanged(tx, bank_id, current)
            params = {"bank_id": bank_id, "memory_ids": ids}
            if state == "invalidated":
                await tx.run("memories/archive_links", {**params, "at": now})
            else:
                await tx.run("memories/restore_links", params)
            await tx.run(
                "memories/set_state",
                {
                    "bank_id": bank_id,
                    "memory_ids": ids,
                    "state": state,
                    "reason": reason,
                    "at": now,
                },
            )
            if state == "valid":
                await tx.run("observations/refresh", {"bank_id": bank_id, "observation_ids": ids})
            kind: RevisionKind = "invalidate" if state == "invalidated" else "restore"
            await add_revisions(
                tx,
                bank_id,
                [
                    NewRevision(
                        memory_id=memory.id,
                        at=now,
                        kind=kind,
                        reason=reason,
                        before={"state": memory.state, "state_reason": memory.state_reason},
                        after={"state": state, "state_reason": reason},
                    )
                ],
            )

        await self._graph.write(bank_id, work)
        await self._vectors.set_state(bank_id, ids, state)
        await self._vectors.flush()
        await mark_vectors_written(self._graph, bank_id, ids)
        return await self.get(bank_id, memory.id)

    async def _rewrite_mentions(
        self,
        tx: Tx,
        bank: BankConfig,
        current: _MemoryRow,
        plan: _Plan,
        wanted: Sequence[MentionToResolve],
    ) -> tuple[list[MemoryEntity], list[MemoryEntity]] | None:
        """Resolve the new names, then swap the fact's MENTIONS with exact count bookkeeping.

        Returns the mentions before and after, or None when they did not change.
        """
        memory = current.memory
        text = plan.props.get("text", memory.text)
        known = _keys_of(plan.kept.values())
        fresh = [m for m in wanted if name_key(m.text) not in known]
        resolved: list[ResolvedMention] = []
        if fresh:
            at = memory.mentioned_at or datetime.now(UTC)
            [resolved] = await self._retainer.resolver.resolve(
                tx,
                bank,
                [FactToResolve(memory_id=memory.id, at=at, content=text, mentions=tuple(fresh))],
            )
        new = _distinct([*plan.kept.values(), *resolved])
        before = current.entities
        after = [
            MemoryEntity(id=r.entity_id, name=r.canonical_name, mention=r.mention) for r in new
        ]
        if {(e.id, e.mention) for e in before} == {(e.id, e.mention) for e in after}:
            return None
        ids = [memory.id]
        # Counts are released from the old MENTIONS and claimed from the new ones, so pairs and
        # entities the edit keeps end exactly where they were.
        await release_counts(tx, bank.id, ids)
        await tx.run(
            "memories/replace_mentions",
            {
                "bank_id": bank.id,
                "memory_id": memory.id,
                "mentions": [{"entity_id": r.entity_id, "mention": r.mention} for r in new],
                "entity_names": entity_names(new),
            },
        )
        await claim_counts(tx, bank.id, ids)
        dropped = sorted({e.id for e in before} - {e.id for e in after})
        if dropped:
            # The fact no longer backs the names it gave dropped entities; the entities stay
            # (mention_count may be 0), findable by their canonical name.
            await tx.run(
                "memories/prune_names",
                {"bank_id": bank.id, "memory_ids": ids, "entity_ids": dropped},
            )
        return before, sorted(after, key=lambda e: (e.name, e.id))

    async def _publish(
        self, bank_id: str, current: _MemoryRow, plan: _Plan, vector: Vector | None
    ) -> None:
        """Bring the vector store in line, then confirm (the fact stops being pending)."""
        memory = current.memory
        if vector is not None:
            payload = VectorPayload(
                bank_id=bank_id,
                fact_type=plan.fact_type or memory.fact_type,
                state=plan.state,
                tags=tuple(memory.tags or ()),
                occurred_start=_ts(plan.props.get("occurred_start", memory.occurred_start)),
                occurred_end=_ts(plan.props.get("occurred_end", memory.occurred_end)),
                mentioned_at=_ts(memory.mentioned_at),
            )
            await self._vectors.upsert(
                [VectorPoint(id=memory.id, vector=vector.tolist(), payload=payload)]
            )
        elif plan.state_changed:
            await self._vectors.set_state(bank_id, [memory.id], plan.state)
        else:
            return
        await self._vectors.flush()
        await mark_vectors_written(self._graph, bank_id, [memory.id])

    async def _extract_entities(
        self, bank: BankConfig, current: _MemoryRow, patch: MemoryUpdate
    ) -> list[ExtractedEntity] | None:
        """Entities of an edited text, found the way this bank's extraction finds them.

        Only needed when the text changes and the caller did not send ``entities``.
        """
        if isinstance(patch.text, UnsetType) or patch.text == current.memory.text:
            return None
        if not isinstance(patch.entities, UnsetType):
            return None
        mode = bank.retain_extraction_mode
        extractor = self._retainer.extractor(
            mode,
            remedy="send `entities` with the new text to skip extraction",
        )
        results = await extractor.extract(
            [
                ExtractionInput(
                    text=patch.text,
                    timestamp=current.memory.mentioned_at,
                    context=current.memory.context,
                )
            ],
            ExtractionSettings(
                mode=mode,
                mission=bank.retain_mission,
                custom_instructions=bank.retain_custom_instructions,
            ),
        )
        found: dict[str, ExtractedEntity] = {}
        for fact in results[0].facts if results else ():
            for entity in fact.entities:
                found.setdefault(name_key(entity.text), entity)
        found.pop("", None)
        return list(found.values())

    # -- helpers ------------------------------------------------------------------------------

    async def _stored(self, bank_id: str, memory_id: str) -> _MemoryRow:
        rows = await self._graph.rows(
            "memories/by_ids", {"bank_id": bank_id, "ids": [memory_id]}, _MemoryRow
        )
        if not rows:
            await self._banks.require(bank_id)
            raise NotFound(f"memory {memory_id!r} not found in bank {bank_id!r}")
        return rows[0]

    async def _by_ids(self, bank_id: str, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        rows = await self._graph.rows(
            "memories/by_ids", {"bank_id": bank_id, "ids": list(ids)}, _MemoryRow
        )
        return [_to_memory(r) for r in rows]

    async def _check_unchanged(self, tx: Tx, bank_id: str, current: _MemoryRow) -> None:
        """Refuse to apply an edit planned on a version of the fact that has since changed."""
        rows = await tx.rows(
            "memories/by_ids", {"bank_id": bank_id, "ids": [current.memory.id]}, _MemoryRow
        )
        if not rows:
            raise NotFound(f"memory {current.memory.id!r} not found in bank {bank_id!r}")
        now, then = rows[0], current
        if (now.memory.text, now.memory.state, now.memory.edited_at, now.entities) != (
            then.memory.text,
            then.memory.state,
            then.memory.edited_at,
            then.entities,
        ):
            raise Conflict("the memory changed while this edit was prepared; send it again")


async def _unlink(tx: Tx, bank_id: str, memory_id: str, link_type: str) -> None:
    await tx.run(
        "memories/unlink", {"bank_id": bank_id, "memory_id": memory_id, "types": [link_type]}
    )


# -- pure helpers -----------------------------------------------------------------------------


def _check_patch(patch: MemoryUpdate) -> None:
    sent = [f for f in EDITABLE_FIELDS if not isinstance(getattr(patch, f), UnsetType)]
    if not sent:
        raise InvalidInput(
            "send at least one field to change: " + ", ".join(EDITABLE_FIELDS),
            extra={"fields": list(EDITABLE_FIELDS)},
        )
    if isinstance(patch.text, str) and not patch.text.strip():
        raise InvalidInput("text must not be blank", extra={"field": "text"})


def _plan(
    current: _MemoryRow, patch: MemoryUpdate, extracted: list[ExtractedEntity] | None
) -> _Plan:
    """Decide what a PATCH changes against the stored fact (no I/O)."""
    memory = current.memory
    props: dict[str, Any] = {}
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}

    def change(field: str, old: Any, new: Any) -> None:
        if new != old:
            props[field] = new
            before[field] = old
            after[field] = new

    if not isinstance(patch.text, UnsetType):
        change("text", memory.text, patch.text)
    if not isinstance(patch.context, UnsetType):
        change("context", memory.context, patch.context)
    start = (
        as_utc(patch.occurred_start) if not isinstance(patch.occurred_start, UnsetType) else None
    )
    end = as_utc(patch.occurred_end) if not isinstance(patch.occurred_end, UnsetType) else None
    if start is not None:
        change("occurred_start", memory.occurred_start, start)
    if end is not None:
        change("occurred_end", memory.occurred_end, end)
    new_start = start or memory.occurred_start
    new_end = end or memory.occurred_end
    if new_start and new_end and new_end < new_start:
        field = "occurred_end" if end is not None else "occurred_start"
        raise InvalidInput(
            "occurred_end must not be before occurred_start",
            extra={"field": field, "occurred_start": str(new_start), "occurred_end": str(new_end)},
        )
    fact_type = None
    if not isinstance(patch.fact_type, UnsetType) and patch.fact_type != memory.fact_type:
        if memory.fact_type == "observation":
            raise InvalidInput(
                "an observation's type cannot be changed", extra={"field": "fact_type"}
            )
        fact_type = patch.fact_type
        change("fact_type", memory.fact_type, fact_type)
    state: MemoryState = memory.state if isinstance(patch.state, UnsetType) else patch.state
    reason = None if isinstance(patch.reason, UnsetType) else patch.reason
    state_changed = state != memory.state
    if state_changed:
        before.update(state=memory.state, state_reason=memory.state_reason)
        after.update(state=state, state_reason=reason)
    mentions, kept = _mention_plan(current, patch, extracted, props.get("text"))
    return _Plan(
        props=props,
        before=before,
        after=after,
        fact_type=fact_type,
        text_changed="text" in props,
        time_changed="occurred_start" in props or "occurred_end" in props,
        state=state,
        state_changed=state_changed,
        reason=reason,
        mentions=mentions,
        kept=kept,
    )


def _mention_plan(
    current: _MemoryRow,
    patch: MemoryUpdate,
    extracted: list[ExtractedEntity] | None,
    new_text: str | None,
) -> tuple[list[MentionToResolve] | None, dict[str, ResolvedMention]]:
    """Which mentions the fact should have after the PATCH, and which old ones are kept as is.

    A name the fact already mentions keeps its entity (no re-resolution that could flip an
    identity decided earlier); only new names go through the resolver.
    """
    resolve = True if isinstance(patch.resolve_entities, UnsetType) else patch.resolve_entities
    old = {e.id: e for e in current.entities}
    if not isinstance(patch.entities, UnsetType):
        wanted = [
            MentionToResolve(text=h.text, type=h.type or "", resolve=resolve)
            for h in patch.entities
        ]
        kept: dict[str, ResolvedMention] = {}
        for hint in wanted:
            key = name_key(hint.text)
            for entity in old.values():
                if key and key in (name_key(entity.name), name_key(entity.mention or "")):
                    kept.setdefault(entity.id, _resolved(entity, surface=hint.text))
        return wanted, kept
    if new_text is None or extracted is None:
        return None, {}
    # The text changed: old mentions still named in it stay, names found in it are added.
    kept = {
        e.id: _resolved(e, surface=e.mention or e.name)
        for e in old.values()
        if _named_in(new_text, e.mention or "") or _named_in(new_text, e.name)
    }
    wanted = [
        *(MentionToResolve(text=k.mention, type=k.type) for k in kept.values()),
        *(
            MentionToResolve(text=e.text, type=e.type, aliases=e.aliases, resolve=resolve)
            for e in extracted
        ),
    ]
    return wanted, kept


def _resolved(entity: MemoryEntity, *, surface: str) -> ResolvedMention:
    return ResolvedMention(
        entity_id=entity.id, canonical_name=entity.name, mention=surface, type=entity.type or ""
    )


def _keys_of(entities: Iterable[ResolvedMention]) -> set[str]:
    keys: set[str] = set()
    for r in entities:
        keys.add(name_key(r.mention))
        keys.add(name_key(r.canonical_name))
    return keys


def _distinct(entities: Sequence[ResolvedMention]) -> list[ResolvedMention]:
    """One mention per entity (the first surface wins), as retain writes them."""
    seen: set[str] = set()
    out = []
    for r in entities:
        if r.entity_id not in seen:
            seen.add(r.entity_id)
            out.append(r)
    return out


def _named_in(text: str, name: str) -> bool:
    """Whether ``name`` appears in ``text`` as a whole word (case and width insensitive)."""
    needle = unicodedata.normalize("NFKC", name).casefold().strip()
    if not needle:
        return False
    hay = unicodedata.normalize("NFKC", text).casefold()
    # Word boundaries only where the name starts/ends with a Latin letter or digit: scripts
    # written without spaces (CJK) have no boundary to look for.
    head = r"(?<!\w)" if needle[0].isascii() and needle[0].isalnum() else ""
    tail = r"(?!\w)" if needle[-1].isascii() and needle[-1].isalnum() else ""
    return re.search(head + re.escape(needle) + tail, hay) is not None


def _revision(
    current: _MemoryRow,
    plan: _Plan,
    mentions: tuple[list[MemoryEntity], list[MemoryEntity]] | None,
    now: datetime,
) -> NewRevision:
    before, after = dict(plan.before), dict(plan.after)
    if mentions is not None:
        before["entities"] = [msgspec.structs.asdict(e) for e in mentions[0]]
        after["entities"] = [msgspec.structs.asdict(e) for e in mentions[1]]
    kind: RevisionKind = "edit"
    if plan.state_changed:
        kind = "invalidate" if plan.state == "invalidated" else "restore"
    return NewRevision(
        memory_id=current.memory.id,
        at=now,
        kind=kind,
        reason=plan.reason,
        before=before,
        after=after,
    )


def _changes_claim(
    plan: _Plan, mentions: tuple[list[MemoryEntity], list[MemoryEntity]] | None
) -> bool:
    """Whether an edit changes what the fact says (its text, dates, type or entities)."""
    return plan.text_changed or plan.time_changed or plan.fact_type is not None or bool(mentions)


def _ts(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def _filters_nothing(where: MemoryFilter) -> bool:
    """Whether ``where`` keeps every fact of the bank (``tags_match`` alone filters nothing)."""
    return not (
        where.types
        or (where.q and where.q.strip())
        or where.states
        or where.document_id
        or where.entity_id
        or where.tags
        or where.consolidation_states
    )


def _filter_params(bank_id: str, where: MemoryFilter) -> dict[str, Any]:
    """The listing statements' filter parameters (None: the filter is off)."""
    return {
        "bank_id": bank_id,
        "types": list(where.types) if where.types else None,
        "states": list(where.states) if where.states else None,
        "document_id": where.document_id,
        "tags": list(where.tags) if where.tags else None,
        "tags_match": where.tags_match,
        "consolidation_states": (
            list(where.consolidation_states) if where.consolidation_states else None
        ),
    }


def _lucene(bank_id: str, q: str | None) -> str | None:
    """A full-text query scoped to the bank, over fact text and entity names, user text escaped."""
    if q is None or not q.strip():
        return None
    if not searchable(q):
        raise InvalidInput(
            "q has no word to search for (only stop words, operators or punctuation)",
            extra={"field": "q"},
        )
    words = escape_lucene(q.strip())
    return f"bank_key:{bank_key(bank_id)} AND (text:({words}) OR entity_names:({words}))"


def _to_memory(row: _MemoryRow) -> Memory:
    m = row.memory
    return Memory(
        id=m.id,
        text=m.text,
        type=m.fact_type,
        fact_kind=m.fact_kind,
        context=m.context,
        occurred_start=m.occurred_start,
        occurred_end=m.occurred_end,
        mentioned_at=m.mentioned_at,
        document_id=m.document_id,
        chunk_id=m.chunk_id,
        metadata=msgspec.json.decode(m.metadata_json) if m.metadata_json else None,
        tags=list(m.tags or ()),
        mentions=row.entities,
        state=m.state,
        state_reason=m.state_reason,
        state_changed_at=m.state_changed_at,
        proof_count=m.proof_count if m.proof_count is not None else 1,
        edited_at=m.edited_at,
        created_at=m.created_at,
        updated_at=m.updated_at,
        source_memory_ids=sorted(row.source_ids) if row.source_ids is not None else None,
        consolidation_state=m.consolidation_state,
        consolidated_at=m.consolidated_at,
        consolidation_failed_at=m.consolidation_failed_at,
        consolidation_error=m.consolidation_error,
    )


def _to_source(m: _StoredMemory) -> SourceMemory:
    return SourceMemory(
        id=m.id,
        text=m.text,
        type=m.fact_type,
        context=m.context,
        occurred_start=m.occurred_start,
        occurred_end=m.occurred_end,
        mentioned_at=m.mentioned_at,
        document_id=m.document_id,
        state=m.state,
    )


def _to_revision(r: _StoredRevision) -> Revision:
    return Revision(
        id=r.id,
        at=r.at,
        kind=r.kind,
        reason=r.reason,
        fields=list(r.fields or ()),
        before=msgspec.json.decode(r.before_json) if r.before_json else {},
        after=msgspec.json.decode(r.after_json) if r.after_json else {},
    )
