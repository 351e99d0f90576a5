"""Services that start together on one Neo4j all start.

Each schema statement is ``IF NOT EXISTS``, yet two sessions that both find an index missing
both create it, and the second is refused ("an equivalent index already exists"): a second
replica, or a benchmark next to a running service, failed its start-up that way.
"""

from __future__ import annotations

import asyncio

import neo4j

from app.store.cypher import CypherRegistry
from app.store.graph import Graph
from tests.conftest import neo4j_test_auth

# An index no test depends on while it is briefly gone (it speeds up finding unpublished facts).
INDEX = "memory_pending"
STARTING_TOGETHER = 4
ROUNDS = 5


def test_services_starting_together_on_a_fresh_neo4j_all_start(test_neo4j: str) -> None:
    registry = CypherRegistry.load()

    async def start_together() -> None:
        graphs = [
            Graph.connect(test_neo4j, registry=registry, auth=neo4j_test_auth())
            for _ in range(STARTING_TOGETHER)
        ]
        try:
            await asyncio.gather(*(g.bootstrap_schema() for g in graphs))
        finally:
            await asyncio.gather(*(g.close() for g in graphs))

    with neo4j.GraphDatabase.driver(
        test_neo4j, auth=neo4j_test_auth(), notifications_min_severity="OFF"
    ) as driver:
        for _ in range(ROUNDS):
            driver.execute_query(f"DROP INDEX {INDEX} IF EXISTS")
            asyncio.run(start_together())
            records, _, _ = driver.execute_query(
                "SHOW INDEXES YIELD name, state WHERE name = $name RETURN state", name=INDEX
            )
            assert [r["state"] for r in records] == ["ONLINE"]
