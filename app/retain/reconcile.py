"""Two stores, one truth: repair what a crash between the Neo4j and the vector write left.

A fact is written to Neo4j with ``vector_pending = true`` and becomes visible to recall only
when its vector is confirmed, together with its semantic links. ``repair_pending`` finishes
those writes from Neo4j's own copy (re-embedding the text, finding the links again);
``reconcile_bank`` also compares ids both ways, deleting vectors that have no fact and
re-embedding facts that have no vector.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

import msgspec

from app.retain.links import DEFAULT_LINKS, LinkPolicy
from app.retain.publish import publish_facts
from app.retain.semantic import SemanticLinkFinder
from app.store.embeddings import Embedder, Vectors
from app.store.graph import Graph
from app.store.vectors import MemoryState, VectorPayload, VectorPoint, VectorStore

log = logging.getLogger(__name__)


class _Pending(msgspec.Struct):
    bank_id: str
    id: str
    text: str
    fact_type: str
    state: MemoryState
    tags: list[str] | None
    occurred_start: datetime | None
    occurred_end: datetime | None
    mentioned_at: datetime | None


class _IdRow(msgspec.Struct):
    id: str
    pending: bool | None = None


class ReconcileReport(msgspec.Struct, frozen=True):
    """What a reconciliation pass repaired."""

    repaired: int = 0
    orphan_vectors_deleted: int = 0
    missing_vectors: int = 0
    # Facts written but never settled (a crash between a write and its settle, decision 0018).
    settled: int = 0


class Reconciler:
    """Brings the vector store in line with Neo4j (the source of truth)."""

    def __init__(
        self,
        graph: Graph,
        vectors: VectorStore,
        embedder: Embedder,
        links: LinkPolicy = DEFAULT_LINKS,
        *,
        settle_marked: Callable[[str | None], Awaitable[int]] | None = None,
    ) -> None:
        self._graph = graph
        self._settle_marked = settle_marked
        self._vectors = vectors
        self._embedder = embedder
        self._semantic = SemanticLinkFinder(vectors, links)

    async def repair_pending(self, *, page: int = 500) -> int:
        """Write the vectors of every pending fact; returns how many were repaired."""
        repaired = 0
        while True:
            rows = await self._graph.rows("reconcile/pending", {"limit": page}, _Pending)
            if not rows:
                break
            embedded = await self._embedder.embed([r.text for r in rows])
            await self._vectors.upsert(
                [
                    VectorPoint(id=r.id, vector=v.tolist(), payload=_payload(r))
                    for r, v in zip(rows, embedded, strict=True)
                ]
            )
            await self._vectors.flush()
            by_bank: dict[str, list[int]] = {}
            for i, r in enumerate(rows):
                by_bank.setdefault(r.bank_id, []).append(i)
            cleared = 0
            for bank_id, indexes in by_bank.items():
                group = [rows[i] for i in indexes]
                cleared += await self._publish(bank_id, group, embedded[indexes])
            repaired += cleared
            if cleared == 0:
                # Nothing left the pending set (the facts went meanwhile): paging again would
                # read the same rows forever.
                break
        if repaired:
            log.info("reconciliation: wrote %d pending vectors", repaired)
        return repaired

    async def _publish(self, bank_id: str, rows: list[_Pending], vectors: Vectors) -> int:
        """Find the semantic links of the valid facts again, then publish like a retain does.

        A fact may be pending with its links already written (a memory edit that crashed, a
        vector found missing), so the links that start at it are replaced, never added to.
        """
        # Observations restate facts: they get no semantic links of their own.
        valid = [
            i for i, r in enumerate(rows) if r.state == "valid" and r.fact_type != "observation"
        ]
        ids = [rows[i].id for i in valid]
        links = await self._semantic.find(bank_id, ids, vectors[valid]) if valid else []
        return await publish_facts(self._graph, bank_id, [r.id for r in rows], links, relinked=ids)

    async def reconcile_bank(self, bank_id: str) -> ReconcileReport:
        """Compare ids both ways for one bank and repair every difference."""
        facts = await self._graph.rows("reconcile/memory_ids", {"bank_id": bank_id}, _IdRow)
        in_graph = {f.id for f in facts}
        in_vectors = await self._vectors.ids(bank_id)
        orphans = sorted(in_vectors - in_graph)
        if orphans:
            await self._vectors.delete(bank_id, orphans)
        missing = sorted(f.id for f in facts if f.id not in in_vectors and not f.pending)
        if missing:
            await self._graph.run(
                "reconcile/mark_pending", {"bank_id": bank_id, "memory_ids": missing}
            )
        repaired = await self.repair_pending()
        settled = await self._settle_marked(bank_id) if self._settle_marked else 0
        return ReconcileReport(
            repaired=repaired,
            orphan_vectors_deleted=len(orphans),
            missing_vectors=len(missing),
            settled=settled,
        )

    async def reconcile_all(self) -> ReconcileReport:
        """Every bank in turn."""
        total = ReconcileReport()
        for row in await self._graph.run("reconcile/bank_ids"):
            report = await self.reconcile_bank(row["id"])
            total = ReconcileReport(
                repaired=total.repaired + report.repaired,
                orphan_vectors_deleted=total.orphan_vectors_deleted + report.orphan_vectors_deleted,
                missing_vectors=total.missing_vectors + report.missing_vectors,
                settled=total.settled + report.settled,
            )
        return total


def _payload(row: _Pending) -> VectorPayload:
    return VectorPayload(
        bank_id=row.bank_id,
        fact_type=row.fact_type,
        state=row.state,
        tags=tuple(row.tags or ()),
        occurred_start=row.occurred_start.timestamp() if row.occurred_start else None,
        occurred_end=row.occurred_end.timestamp() if row.occurred_end else None,
        mentioned_at=row.mentioned_at.timestamp() if row.mentioned_at else None,
    )
