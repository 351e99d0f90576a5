"""Bank stats count consolidation as done only when recall can find what it made.

An observation is written to Neo4j in the batch's transaction and its vector to the vector store
after it: between the two (or after a crash there) its sources are done in the graph, yet recall
does not show the observation (it is half-written). Stats count those sources as still pending,
so a client waiting for ``pending_consolidation == 0`` (as Hindsight's clients do) does not
recall too early, nor in the middle of the vector write (where a recall's graph channel, which
runs after the vector and keyword channels, can find what they missed).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.curate.schemas.banks import BankUpdate
from app.recall.schemas import RecallRequest
from app.retain.schemas import RetainItem
from app.runtime import Runtime
from tests.conftest import make_settings

RESTATED = ["Ana Ruiz has two dogs.", "Ana Ruiz owns 2 dogs."]
QUESTION = RecallRequest(query="How many dogs does Ana Ruiz have?", types=["observation"])


@pytest.fixture
async def runtime(test_neo4j: str, tmp_path: Path) -> AsyncIterator[Runtime]:
    # No worker: the test runs the consolidation batch and the vector write itself.
    async with Runtime.open(make_settings(tmp_path), background=False) as rt:
        yield rt


async def test_facts_stay_pending_until_their_observation_is_searchable(
    runtime: Runtime,
) -> None:
    bank = f"cs-{uuid.uuid4().hex[:8]}"
    try:
        await runtime.banks.put(bank, BankUpdate(retain_extraction_mode="local"))
        for n, text in enumerate(RESTATED):
            await runtime.retainer.retain(bank, [RetainItem(content=text, document_id=f"d{n}")])
        # A retain is answered once written; consolidation takes a fact once it is published.
        await runtime.retainer.published(bank)
        before = await runtime.banks.stats(bank)
        assert (before.pending_consolidation, before.last_consolidated_at) == (2, None)

        assert await runtime.worker.claim(bank)
        outcome = await runtime.consolidator.run_batch(bank, runtime.worker.owner, 10)
        assert outcome.created == 1 and outcome.done == 2
        written = await runtime.banks.stats(bank)
        assert written.total_observations == 1
        assert written.pending_consolidation == 2, "its observation is not searchable yet"
        # Recall shows nothing half-written: the observation is not found by any channel yet.
        assert (await runtime.recall.recall(bank, QUESTION)).results == []

        assert await runtime.consolidator.publish_vectors(bank) == 1
        settled = await runtime.banks.stats(bank)
        assert (settled.pending_consolidation, settled.failed_consolidation) == (0, 0)
        assert settled.last_consolidated_at is not None
        [found] = (await runtime.recall.recall(bank, QUESTION)).results
        assert {"vector", "keyword", "graph"} <= set(found.scores)
    finally:
        await runtime.banks.delete(bank)
