"""A vector store that remembers whether its last write worked, for readiness and metrics.

A write that fails (the embedded shard's files broken underneath it, a Qdrant server that
refuses) leaves new facts unsearchable; readiness must say so instead of answering 200. The
wrapper forwards every call; writes record their outcome, and :meth:`healthy` is False while
the last write failed (the next write that succeeds clears it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from prometheus_client import Counter, Gauge

from app.store.vectors import (
    MemoryState,
    QueryVectors,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorStore,
)

T = TypeVar("T")

WRITE_FAILURES = Counter(
    "mnemo_vector_write_failures", "Vector store writes (upsert, delete, flush...) that failed"
)
WRITES_OK = Gauge("mnemo_vector_writes_ok", "1 while the last vector store write succeeded")


class WatchedVectorStore:
    """Forwards to ``inner``; writes are watched."""

    def __init__(self, inner: VectorStore) -> None:
        self.inner = inner
        self.last_write_error: str | None = None
        WRITES_OK.set(1)

    def __getattr__(self, name: str) -> Any:
        # Engine-specific extras (``optimize``, ``stats``) reach the adapter itself.
        return getattr(self.inner, name)

    async def _write(self, call: Callable[[], Awaitable[T]]) -> T:
        try:
            result = await call()
        except Exception as exc:
            WRITE_FAILURES.inc()
            WRITES_OK.set(0)
            self.last_write_error = type(exc).__name__
            raise
        if self.last_write_error is not None:
            self.last_write_error = None
            WRITES_OK.set(1)
        return result

    async def open(self) -> None:
        """Open the adapter."""
        await self.inner.open()

    async def close(self) -> None:
        """Close the adapter."""
        await self.inner.close()

    async def healthy(self) -> bool:
        """False while the last write failed, else whether the store answers."""
        return self.last_write_error is None and await self.inner.healthy()

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Watched write."""
        await self._write(lambda: self.inner.upsert(points))

    async def set_state(self, bank_id: str, ids: Sequence[str], state: MemoryState) -> None:
        """Watched write."""
        await self._write(lambda: self.inner.set_state(bank_id, ids, state))

    async def delete(self, bank_id: str, ids: Sequence[str]) -> None:
        """Watched write."""
        await self._write(lambda: self.inner.delete(bank_id, ids))

    async def delete_bank(self, bank_id: str) -> None:
        """Watched write."""
        await self._write(lambda: self.inner.delete_bank(bank_id))

    async def flush(self) -> None:
        """Watched write."""
        await self._write(self.inner.flush)

    async def search(
        self, vector: Sequence[float], where: VectorFilter, limit: int
    ) -> list[VectorHit]:
        """Forwarded."""
        return await self.inner.search(vector, where, limit)

    async def search_many(
        self,
        vectors: QueryVectors,
        where: VectorFilter,
        limit: int,
        min_score: float | None = None,
    ) -> list[list[VectorHit]]:
        """Forwarded."""
        return await self.inner.search_many(vectors, where, limit, min_score)

    async def optimize(self) -> bool:
        """Watched write (the index build)."""
        return await self._write(self.inner.optimize)

    async def ids(self, bank_id: str) -> set[str]:
        """Forwarded."""
        return await self.inner.ids(bank_id)

    async def count(self, bank_id: str) -> int:
        """Forwarded."""
        return await self.inner.count(bank_id)
