"""Small helpers shared by the integration tests."""

from __future__ import annotations

from typing import Any

import httpx
import neo4j


class GraphProbe:
    """Read-only Cypher against the test Neo4j, for asserting what a request stored."""

    def __init__(self, driver: neo4j.Driver) -> None:
        self._driver = driver

    def rows(self, query: str, **params: object) -> list[dict[str, object]]:
        records = self._driver.execute_query(query, params, routing_=neo4j.RoutingControl.READ)
        return [record.data() for record in records.records]

    def value(self, query: str, **params: object) -> object:
        rows = self.rows(query, **params)
        assert len(rows) == 1, rows
        return next(iter(rows[0].values()))


def retain(
    http: httpx.Client, bank: str, *items: dict[str, object], **options: object
) -> dict[str, Any]:
    """POST a retain and return the JSON answer (asserting success)."""
    response = http.post(
        f"/v1/default/banks/{bank}/memories", json={"items": list(items), **options}
    )
    assert response.status_code in (200, 202), response.text
    body: dict[str, Any] = response.json()
    return body


def settled(http: httpx.Client, bank: str) -> None:
    """Wait, as a client does, for the settle behind the bank's writes (decision 0018).

    An entity read waits for it; a test reading the graph directly must do one first.
    """
    response = http.get(f"/v1/default/banks/{bank}/entities", params={"limit": 1})
    assert response.status_code == 200, response.text
