"""Helpers for the entity integration tests: chunks-mode banks, facts with caller entities,
which entity a mention resolved to, and an exact picture of a bank's entity side."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.graph_snapshot import _plain
from tests.support.helpers import GraphProbe, retain


def make_bank(http: httpx.Client, bank_id: str, **config: Any) -> str:
    """A fresh bank in ``chunks`` mode (one fact per item, entities as the caller says)."""
    body = {"name": "entity test", "retain_extraction_mode": "chunks", **config}
    response = http.put(f"/v1/default/banks/{bank_id}", json=body)
    assert response.status_code == 200, response.text
    return bank_id


def item(
    content: str, *entities: str | tuple[str, str | None], at: str, **extra: Any
) -> dict[str, Any]:
    """A retain item whose entities are given: ``"Name"`` or ``("Name", "type")``."""
    hints = [
        {"text": e, "type": "person"} if isinstance(e, str) else {"text": e[0], "type": e[1]}
        for e in entities
    ]
    return {"content": content, "timestamp": at, "entities": hints, **extra}


def one(http: httpx.Client, bank: str, *items: dict[str, Any], **options: Any) -> list[str]:
    """Retain items in one request; the new memory ids."""
    ids: list[str] = retain(http, bank, *items, **options)["memory_ids"]
    return ids


def each(http: httpx.Client, bank: str, *items: dict[str, Any]) -> list[str]:
    """Retain items one request at a time (resolution sees them in this order)."""
    return [mid for it in items for mid in one(http, bank, it)]


def memory(http: httpx.Client, bank: str, memory_id: str) -> dict[str, Any]:
    """A memory as the API shows it."""
    response = http.get(f"/v1/default/banks/{bank}/memories/{memory_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def entity_of(http: httpx.Client, bank: str, memory_id: str, mention: str) -> str:
    """The entity id a memory's mention (surface text) resolved to."""
    found = [e["id"] for e in memory(http, bank, memory_id)["mentions"] if e["mention"] == mention]
    assert len(found) == 1, (mention, memory(http, bank, memory_id)["mentions"])
    return str(found[0])


def get_json(http: httpx.Client, path: str, expect: int = 200, **params: Any) -> Any:
    """GET and check the status."""
    response = http.get(path, params=params)
    assert response.status_code == expect, response.text
    return response.json()


def post_json(http: httpx.Client, path: str, body: dict[str, Any], expect: int = 200) -> Any:
    """POST and check the status."""
    response = http.post(path, json=body)
    assert response.status_code == expect, response.text
    return response.json()


def entities_url(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/entities{suffix}"


def merges_url(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/entity-merges{suffix}"


def reviews_url(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/reviews{suffix}"


def entity_count(probe: GraphProbe, bank: str) -> int:
    return int(probe.value("MATCH (e:Entity {bank_id: $b}) RETURN count(e) AS n", b=bank))  # type: ignore[call-overload]


_TOKEN_FIELDS = ("search_text", "lookup_keys")


def entity_side(probe: GraphProbe, bank: str) -> dict[str, Any]:
    """Every entity (properties), name claim, mention (active or archived), co-occurrence and
    fact keyword field of a bank, comparable with ``==``.

    The full-text lookup fields compare as token sets: they are rebuilt from the same names,
    possibly in another order, which searches the same.
    """
    entities = {}
    for row in probe.rows(
        "MATCH (e:Entity {bank_id: $b}) RETURN e.id AS id, properties(e) AS props", b=bank
    ):
        props: dict[str, Any] = dict(row["props"])  # type: ignore[call-overload]
        for field in _TOKEN_FIELDS:
            props[field] = frozenset(str(props.get(field) or "").split())
        entities[row["id"]] = tuple(sorted((k, _plain(v)) for k, v in props.items()))

    def rels(query: str) -> list[tuple[Any, ...]]:
        return sorted(
            (str(r["a"]), str(r["b"]), tuple(sorted((k, _plain(v)) for k, v in r["p"].items())))  # type: ignore[union-attr]
            for r in probe.rows(query, b=bank)
        )

    return {
        "entities": entities,
        "shells": sorted(
            str(r["id"])
            for r in probe.rows("MATCH (g:MergedEntity {bank_id: $b}) RETURN g.id AS id", b=bank)
        ),
        "mentions": rels(
            "MATCH (m:Memory {bank_id: $b})-[r:MENTIONS]->(e) "
            "RETURN m.id AS a, e.id AS b, properties(r) AS p"
        ),
        "archived_mentions": rels(
            "MATCH (m:Memory {bank_id: $b})-[r:ARCHIVED_LINK {type: 'MENTIONS'}]->(e) "
            "RETURN m.id AS a, e.id AS b, properties(r) AS p"
        ),
        "names": rels(
            "MATCH (e {bank_id: $b})-[r:KNOWN_AS]->(n:Name) RETURN e.id AS a, n.key AS b, "
            "properties(r) AS p"
        ),
        "name_nodes": sorted(
            str(r["key"])
            for r in probe.rows("MATCH (n:Name {bank_id: $b}) RETURN n.key AS key", b=bank)
        ),
        "co_occurs": rels(
            "MATCH (x:Entity {bank_id: $b})-[r:CO_OCCURS]->(y) "
            "RETURN x.id AS a, y.id AS b, properties(r) AS p"
        ),
        "fact_names": sorted(
            (str(r["id"]), str(r["names"]))
            for r in probe.rows(
                "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.entity_names AS names", b=bank
            )
        ),
    }
