"""The Neo4j liveness watcher tells a hung Neo4j from a stalled service (no database needed)."""

from __future__ import annotations

import asyncio
import time

from app.store.liveness import Liveness


async def answering() -> None:
    await asyncio.sleep(0)


async def hanging() -> None:
    await asyncio.sleep(3600)


async def refusing() -> None:
    raise ConnectionRefusedError("connection refused")


def watcher(ping: object) -> Liveness:
    return Liveness(ping, interval=0.05, timeout=0.05, unresponsive_after=0.4)  # type: ignore[arg-type]


async def test_a_neo4j_that_never_answers_is_down_within_the_unresponsive_time() -> None:
    liveness = watcher(hanging)
    await liveness.start()
    try:
        await asyncio.wait_for(liveness.down_event.wait(), timeout=2)
    finally:
        await liveness.stop()
    assert liveness.down


async def test_a_refused_connection_is_down_at_once() -> None:
    liveness = watcher(refusing)
    assert not await liveness.check()
    assert liveness.down


async def test_a_stalled_event_loop_is_not_taken_for_a_hung_neo4j() -> None:
    liveness = watcher(answering)
    await liveness.start()
    went_down = asyncio.create_task(liveness.down_event.wait())
    try:
        await asyncio.sleep(0.2)
        time.sleep(1.0)  # the whole loop stalls, longer than the unresponsive time
        await asyncio.sleep(0.3)
        assert not went_down.done(), "the stall was taken for a hung Neo4j"
    finally:
        went_down.cancel()
        await liveness.stop()


async def test_an_answer_after_an_outage_brings_it_back() -> None:
    neo4j_up = False

    async def ping() -> None:
        if not neo4j_up:
            raise ConnectionRefusedError("connection refused")

    liveness = watcher(ping)
    assert not await liveness.check()
    neo4j_up = True
    assert await liveness.check()
    assert not liveness.down
