"""The retain pipeline: items become documents, chunks, facts, entities, links and vectors.

Phases, in this order (the order is what keeps the two stores honest):

1. prepare (per request, no lock): check limits, plan each document against its stored
   chunks, extract the chunks that changed, embed the new facts;
2. write (one Neo4j transaction, bank lock first): documents and chunks, retired facts, entity
   resolution, facts (``vector_pending``), mentions, co-occurrences, temporal and causal
   links — all or nothing;
3. publish (no bank lock): find the new facts' semantic neighbours in the vector store and
   upsert their vectors, flush, then one transaction writes the semantic links and clears
   ``vector_pending``. Recall ignores pending facts; if the process dies before this phase
   ends, reconciliation finishes it, links included.

Write and publish serve a group of requests: the prepared requests of a bank that wait while
its write runs share the next write and its publish (group commit, ``group_commit.py``), and
each still gets its own answer, once its group is written: the publish runs behind the answer,
and recall waits for the bank's publishes in flight (decision 0019). Semantic links wait for
the publish because they are most of what a write creates (up to 50 a fact) and need no
resolved entity: written outside the bank lock, they do not hold up the next write of the
bank (decision 0008). A bank's publishes search and upsert one at a time, so every group
finds the facts of the groups published before it, however the requests were grouped.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol

import msgspec
import numpy as np
import numpy.typing as npt

from app.domain.banks import BankConfig, BankDirectory
from app.domain.dates import as_utc
from app.domain.lifecycle import retire_facts
from app.domain.names import entity_names, name_key
from app.errors import NotFound, Unavailable
from app.resolve.port import (
    EntityResolver,
    FactToResolve,
    MentionToResolve,
    PendingSettle,
    ResolvedMention,
)
from app.resolve.settle_store import MarkedFact, pending_of_marked
from app.resolve.supplied_aliases import aliases_stated_for
from app.retain.chunking import Chunk, content_hash, split_content
from app.retain.defense import ScreenedItems, record_events, refuse_if_all_blocked, screen_items
from app.retain.documents import DocumentPlan, StoredDocument, plan_document
from app.retain.extract.extracted import (
    ExtractedEntity,
    ExtractedFact,
    ExtractionInput,
    ExtractionResult,
)
from app.retain.extract.port import ExtractionSettings, Extractor
from app.retain.group_commit import GroupCommitter, GroupLimits
from app.retain.labels import check_entity_labels
from app.retain.limits import RetainLimits, check_items
from app.retain.links import DEFAULT_LINKS, Link, LinkPolicy, by_source, temporal_weight
from app.retain.publish import publish_facts
from app.retain.schemas import ItemOutcome, RetainItem, RetainResponse, Usage
from app.retain.semantic import SemanticLinkFinder
from app.retain.settle_behind import SettleBehind, SettleTiming
from app.store.embeddings import Embedder
from app.store.graph import Graph, KeyedLocks, Tx, cypher_datetime
from app.store.search_keys import bank_key, tag_tokens
from app.store.vectors import VectorPayload, VectorPoint, VectorStore

log = logging.getLogger(__name__)

# Test-only fault injection (MNEMO_FAULT_INJECTION): die between the graph and the vector write.
CRASH_AFTER_GRAPH_WRITE = "crash_after_graph_write"


class PreparedFact(msgspec.Struct, kw_only=True):
    """A new fact with everything needed to write it."""

    id: str
    item_index: int
    document_id: str
    chunk_id: str
    fact: ExtractedFact
    mentioned_at: datetime
    context: str | None
    tags: tuple[str, ...]
    metadata_json: str | None
    resolve: bool
    caused_by: tuple[str, ...] = ()

    @property
    def occurred_start(self) -> datetime:
        """Event time; the mention time when the text gave none."""
        return self.fact.occurred_start or self.mentioned_at

    @property
    def occurred_end(self) -> datetime:
        """End of the event; its start when the text gave none."""
        return self.fact.occurred_end or self.occurred_start


class PreparedItem(msgspec.Struct, kw_only=True):
    """One item after planning and extraction."""

    index: int
    item: RetainItem
    plan: DocumentPlan
    facts: list[PreparedFact] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    retired_memory_ids: list[str] = msgspec.field(default_factory=list)


class LinkedFact(msgspec.Struct, frozen=True):
    """What link building needs of a fact: its id, event time and the facts it was caused by."""

    id: str
    occurred_start: datetime
    caused_by: tuple[str, ...] = ()


class WriteHooks(Protocol):
    """Work a caller adds to the retain write transaction (document reprocessing).

    ``before_write`` runs right after the bank lock, before anything of the batch is written;
    ``after_write`` runs last, before the commit. Both share the batch's atomicity.
    """

    async def before_write(self, tx: Tx, bank_id: str) -> None:
        """Run before the batch is written."""

    async def after_write(self, tx: Tx, bank_id: str) -> None:
        """Run after the batch is written."""


class PreparedRequest(msgspec.Struct, kw_only=True):
    """One retain request after the prepare phase: all its write and publish need."""

    bank: BankConfig
    items: list[PreparedItem]
    fresh: list[PreparedFact]
    vectors: npt.NDArray[np.float32]
    usage: Usage
    hooks: WriteHooks | None = None

    @property
    def facts(self) -> int:
        """New facts the request writes."""
        return len(self.fresh)

    @property
    def document_ids(self) -> frozenset[str]:
        """The documents the request writes."""
        return frozenset(p.plan.document_id for p in self.items)

    @property
    def alone(self) -> bool:
        """A request with hooks has work of its own in the transaction: it is written alone."""
        return self.hooks is not None


class _StoredDocRow(msgspec.Struct):
    document_id: str
    content_hash: str
    chunks: list[dict[str, object]]


class RetainPipeline:
    """Retains a batch of items into one bank."""

    def __init__(
        self,
        *,
        graph: Graph,
        vectors: VectorStore,
        embedder: Embedder,
        banks: BankDirectory,
        extractors: dict[str, Extractor],
        resolver: EntityResolver,
        limits: RetainLimits,
        links: LinkPolicy = DEFAULT_LINKS,
        groups: GroupLimits | None = None,
        settle: SettleTiming | None = None,
        fault_injection: str | None = None,
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._embedder = embedder
        self._banks = banks
        self._extractors = extractors
        self._resolver = resolver
        self._limits = limits
        self._links = links
        self._semantic = SemanticLinkFinder(vectors, links)
        self._fault = fault_injection
        self._committer = GroupCommitter[PreparedRequest](
            write=self._write, publish=self._publish, limits=groups or GroupLimits()
        )
        self._publishers = KeyedLocks()
        # Held by a bank's publish transactions and by its settles' writes: see ``_settle``.
        self._publish_transactions = KeyedLocks()
        self._settles = SettleBehind(self._settle, settle or SettleTiming())

    @property
    def resolver(self) -> EntityResolver:
        """The entity resolver retain uses (memory edits resolve through the same one)."""
        return self._resolver

    @property
    def link_policy(self) -> LinkPolicy:
        """The numbers behind temporal and semantic links."""
        return self._links

    def extractor(
        self,
        mode: str,
        *,
        remedy: str = "set the bank's retain_extraction_mode to 'local' or 'chunks'",
    ) -> Extractor:
        """The extractor of one extraction mode; ``Unavailable`` (503) naming ``remedy`` if none.

        A bank set to an LLM mode on a server that had an LLM can be read by one that has none.
        """
        found = self._extractors.get(mode)
        if found is None:
            raise Unavailable(
                f"extraction mode {mode!r} is not available on this server (an LLM mode needs "
                f"MNEMO_LLM_BASE_URL); {remedy}"
            )
        return found

    def check(self, items: Sequence[RetainItem]) -> None:
        """Validate a request before anything is written (raises InvalidInput/PayloadTooLarge)."""
        check_items(items, self._limits)

    @property
    def limits(self) -> RetainLimits:
        """The configured size limits (memory edits obey them too)."""
        return self._limits

    async def screen(self, bank_id: str, items: Sequence[RetainItem]) -> ScreenedItems:
        """Check ``items`` and apply the bank's memory defense before anything is stored.

        Events are recorded; a 422 (``Blocked``) when every item is blocked.
        """
        bank = await self._banks.config(bank_id)
        self.check(items)
        screened = screen_items(items, bank.defense)
        await record_events(self._graph, bank_id, screened.events)
        refuse_if_all_blocked(screened)
        return screened

    async def retain(self, bank_id: str, items: Sequence[RetainItem]) -> RetainResponse:
        """Retain ``items`` (already given document ids where the caller wants them stable).

        Memory defense runs first: what it redacts is stored redacted, what it blocks is not
        stored, and the answer lists both in ``security_events``.
        """
        screened = await self.screen(bank_id, items)
        return screened.answer(await self._retain(bank_id, screened.items))

    async def replace_document(
        self, bank_id: str, item: RetainItem, hooks: WriteHooks
    ) -> RetainResponse:
        """Extract a document again from scratch under the bank's current configuration.

        Every chunk is extracted (stored chunks and content hashes are ignored); ``hooks`` remove
        what the document held inside the same write transaction, so a failure anywhere before
        the commit (extraction, embedding, the write itself) leaves the document as it was.
        """
        if not item.document_id:
            raise ValueError("replace_document needs the item's document_id")
        return await self._retain(bank_id, [item], hooks=hooks)

    async def _retain(
        self, bank_id: str, items: Sequence[RetainItem], hooks: WriteHooks | None = None
    ) -> RetainResponse:
        bank = await self._banks.config(bank_id)
        self.check(items)
        check_entity_labels(bank.entity_labels, items)
        now = datetime.now(UTC)
        # The bank's settle waits while retains are on their way to its write (decision 0018).
        with self._settles.retaining(bank.id):
            prepared, usage = await self._prepare(bank, items, now, fresh_plan=hooks is not None)
            fresh = [f for p in prepared for f in p.facts]
            vectors = await self._embedder.embed([f.fact.text for f in fresh])
            request = PreparedRequest(
                bank=bank, items=prepared, fresh=fresh, vectors=vectors, usage=usage, hooks=hooks
            )
            # The bank's writers queue for its write, and the requests waiting together share
            # it; the publish runs after it, while the next write of the bank goes on.
            await self._committer.commit(bank.id, request)
        return _response(bank.id, prepared, usage)

    async def wait_idle(self) -> None:
        """Wait until every request handed to the write phase is written, published, settled."""
        await self._committer.wait_idle()
        await self._settles.wait_idle()

    async def published(self, bank_id: str) -> None:
        """Return once what this process wrote to the bank is searchable (decision 0019).

        Recall waits here: a retain is answered once written, and its publish (vectors,
        semantic links) runs behind the answer.
        """
        await self._committer.published(bank_id)

    async def settled(self, bank_id: str) -> None:
        """Return once what this process wrote to the bank is published and settled.

        Reads of identities (entities, reviews) wait here: a client reads what it wrote, with
        the identities the evidence gives, not the first pass's (decision 0018). So does
        curation: an edit or a delete never races the publish of what it changes (0019).
        """
        await self._committer.published(bank_id)
        await self._settles.settled(bank_id)

    async def settle_marked(self, bank_id: str | None = None, *, page: int = 2000) -> int:
        """Settle the facts a crash left written but not settled (of one bank, or of all).

        Returns how many facts were settled.
        """
        done = 0
        gone: set[str] = set()
        while True:
            rows = await self._graph.rows(
                "reconcile/settle_pending",
                {"bank_id": bank_id, "skip_banks": sorted(gone), "limit": page},
                MarkedFact,
            )
            if not rows:
                return done
            for marked_bank, pending in pending_of_marked(rows).items():
                try:
                    await self._settle(marked_bank, pending)
                except NotFound:
                    # Deleted since its facts were read (a start beside a client deleting a
                    # bank): nothing left to settle there, and no reason to fail the start.
                    log.info(
                        "bank %s was deleted before its marked facts were settled", marked_bank
                    )
                    gone.add(marked_bank)
                else:
                    done += len(pending.memory_ids)

    # -- prepare ------------------------------------------------------------------------------

    async def _prepare(
        self,
        bank: BankConfig,
        items: Sequence[RetainItem],
        now: datetime,
        *,
        fresh_plan: bool = False,
    ) -> tuple[list[PreparedItem], Usage]:
        chunked = [split_content(item.content) for item in items]
        doc_ids = [item.document_id or str(uuid.uuid4()) for item in items]
        # A fresh plan (reprocessing) extracts every chunk, as for a document never seen; only
        # a document id the caller chose can name a stored document.
        given = [item.document_id for item in items if item.document_id]
        stored = {} if fresh_plan or not given else await self._stored_documents(bank.id, given)
        prepared = [
            PreparedItem(
                index=i,
                item=item,
                plan=plan_document(
                    doc_ids[i], content_hash(item.content), chunked[i], stored.get(doc_ids[i])
                ),
            )
            for i, item in enumerate(items)
        ]
        jobs: list[tuple[PreparedItem, str, Chunk]] = [
            (p, c.chunk_id, c.chunk) for p in prepared for c in p.plan.to_extract
        ]
        extractor = self.extractor(bank.retain_extraction_mode)
        results = await extractor.extract(
            [
                ExtractionInput(text=chunk.text, timestamp=p.item.timestamp, context=p.item.context)
                for p, _, chunk in jobs
            ],
            ExtractionSettings(
                mode=bank.retain_extraction_mode,
                mission=bank.retain_mission,
                custom_instructions=bank.retain_custom_instructions,
            ),
        )
        usage = Counter[str]()
        for (p, chunk_id, _), result in zip(jobs, results, strict=True):
            usage.update(result.usage)
            p.warnings.extend(result.warnings)
            p.facts.extend(_facts_of(p, chunk_id, result, now))
        return prepared, Usage(
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
            total_tokens=usage["total_tokens"],
        )

    async def _stored_documents(
        self, bank_id: str, document_ids: list[str]
    ) -> dict[str, StoredDocument]:
        rows = await self._graph.rows(
            "retain/document_state",
            {"bank_id": bank_id, "document_ids": document_ids},
            _StoredDocRow,
        )
        return {
            r.document_id: msgspec.convert(
                {"content_hash": r.content_hash, "chunks": r.chunks}, StoredDocument
            )
            for r in rows
        }

    async def semantic_links(
        self, bank_id: str, ids: Sequence[str], vectors: npt.NDArray[np.float32]
    ) -> list[Link]:
        """Semantic links of facts (ids and their vectors): among them and to stored facts."""
        return await self._semantic.find(bank_id, ids, vectors)

    # -- write --------------------------------------------------------------------------------

    async def _write(self, bank_id: str, requests: Sequence[PreparedRequest]) -> None:
        """Write a group of requests in one transaction (a request with hooks comes alone)."""
        # The newest configuration read among the group (a change between two reads is
        # the same race as a change during one request's prepare).
        bank = max((r.bank for r in requests), key=lambda b: b.updated_at)
        hooks = requests[0].hooks
        prepared = [p for r in requests for p in r.items]
        fresh = [f for r in requests for f in r.fresh]
        active = [p for p in prepared if p.plan.status != "unchanged"]

        to_resolve = [_to_resolve(f) for f in fresh]

        async def work(tx: Tx) -> PendingSettle:
            if hooks is not None:
                await hooks.before_write(tx, bank.id)
            await self._write_documents(tx, bank.id, active)
            await self._retire(tx, bank.id, active)
            resolved = await self._resolver.resolve(tx, bank, to_resolve)
            await self._write_facts(tx, bank.id, fresh, resolved)
            # Identities as the evidence says, whatever the order facts came in (decision 0010):
            # settled behind the write, for many writes at once (decision 0018).
            settle = await self._resolver.record_mentions(tx, bank.id, to_resolve, resolved)
            await self.write_links(
                tx, bank.id, [LinkedFact(f.id, f.occurred_start, f.caused_by) for f in fresh], []
            )
            if hooks is not None:
                await hooks.after_write(tx, bank.id)
            return settle

        self._settles.add(bank_id, await self._graph.write(bank_id, work))
        if self._fault == CRASH_AFTER_GRAPH_WRITE:
            log.critical("fault injection: exiting between the graph and the vector write")
            os._exit(97)

    async def _settle(self, bank_id: str, pending: PendingSettle) -> None:
        async def work(tx: Tx) -> object:
            # A settle's writes (the marks and mentions of the facts it covers) and a publish
            # (the pending flags and links of the same facts) deadlock side by side, and a
            # failed settle runs its replay again while the bank's writers wait (0050). The
            # settle decides first and keeps publishes out only while it writes, so a publish
            # (and a recall waiting for it) never waits for a replay.
            return await self._resolver.settle(
                tx, bank_id, pending, writing=lambda: self._publish_transactions.hold(bank_id)
            )

        started = time.perf_counter()
        outcome = await self._graph.write(bank_id, work)
        log.debug(
            "bank %s settled %d facts touching %d entities in %.0f ms: %s",
            bank_id,
            len(pending.memory_ids),
            len(pending.touched),
            (time.perf_counter() - started) * 1000,
            outcome,
        )

    async def _write_documents(self, tx: Tx, bank_id: str, items: Sequence[PreparedItem]) -> None:
        await tx.run(
            "retain/upsert_documents",
            {
                "bank_id": bank_id,
                "documents": [
                    {
                        "id": p.plan.document_id,
                        "content_hash": p.plan.content_hash,
                        "original_text": p.item.content,
                        "tags": list(p.item.tags or ()),
                        "metadata_json": _metadata_json(p.item),
                        "context": p.item.context,
                        # Kept so that the document can be reprocessed as it was retained.
                        "timestamp": as_utc(p.item.timestamp) if p.item.timestamp else None,
                        "entities_json": (
                            msgspec.json.encode(p.item.entities).decode()
                            if p.item.entities
                            else None
                        ),
                        "resolve_entities": p.item.resolve_entities,
                    }
                    for p in items
                ],
            },
        )
        await tx.run(
            "retain/upsert_chunks",
            {
                "bank_id": bank_id,
                "chunks": [
                    {
                        "id": c.chunk_id,
                        "document_id": p.plan.document_id,
                        "index": c.chunk.index,
                        "text": c.chunk.text,
                        "content_hash": c.chunk.content_hash,
                    }
                    for p in items
                    for c in p.plan.chunks
                ],
            },
        )

    async def _retire(self, tx: Tx, bank_id: str, items: Sequence[PreparedItem]) -> None:
        """Invalidate the facts of chunks that left their document (kept for audit)."""
        owner = {c: p for p in items for c in p.plan.retired_chunk_ids}
        for p in items:
            p.retired_memory_ids.clear()  # a retried transaction starts from scratch
        if not owner:
            return
        rows = await tx.run(
            "retain/retire_chunks",
            {
                "bank_id": bank_id,
                "chunk_ids": list(owner),
                "reason": "its chunk was removed from the document",
            },
        )
        for row in rows:
            owner[row["chunk_id"]].retired_memory_ids.extend(row["memory_ids"])
        # Retired facts leave the active graph like invalidated ones (counts released, links
        # archived, a revision), so a later restore through the memories API brings them back.
        retired = [m for row in rows for m in row["memory_ids"]]
        await retire_facts(
            tx, bank_id, retired, reason="its chunk was removed from the document", at=_now()
        )

    async def _write_facts(
        self,
        tx: Tx,
        bank_id: str,
        facts: Sequence[PreparedFact],
        resolved: Sequence[Sequence[ResolvedMention]],
    ) -> None:
        await tx.run(
            "retain/create_memories",
            {
                "bank_id": bank_id,
                "bank_key": bank_key(bank_id),
                "memories": [
                    _memory_row(f, entities) for f, entities in zip(facts, resolved, strict=True)
                ],
            },
        )
        mentions = [
            {
                "memory_id": f.id,
                "entity_id": entity_id,
                "surfaces": surfaces,
                "at": cypher_datetime(f.mentioned_at),
            }
            for f, entities in zip(facts, resolved, strict=True)
            for entity_id, surfaces in _surfaces_by_entity(entities).items()
        ]
        await tx.run("retain/create_mentions", {"bank_id": bank_id, "mentions": mentions})
        await tx.run(
            "retain/co_occurs",
            {"bank_id": bank_id, "pairs": _co_occurrences(facts, resolved)},
        )

    async def write_links(
        self, tx: Tx, bank_id: str, facts: Sequence[LinkedFact], semantic: Sequence[Link]
    ) -> None:
        """Write causal, temporal (to the nearest valid facts in event time) and semantic links.

        Semantic links are created, not merged: their sources must have none yet (new facts, or
        an edited fact whose links were just removed).
        """
        causal = [
            {"source": f.id, "target": cause, "weight": 1.0} for f in facts for cause in f.caused_by
        ]
        neighbours = await tx.run(
            "retain/temporal_neighbours",
            {
                "bank_id": bank_id,
                "facts": [{"id": f.id, "at": cypher_datetime(f.occurred_start)} for f in facts],
                "k": self._links.temporal_neighbours,
            },
        )
        at = {f.id: f.occurred_start for f in facts}
        temporal: dict[frozenset[str], dict[str, object]] = {}
        for row in neighbours:
            pair = frozenset((row["source"], row["target"]))
            # Two new facts find each other: one edge per pair is enough.
            temporal.setdefault(
                pair,
                {
                    "source": row["source"],
                    "target": row["target"],
                    "weight": temporal_weight(
                        at[row["source"]], datetime.fromisoformat(row["at"]), self._links
                    ),
                },
            )
        for name, links in (
            ("retain/link_caused_by", causal),
            ("retain/link_temporal", list(temporal.values())),
        ):
            if links:
                await tx.run(name, {"bank_id": bank_id, "links": links})
        if semantic:
            await tx.run(
                "retain/link_semantic", {"bank_id": bank_id, "sources": by_source(semantic)}
            )

    # -- publish ------------------------------------------------------------------------------

    async def _publish(self, bank_id: str, requests: Sequence[PreparedRequest]) -> None:
        """Make a written group visible: vectors, flush, semantic links, pending flags."""
        facts = [f for r in requests for f in r.fresh]
        vectors = np.concatenate([r.vectors for r in requests])
        retired = [m for r in requests for p in r.items for m in p.retired_memory_ids]
        async with self._publishers.hold(bank_id):
            # Searched right before the upsert, one group of the bank at a time: the links
            # do not depend on which requests shared a write or how publishes overlapped.
            semantic = await self.semantic_links(bank_id, [f.id for f in facts], vectors)
            if facts:
                await self._vectors.upsert(
                    [
                        VectorPoint(id=f.id, vector=vector.tolist(), payload=_payload(bank_id, f))
                        for f, vector in zip(facts, vectors, strict=True)
                    ]
                )
            if retired:
                await self._vectors.set_state(bank_id, retired, "invalidated")
        await self._vectors.flush()
        written = [f.id for f in facts] + list(retired)
        if written:
            async with self._publish_transactions.hold(bank_id):
                await publish_facts(self._graph, bank_id, written, semantic)


# -- pure helpers ---------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _metadata_json(item: RetainItem) -> str | None:
    return msgspec.json.encode(item.metadata).decode() if item.metadata else None


def _facts_of(
    prepared: PreparedItem, chunk_id: str, result: ExtractionResult, now: datetime
) -> list[PreparedFact]:
    item = prepared.item
    mentioned_at = as_utc(item.timestamp) if item.timestamp else now
    caller = tuple(ExtractedEntity(text=e.text, type=e.type or "") for e in item.entities or ())
    facts = [
        PreparedFact(
            id=str(uuid.uuid4()),
            item_index=prepared.index,
            document_id=prepared.plan.document_id,
            chunk_id=chunk_id,
            fact=msgspec.structs.replace(
                fact,
                entities=_merge_entities(fact.entities, _with_stated_aliases(caller, fact.text)),
            ),
            mentioned_at=mentioned_at,
            context=item.context,
            tags=tuple(sorted(set(item.tags or ()))),
            metadata_json=_metadata_json(item),
            resolve=item.resolve_entities,
        )
        for fact in result.facts
    ]
    for fact in facts:
        fact.caused_by = tuple(
            facts[i].id for i in fact.fact.caused_by if 0 <= i < len(facts) and facts[i] is not fact
        )
    return facts


def _with_stated_aliases(
    caller: Sequence[ExtractedEntity], text: str
) -> tuple[ExtractedEntity, ...]:
    """Caller-supplied entities with the aliases the fact's text states for them ("X (Y)")."""
    return tuple(
        msgspec.structs.replace(e, aliases=aliases_stated_for(text, e.text)) for e in caller
    )


