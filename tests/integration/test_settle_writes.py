"""A settle decides before it writes: while it replays, the facts it covers stay writable.

A settle runs behind a bank's writes, in a transaction of its own (decision 0018), and the
publish of the same facts (their pending flags and links) runs beside it (decision 0019). If
the settle took its write locks before replaying, a publish of those facts would wait for the
whole replay, and the two could deadlock, Neo4j failing the settle and its replay running
again with the bank's writers waiting. Real Neo4j, vector store and embeddings.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.curate.schemas.banks import BankUpdate
from app.resolve.settle_store import replay_block as real_replay_block
from app.retain.publish import publish_facts
from app.retain.schemas import EntityHint, RetainItem
from app.runtime import Runtime
from tests.conftest import make_settings
from tests.support.helpers import GraphProbe

# Long enough for a slow machine's write; a settle holding the facts' locks waits forever.
PUBLISH_TIMEOUT_S = 20.0


class HeldReplay:
    """Replays that wait, once entered, until the test lets them go."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()


@pytest.fixture
async def held(
    tmp_path_factory: pytest.TempPathFactory, test_neo4j: str
) -> AsyncIterator[tuple[Runtime, HeldReplay]]:
    """A runtime whose settles stop in their replay until released."""
    hold = HeldReplay()

    async def replay_block(*args: Any, **kwargs: Any) -> Any:
        hold.entered.set()
        await asyncio.wait_for(hold.release.wait(), PUBLISH_TIMEOUT_S * 2)
        return await real_replay_block(*args, **kwargs)

    settings = make_settings(tmp_path_factory.mktemp("held-settle"))
    with pytest.MonkeyPatch.context() as patch:
        # Where the resolver looks it up.
        patch.setattr("app.resolve.graph_resolver.replay_block", replay_block)
        async with Runtime.open(settings, background=False) as runtime:
            yield runtime, hold


async def test_a_publish_of_the_facts_a_settle_covers_commits_while_it_replays(
    held: tuple[Runtime, HeldReplay], bank_id: str, graph_probe: GraphProbe
) -> None:
    runtime, hold = held
    await runtime.banks.put(bank_id, BankUpdate())
    try:
        answer = await runtime.retainer.retain(
            bank_id,
            [
                RetainItem(
                    content="Ada Marlowe met Grace Okonjo at the Lisbon harbour office.",
                    entities=[
                        EntityHint(text="Ada Marlowe", type="person"),
                        EntityHint(text="Grace Okonjo", type="person"),
                    ],
                )
            ],
        )
        await runtime.retainer.published(bank_id)
        await asyncio.wait_for(hold.entered.wait(), PUBLISH_TIMEOUT_S)

        # The settle of this write is replaying, in its open transaction: a publish of the
        # same facts (as a later group's publish writes them) commits meanwhile.
        cleared = await asyncio.wait_for(
            publish_facts(runtime.graph, bank_id, answer.memory_ids), PUBLISH_TIMEOUT_S
        )
        assert cleared == len(answer.memory_ids)

        hold.release.set()
        await runtime.retainer.settled(bank_id)
        marked = graph_probe.rows(
            "MATCH (m:Memory {bank_id: $b}) WHERE m.settle_pending = true RETURN m.id AS id",
            b=bank_id,
        )
        assert marked == [], "the settle did not finish after its replay was released"
        people = graph_probe.rows(
            "MATCH (e:Entity {bank_id: $b, type: 'person'}) RETURN e.canonical_name AS name",
            b=bank_id,
        )
        assert sorted(str(r["name"]) for r in people) == ["Ada Marlowe", "Grace Okonjo"]
    finally:
        hold.release.set()
        await runtime.retainer.wait_idle()
        await runtime.banks.delete(bank_id)
