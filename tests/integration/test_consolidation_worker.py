"""The consolidation worker's leases in the real Neo4j: one worker per bank, expiry, fencing."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import cast

import pytest
import pytest_asyncio

from app.config import Settings
from app.consolidate.service import BatchOutcome, Consolidator, LeaseLost, check_lease
from app.consolidate.worker import ConsolidationWorker, WorkerSettings
from app.errors import NotFound
from app.store.cypher import CypherRegistry
from app.store.graph import Graph, Tx


@pytest_asyncio.fixture
async def graph(settings: Settings) -> AsyncIterator[Graph]:
    store = Graph.from_settings(settings, CypherRegistry.load())
    try:
        yield store
    finally:
        await store.close()


def worker(graph: Graph, owner: str, lease_s: float = 60.0) -> ConsolidationWorker:
    # Leases need only the graph: no consolidator runs in these tests.
    return ConsolidationWorker(
        graph, cast(Consolidator, None), WorkerSettings(lease_s=lease_s), owner=owner
    )


async def holds(graph: Graph, bank_id: str, owner: str) -> bool:
    async def work(tx: Tx) -> bool:
        try:
            await check_lease(tx, bank_id, owner)
        except LeaseLost:
            return False
        return True

    return await graph.write(bank_id, work)


async def test_one_worker_holds_a_bank_and_a_dead_workers_lease_expires(
    graph: Graph, bank: str
) -> None:
    a, b = worker(graph, "A", lease_s=1.0), worker(graph, "B", lease_s=1.0)
    assert await a.claim(bank)
    assert not await b.claim(bank)
    assert await a.claim(bank)  # renewing its own lease
    assert await holds(graph, bank, "A") and not await holds(graph, bank, "B")
    await asyncio.sleep(1.3)  # A stops renewing (it died): its lease expires
    assert await b.claim(bank)
    assert not await holds(graph, bank, "A"), "a worker whose lease was taken must not write"
    await b.release(bank)
    assert await a.claim(bank)


async def test_workers_claiming_at_once_get_one_lease(graph: Graph, bank: str) -> None:
    workers = [worker(graph, f"W{n}") for n in range(6)]
    won = await asyncio.gather(*(w.claim(bank) for w in workers))
    assert sum(won) == 1


class _Backlog:
    """A bank's consolidation as the worker sees it: ``left`` facts due, batches of any size.

    Stands in for the consolidator (whose batches the other tests run for real) so that the
    sizes the worker asks for can be read.
    """

    def __init__(self, left: int) -> None:
        self.left = left
        self.sizes: list[int] = []

    async def run_batch(self, bank_id: str, owner: str, limit: int) -> BatchOutcome:
        self.sizes.append(limit)
        taken = min(limit, self.left)
        self.left -= taken
        return BatchOutcome(facts=taken, done=taken)

    async def publish_vectors(self, bank_id: str) -> int:
        return 0


def draining(graph: Graph, backlog: _Backlog) -> ConsolidationWorker:
    """A worker that drains ``backlog`` in batches of 4, doubling up to 32."""
    return ConsolidationWorker(
        graph,
        cast(Consolidator, backlog),
        WorkerSettings(batch_size=4, max_batch_size=32),
        owner="A",
    )


async def test_a_backlog_is_worked_in_growing_batches_up_to_the_bound(
    graph: Graph, bank: str
) -> None:
    backlog = _Backlog(left=100)
    w = draining(graph, backlog)
    assert await w.claim(bank)
    assert await w._drain(bank) == 100
    # Full batches double (per-batch costs spread over more facts), never past the bound; a
    # short batch brings the size back down, and an empty one ends the drain.
    assert backlog.sizes == [4, 8, 16, 32, 32, 32, 4]


class _DeletedMidway(_Backlog):
    """A bank deleted while the worker drains it: its next batch finds no bank."""

    def __init__(self, left: int, deleted_after: int) -> None:
        super().__init__(left)
        self.deleted_after = deleted_after
        self.failed: list[int] = []

    async def run_batch(self, bank_id: str, owner: str, limit: int) -> BatchOutcome:
        if len(self.sizes) >= self.deleted_after:
            raise NotFound(f"bank {bank_id!r} not found")
        return await super().run_batch(bank_id, owner, limit)

    async def fail_batch(self, bank_id: str, limit: int, error: str) -> int:
        self.failed.append(limit)
        return limit


async def test_a_bank_deleted_while_it_is_consolidated_ends_its_drain_without_errors(
    graph: Graph, bank: str, caplog: pytest.LogCaptureFixture
) -> None:
    deleted = _DeletedMidway(left=100, deleted_after=2)
    w = draining(graph, deleted)
    assert await w.claim(bank)
    with caplog.at_level(logging.INFO, logger="app.consolidate.worker"):
        assert await w._drain(bank) == 12
    # Nothing is failed (the facts went with the bank) and nothing is logged as an error.
    assert deleted.failed == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("deleted" in r.getMessage() for r in caplog.records)