def _merge_entities(
    extracted: Sequence[ExtractedEntity], caller: Sequence[ExtractedEntity]
) -> tuple[ExtractedEntity, ...]:
    """Caller-supplied entities join every fact and win over an extracted one of that name.

    Two caller entities with one name but different types ("Jordan" the person and "Jordan"
    the country) both stay.
    """
    caller_keys = {name_key(e.text) for e in caller}
    merged = [e for e in extracted if name_key(e.text) not in caller_keys]
    seen: set[tuple[str, str]] = set()
    for entity in caller:
        slot = (name_key(entity.text), entity.type.casefold())
        if slot[0] and slot not in seen:
            seen.add(slot)
            merged.append(entity)
    return tuple(merged)


def _to_resolve(fact: PreparedFact) -> FactToResolve:
    return FactToResolve(
        memory_id=fact.id,
        at=fact.mentioned_at,
        content=fact.fact.text,
        mentions=tuple(
            MentionToResolve(
                text=e.text,
                type=e.type,
                aliases=e.aliases,
                resolve=fact.resolve,
                type_guessed=e.type_guessed,
            )
            for e in fact.fact.entities
        ),
    )


def _surfaces_by_entity(entities: Sequence[ResolvedMention]) -> dict[str, list[str]]:
    """Per entity, the distinct surface texts one fact used for it (one MENTIONS edge each)."""
    out: dict[str, list[str]] = {}
    for r in entities:
        surfaces = out.setdefault(r.entity_id, [])
        if r.mention not in surfaces:
            surfaces.append(r.mention)
    return out


