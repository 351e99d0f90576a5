"""Documents: list (with what each produced), inspect, delete with its facts, reprocess.

Deleting a document removes exactly its contribution: its facts (any state) with their vectors,
mentions, links and revisions; the counts those facts added to entities and co-occurrences;
their name claims; and the entities nobody mentions afterwards. Reprocessing extracts the stored
text again under the bank's current mode and mission and swaps the old facts for the new ones in
one transaction (``RetainPipeline.replace_document``), so a failed extraction changes nothing.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from app.curate.cursor import LATEST, decode_cursor, encode_cursor
from app.curate.schemas.documents import (
    Document,
    DocumentChunk,
    DocumentDeleted,
    DocumentPage,
    DocumentReprocessed,
    DocumentSummary,
)
from app.domain.banks import BankDirectory
from app.domain.lifecycle import FactFootprint, delete_facts, forget_names
from app.errors import NotFound
from app.retain.pipeline import RetainPipeline
from app.retain.schemas import EntityHint, RetainItem
from app.store.graph import Graph, Tx
from app.store.vectors import VectorStore

# -- stored shapes ----------------------------------------------------------------------------


class _StoredDocument(msgspec.Struct):
    id: str
    content_hash: str | None = None
    tags: list[str] | None = None
    metadata_json: str | None = None
    context: str | None = None
    timestamp: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    memory_count: int = 0
    valid_memory_count: int = 0
    chunk_count: int = 0
    text_length: int | None = None
    original_text: str | None = None
    entities_json: str | None = None
    resolve_entities: bool | None = None


class _ListedRow(msgspec.Struct):
    document: _StoredDocument
    key: list[str]


class _TotalRow(msgspec.Struct):
    total: int


class _DocumentRow(msgspec.Struct):
    document: _StoredDocument
    chunks: list[DocumentChunk]


class _SourceRow(msgspec.Struct):
    document: _StoredDocument
    mentioned_at: datetime | None = None


class _FactRow(msgspec.Struct):
    id: str
    valid: bool
    entity_ids: list[str]


class _Removal:
    """Removes a document's facts inside a write transaction, remembering what went.

    Split in two so that reprocessing can write the new facts in between: entities and names the
    old facts used are still there when the new mentions are resolved (identities are kept), and
    only what is still unused afterwards is deleted.
    """

    def __init__(self, document_id: str, *, keep_document: bool) -> None:
        self.document_id = document_id
        self.keep_document = keep_document
        self.memory_ids: list[str] = []
        self.entity_ids: list[str] = []
        self.deleted_entities: list[str] = []

    async def before_write(self, tx: Tx, bank_id: str) -> None:
        """Delete the facts (releasing their counts) and every chunk of the document."""
        params = {"bank_id": bank_id, "document_id": self.document_id}
        if not await tx.run("documents/source", params):
            # Checked again under the bank lock: a concurrent delete may have won.
            raise NotFound(f"document {self.document_id!r} not found in bank {bank_id!r}")
        facts = await tx.rows("documents/facts", params, _FactRow)
        self.memory_ids = [f.id for f in facts]
        self.entity_ids = sorted({e for f in facts for e in f.entity_ids})
        await delete_facts(tx, bank_id, [FactFootprint(f.id, f.valid, f.entity_ids) for f in facts])
        await tx.run("documents/delete_chunks", params)

    async def after_write(self, tx: Tx, bank_id: str) -> None:
        """Clean names and orphaned entities; delete the document unless it is kept."""
        self.deleted_entities = await forget_names(tx, bank_id, self.memory_ids, self.entity_ids)
        if not self.keep_document:
            await tx.run("documents/delete", {"bank_id": bank_id, "document_id": self.document_id})


class DocumentService:
    """Documents of a bank and what they produced."""

    def __init__(
        self,
        *,
        graph: Graph,
        vectors: VectorStore,
        banks: BankDirectory,
        retainer: RetainPipeline,
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._banks = banks
        self._retainer = retainer

    async def page(
        self,
        bank_id: str,
        *,
        limit: int,
        offset: int,
        empty: bool | None = None,
        cursor: str | None = None,
    ) -> DocumentPage:
        """Documents newest first, with fact counts; ``empty`` keeps those with(out) facts.

        Reads ``limit + 1`` documents in index order after ``cursor`` and ``offset``, so a page
        costs its rows, not the bank; ``next_cursor`` is set when more follow. The total comes
        from the index alone without ``empty``; with it, counting reads each document's facts.
        """
        await self._banks.require(bank_id)
        before, after_id = decode_cursor(cursor, 2) if cursor else [LATEST, None]
        rows = await self._graph.rows(
            "documents/list",
            {
                "bank_id": bank_id,
                "before": before,
                "after_id": after_id,
                "empty": empty,
                "offset": offset,
                "limit": limit + 1,
            },
            _ListedRow,
        )
        shown = rows[:limit]
        name, params = (
            ("documents/total", {"bank_id": bank_id})
            if empty is None
            else ("documents/count", {"bank_id": bank_id, "empty": empty})
        )
        found = await self._graph.row(name, params, _TotalRow)
        return DocumentPage(
            items=[_summary(bank_id, r.document) for r in shown],
            total=found.total if found else 0,
            limit=limit,
            offset=offset,
            next_cursor=encode_cursor(shown[-1].key) if len(rows) > limit else None,
        )

    async def get(self, bank_id: str, document_id: str) -> Document:
        """One document with its original text and active chunks."""
        row = await self._graph.row(
            "documents/get", {"bank_id": bank_id, "document_id": document_id}, _DocumentRow
        )
        if row is None:
            raise await self._not_found(bank_id, document_id)
        d = row.document
        return Document(
            **msgspec.structs.asdict(_summary(bank_id, d)),
            original_text=d.original_text or "",
            chunks=row.chunks,
        )

    async def delete(self, bank_id: str, document_id: str) -> DocumentDeleted:
        """Delete the document, its facts and their vectors, and entities left unmentioned.

        The graph goes first, in one transaction: a crash before the vectors are deleted leaves
        orphan vectors, which recall never returns (hits are joined to the graph) and
        reconciliation deletes; the reverse order could leave facts without vectors. It acts on
        the settled bank (decision 0018): no settle of the document's own writes comes after it.
        """
        await self._banks.require(bank_id)
        await self._retainer.settled(bank_id)
        removal = _Removal(document_id, keep_document=False)

        async def work(tx: Tx) -> None:
            await removal.before_write(tx, bank_id)
            await removal.after_write(tx, bank_id)

        await self._graph.write(bank_id, work)
        await self._drop_vectors(bank_id, removal.memory_ids)
        return DocumentDeleted(
            bank_id=bank_id,
            document_id=document_id,
            deleted_memories=len(removal.memory_ids),
            deleted_entities=len(removal.deleted_entities),
        )

    async def reprocess(self, bank_id: str, document_id: str) -> DocumentReprocessed:
        """Extract the stored text again under the bank's current mode and mission.

        The old facts are deleted (as by :meth:`delete`, the document kept) and the new ones
        written in the same transaction; entities keep their ids when the new facts name them
        again. Nothing changes if extraction, embedding or the write fails. The old facts'
        own publish has landed first (decision 0019), so their vectors go for good.
        """
        bank = await self._banks.config(bank_id)
        await self._retainer.published(bank_id)
        self._retainer.extractor(bank.retain_extraction_mode)
        source = await self._graph.row(
            "documents/source", {"bank_id": bank_id, "document_id": document_id}, _SourceRow
        )
        if source is None:
            raise await self._not_found(bank_id, document_id)
        removal = _Removal(document_id, keep_document=True)
        answer = await self._retainer.replace_document(bank_id, _item(source), removal)
        await self._drop_vectors(bank_id, removal.memory_ids)
        outcome = answer.items[0] if answer.items else None
        return DocumentReprocessed(
            bank_id=bank_id,
            document_id=document_id,
            extraction_mode=bank.retain_extraction_mode,
            deleted_memories=len(removal.memory_ids),
            memory_ids=answer.memory_ids,
            warnings=outcome.warnings if outcome else [],
        )

    async def _drop_vectors(self, bank_id: str, memory_ids: list[str]) -> None:
        if memory_ids:
            await self._vectors.delete(bank_id, memory_ids)
            await self._vectors.flush()

    async def _not_found(self, bank_id: str, document_id: str) -> NotFound:
        await self._banks.require(bank_id)
        return NotFound(f"document {document_id!r} not found in bank {bank_id!r}")


def _summary(bank_id: str, d: _StoredDocument) -> DocumentSummary:
    return DocumentSummary(
        id=d.id,
        bank_id=bank_id,
        content_hash=d.content_hash,
        tags=list(d.tags or ()),
        metadata=msgspec.json.decode(d.metadata_json) if d.metadata_json else None,
        context=d.context,
        timestamp=d.timestamp,
        created_at=d.created_at,
        updated_at=d.updated_at,
        memory_count=d.memory_count,
        valid_memory_count=d.valid_memory_count,
        chunk_count=d.chunk_count,
        text_length=d.text_length or 0,
    )


def _item(source: _SourceRow) -> RetainItem:
    """The retain item a stored document came from, as far as the graph remembers it.

    Documents stored before the item timestamp was kept fall back to their facts' mention time
    (which is that timestamp, or the time of the retain).
    """
    d = source.document
    entities = (
        msgspec.json.decode(d.entities_json, type=list[EntityHint]) if d.entities_json else None
    )
    metadata = (
        msgspec.json.decode(d.metadata_json, type=dict[str, str]) if d.metadata_json else None
    )
    return RetainItem(
        content=d.original_text or "",
        timestamp=d.timestamp or source.mentioned_at,
        context=d.context,
        document_id=d.id,
        metadata=metadata,
        tags=list(d.tags) if d.tags else None,
        entities=entities,
        resolve_entities=True if d.resolve_entities is None else d.resolve_entities,
    )
