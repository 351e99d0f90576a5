"""The last step of every write that touches vectors: tell the graph they are in the vector store.

Recall ignores facts whose ``vector_pending`` flag is set; clearing it is what makes a fact
visible. The statement sets a flag on each fact, and a concurrent retain of the same bank may
be linking new facts to those very nodes, so it runs after the bank's write lock, as a
separate first statement of its transaction: the lock is then certainly taken before any fact
node is touched (inside one statement the planner chooses the order, and two writers taking
the same locks in different orders deadlock).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.store.graph import Graph, Tx


async def mark_vectors_written(graph: Graph, bank_id: str, memory_ids: Sequence[str]) -> int:
    """Clear ``vector_pending`` on ``memory_ids``; returns how many facts were cleared."""

    async def work(tx: Tx) -> int:
        await tx.run("retain/lock_bank", {"bank_id": bank_id})
        rows = await tx.run(
            "retain/vectors_written", {"bank_id": bank_id, "memory_ids": list(memory_ids)}
        )
        return int(rows[0]["cleared"]) if rows else 0

    return await graph.write(work)
