"""The last step of every write that touches vectors: tell the graph they are in the vector store.

Recall ignores facts whose ``vector_pending`` flag is set; clearing it is what makes a fact
visible. Two ways to clear it:

- :func:`publish_facts` (retain and repair): the new facts' SEMANTIC links and the cleared flag
  in one transaction, *without* the bank's write lock, so the next retain of the bank writes
  while this one links. A fact therefore becomes visible with its semantic links, never
  before them; a crash before this commit leaves the facts pending, and reconciliation finds
  their links again. Relationships take their locks at commit, in a sorted order, but the
  flag's locks are taken as the statement runs, so this transaction can still deadlock with a
  concurrent writer of the same facts: Neo4j fails one of the two and ``Graph.write`` runs it
  again (decision 0008).
- :func:`mark_vectors_written` (memory edits): the flag alone, in an exclusive write of the
  bank, so the lock is taken before any fact node is touched.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.retain.links import Link, by_source
from app.store.graph import Graph, Tx


async def publish_facts(
    graph: Graph,
    bank_id: str,
    memory_ids: Sequence[str],
    semantic: Sequence[Link] = (),
    *,
    relinked: Sequence[str] = (),
) -> int:
    """Write ``semantic`` links and clear ``vector_pending`` on ``memory_ids``, all or nothing.

    The SEMANTIC links that start at ``relinked`` facts are removed first (a repair, which
    cannot know whether an earlier attempt wrote them). Returns how many facts were cleared.
    """
    sources = by_source(semantic)

    async def work(tx: Tx) -> int:
        if relinked:
            await tx.run(
                "retain/unlink_semantic_sources",
                {"bank_id": bank_id, "memory_ids": list(relinked)},
            )
        if sources:
            await tx.run("retain/link_semantic", {"bank_id": bank_id, "sources": sources})
        return await _clear_pending(tx, bank_id, memory_ids)

    # Outside the bank's write lock: see the module docstring.
    return await graph.write(bank_id, work, exclusive=False)


async def mark_vectors_written(graph: Graph, bank_id: str, memory_ids: Sequence[str]) -> int:
    """Clear ``vector_pending`` on ``memory_ids`` after the bank's lock; returns how many."""

    async def work(tx: Tx) -> int:
        return await _clear_pending(tx, bank_id, memory_ids)

    return await graph.write(bank_id, work)


async def _clear_pending(tx: Tx, bank_id: str, memory_ids: Sequence[str]) -> int:
    rows = await tx.run(
        "retain/vectors_written", {"bank_id": bank_id, "memory_ids": list(memory_ids)}
    )
    return int(rows[0]["cleared"]) if rows else 0
