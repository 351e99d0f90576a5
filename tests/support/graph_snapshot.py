"""Exact, comparable pictures of a bank's graph (or of one fact's relationships) for tests.

Values are made hashable and printable (Neo4j temporals as ISO strings, lists as tuples) so two
snapshots compare with ``==`` and a difference reads well in a pytest diff.
"""

from __future__ import annotations

from typing import Any

from tests.support.helpers import GraphProbe

BANK_LABELS = ("Document", "Chunk", "Memory", "MemoryRevision", "Entity", "Name")


def _plain(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _plain(v)) for k, v in value.items()))
    if hasattr(value, "iso_format"):
        return value.iso_format()
    return value


def _props(props: dict[str, Any], skip: tuple[str, ...] = ()) -> tuple[Any, ...]:
    return tuple(sorted((k, _plain(v)) for k, v in props.items() if k not in skip))


def bank_snapshot(probe: GraphProbe, bank: str) -> dict[str, Any]:
    """Every bank-scoped node (labels, properties) and relationship (type, ends, properties).

    The Bank node itself is left out (its write counter moves with every write).
    """
    nodes: dict[tuple[str, str], tuple[Any, ...]] = {}
    for label in BANK_LABELS:
        for row in probe.rows(
            f"MATCH (n:{label} {{bank_id: $b}}) "
            "RETURN coalesce(n.id, n.key) AS key, labels(n) AS labels, properties(n) AS props",
            b=bank,
        ):
            nodes[(label, str(row["key"]))] = (
                tuple(sorted(row["labels"])),  # type: ignore[arg-type]
                _props(row["props"]),  # type: ignore[arg-type]
            )
    rels = sorted(
        (
            str(row["type"]),
            str(row["source"]),
            str(row["target"]),
            _props(row["props"]),  # type: ignore[arg-type]
        )
        for label in BANK_LABELS
        for row in probe.rows(
            f"MATCH (a:{label} {{bank_id: $b}})-[r]->(c) "
            "RETURN type(r) AS type, coalesce(a.id, a.key) AS source, "
            "coalesce(c.id, c.key) AS target, properties(r) AS props",
            b=bank,
        )
    )
    return {"nodes": nodes, "relationships": rels}


def fact_links(probe: GraphProbe, bank: str, memory_id: str) -> list[tuple[Any, ...]]:
    """One fact's relationships other than provenance and history, as comparable tuples.

    Archived links show up as ``ARCHIVED_LINK`` with their original type in ``type``; their
    ``archived_at`` is left out so an archived link compares to itself across archives.
    """
    rows = probe.rows(
        "MATCH (m:Memory {bank_id: $b, id: $id})-[r]-(x) "
        "WHERE NOT type(r) IN ['FROM', 'HAS_REVISION'] "
        "RETURN type(r) AS type, startNode(r) = m AS outgoing, x.id AS other, "
        "properties(r) AS props",
        b=bank,
        id=memory_id,
    )
    return sorted(
        (
            str(r["type"]),
            bool(r["outgoing"]),
            str(r["other"]),
            _props(r["props"], skip=("archived_at",)),  # type: ignore[arg-type]
        )
        for r in rows
    )


def entity_counts(probe: GraphProbe, bank: str) -> dict[str, Any]:
    """Entities' counts and times, and every CO_OCCURS edge with its count and times."""
    entities = {
        str(r["id"]): (r["name"], r["count"], _plain(r["first"]), _plain(r["last"]))
        for r in probe.rows(
            "MATCH (e:Entity {bank_id: $b}) RETURN e.id AS id, e.canonical_name AS name, "
            "e.mention_count AS count, e.first_seen AS first, e.last_seen AS last",
            b=bank,
        )
    }
    pairs = {
        (str(r["a"]), str(r["c"])): (r["count"], _plain(r["first"]), _plain(r["last"]))
        for r in probe.rows(
            "MATCH (a:Entity {bank_id: $b})-[r:CO_OCCURS]->(c:Entity) "
            "RETURN a.id AS a, c.id AS c, r.count AS count, r.first_at AS first, "
            "r.last_at AS last",
            b=bank,
        )
    }
    return {"entities": entities, "co_occurs": pairs}