def _co_occurrences(
    facts: Sequence[PreparedFact], resolved: Sequence[Sequence[ResolvedMention]]
) -> list[dict[str, object]]:
    counts: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], datetime] = {}
    last: dict[tuple[str, str], datetime] = {}
    for fact, entities in zip(facts, resolved, strict=True):
        ids = sorted({r.entity_id for r in entities})
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                counts[(a, b)] += 1
                first[(a, b)] = min(first.get((a, b), fact.mentioned_at), fact.mentioned_at)
                last[(a, b)] = max(last.get((a, b), fact.mentioned_at), fact.mentioned_at)
    # first_at is the earliest fact of the pair, as recompute_entities derives it.
    return [
        {
            "a": a,
            "b": b,
            "count": n,
            "first": cypher_datetime(first[(a, b)]),
            "at": cypher_datetime(last[(a, b)]),
        }
        for (a, b), n in counts.items()
    ]


def _memory_row(fact: PreparedFact, entities: Sequence[ResolvedMention]) -> dict[str, object]:
    return {
        "fields": {
            "id": fact.id,
            "text": fact.fact.text,
            "context": fact.context,
            "fact_type": fact.fact.fact_type,
            "fact_kind": fact.fact.fact_kind,
            "tags": list(fact.tags),
            "tag_tokens": tag_tokens(fact.tags),
            "metadata_json": fact.metadata_json,
            "document_id": fact.document_id,
            "chunk_id": fact.chunk_id,
            "entity_names": entity_names(entities),
            "where": fact.fact.where,
            "who": fact.fact.who,
            "why": fact.fact.why,
        },
        "occurred_start": cypher_datetime(fact.occurred_start),
        "occurred_end": cypher_datetime(fact.occurred_end),
        "mentioned_at": cypher_datetime(fact.mentioned_at),
    }


def _payload(bank_id: str, fact: PreparedFact) -> VectorPayload:
    return VectorPayload(
        bank_id=bank_id,
        fact_type=fact.fact.fact_type,
        state="valid",
        tags=fact.tags,
        occurred_start=fact.occurred_start.timestamp(),
        occurred_end=fact.occurred_end.timestamp(),
        mentioned_at=fact.mentioned_at.timestamp(),
    )


def _response(bank_id: str, prepared: Sequence[PreparedItem], usage: Usage) -> RetainResponse:
    outcomes = [
        ItemOutcome(
            index=p.index,
            document_id=p.plan.document_id,
            status=p.plan.status,
            memory_ids=[f.id for f in p.facts],
            retired_memory_ids=p.retired_memory_ids,
            warnings=p.warnings,
        )
        for p in prepared
    ]
    return RetainResponse(
        success=True,
        bank_id=bank_id,
        items_count=len(prepared),
        memory_ids=[f.id for p in prepared for f in p.facts],
        items=outcomes,
        usage=usage if usage.total_tokens else None,
    )
