"""Seed a bank with known entities in bulk, as the resolver would have stored them.

For imports of an existing directory (people, customers, products) and for the scale benchmark
(scripts/bench_resolve_scale.py), which needs 100k entities in a bank without retaining 100k
facts. Entities arrive with their names (claims with source ``import``, no fact behind them),
their full-text lookup fields computed exactly as for resolved entities, and optionally their
co-occurrences; resolution then treats them like any stored entity.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec

from app.domain.names import name_key
from app.resolve.graph_resolver import lookup_fields
from app.store.graph import Tx
from app.store.search_keys import bank_key


class SeedEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity to seed: its canonical name, other names (``stated``: aliases), type, times."""

    id: str
    name: str
    type: str = ""
    aliases: tuple[str, ...] = ()
    first_seen: datetime
    last_seen: datetime
    mention_count: int = 1


class SeedPair(msgspec.Struct, frozen=True):
    """Two seeded entities named together in ``count`` facts."""

    a: str
    b: str
    count: int
    first: datetime
    last: datetime


async def seed_entities(tx: Tx, bank_id: str, entities: Sequence[SeedEntity]) -> int:
    """Write entities with their names and lookup fields; returns how many were written."""
    rows = []
    for e in entities:
        names = {name_key(e.name): (e.name, False)}
        for alias in e.aliases:
            names.setdefault(name_key(alias), (alias, True))
        names.pop("", None)
        fields = lookup_fields(names, e.type or None, e.name)
        rows.append(
            {
                "id": e.id,
                "canonical_name": e.name,
                "name_key": name_key(e.name),
                "type": e.type,
                "first": e.first_seen,
                "last": e.last_seen,
                "mention_count": e.mention_count,
                **msgspec.structs.asdict(fields),
                "names": [
                    {"key": key, "text": text, "stated": stated}
                    for key, (text, stated) in names.items()
                ],
            }
        )
    if not rows:
        return 0
    done = await tx.run(
        "resolve/bulk_entities",
        {"bank_id": bank_id, "bank_key": bank_key(bank_id), "entities": rows},
    )
    return int(done[0]["entities"])


async def seed_co_occurrences(tx: Tx, bank_id: str, pairs: Sequence[SeedPair]) -> None:
    """Write co-occurrence edges between seeded entities (each pair once, ``a < b``)."""
    if any(p.a >= p.b for p in pairs):
        raise ValueError("each pair must name the smaller id first, and two distinct ids")
    if pairs:
        await tx.run(
            "resolve/bulk_co_occurs",
            {"bank_id": bank_id, "pairs": [msgspec.structs.asdict(p) for p in pairs]},
        )
