"""Entity resolution costs a write a fixed number of statements, whatever the facts it carries.

Group commit puts many requests' facts into one write; that pays only if resolving them costs
about what resolving one costs. Here, in process against the real Neo4j, a bank holds twelve
people, each seen with their own city; then one write resolves one fact about one of them and
another resolves twelve facts about all of them (the same shape, twelve times). Both must send
the same number of resolution statements, and resolve to the stored entities.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from app.curate.schemas.banks import BankUpdate
from app.resolve.bulk import SeedEntity, seed_entities
from app.resolve.graph_resolver import LOOKUP_LIMIT, lookup_query
from app.retain.schemas import EntityHint, RetainItem
from app.runtime import Runtime
from app.store.graph import Tx
from tests.conftest import make_settings
from tests.support.helpers import GraphProbe

PEOPLE = [
    "Ada Marlowe", "Grace Okafor", "Alan Brisbane", "Edsger Vantongeren", "Barbara Quill",
    "Donald Ferreira", "Frances Lindqvist", "Kenji Albarran", "Miriam Stolte", "Oskar Devereux",
    "Priya Tannenbaum", "Rafael Whitcombe",
]  # fmt: skip
CITIES = [
    "Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Dakar", "Lima", "Riga", "Tunis", "Accra",
    "Cusco", "Bergen",
]  # fmt: skip


def item(i: int, n: int) -> RetainItem:
    """A lower-case note (nothing for local extraction to add) naming person i and their city."""
    return RetainItem(
        content=f"note {n} of the travel log: one more day on the road.",
        entities=[
            EntityHint(text=PEOPLE[i], type="person"),
            EntityHint(text=CITIES[i], type="place"),
        ],
    )


@pytest.fixture(scope="module")
async def runtime(
    tmp_path_factory: pytest.TempPathFactory, test_neo4j: str
) -> AsyncIterator[Runtime]:
    async with Runtime.open(
        make_settings(tmp_path_factory.mktemp("round-trips")), background=False
    ) as opened:
        yield opened


@pytest.fixture
async def people_bank(runtime: Runtime, bank_id: str) -> AsyncIterator[str]:
    """A bank where each person was seen twice with their own city, in separate writes."""
    await runtime.banks.put(bank_id, BankUpdate())
    for n in range(2):
        await runtime.retainer.retain(bank_id, [item(i, n) for i in range(len(PEOPLE))])
    yield bank_id
    await runtime.retainer.wait_idle()
    await runtime.banks.delete(bank_id)


def count_resolution_statements(
    monkeypatch: pytest.MonkeyPatch,
) -> Counter[str]:
    """Counts, by name, the entity resolution statements run in transactions from now on."""
    counts: Counter[str] = Counter()
    real: Callable[..., Any] = Tx.run

    @functools.wraps(real)
    async def run(self: Tx, name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("resolve/"):
            counts[name] += 1
        return await real(self, name, *args, **kwargs)

    monkeypatch.setattr(Tx, "run", run)
    return counts


async def test_resolving_twelve_facts_sends_as_many_statements_as_resolving_one(
    runtime: Runtime,
    people_bank: str,
    monkeypatch: pytest.MonkeyPatch,
    graph_probe: GraphProbe,
) -> None:
    counts = count_resolution_statements(monkeypatch)
    await runtime.retainer.retain(people_bank, [item(0, 2)])
    one = Counter(counts)
    counts.clear()
    await runtime.retainer.retain(people_bank, [item(i, 3) for i in range(len(PEOPLE))])
    twelve = Counter(counts)

    assert one["resolve/lookup"] > 0 and one["resolve/load_entities"] > 0
    assert sum(twelve.values()) == sum(one.values()), (one, twelve)
    # Every mention found its stored entity: still one entity per name.
    rows = graph_probe.rows(
        "MATCH (e:Entity {bank_id: $b}) RETURN e.canonical_name AS name, e.mention_count AS n",
        b=people_bank,
    )
    assert sorted(r["name"] for r in rows) == sorted(PEOPLE + CITIES)
    assert {r["n"] for r in rows if r["name"] == PEOPLE[0]} == {4}
    assert {r["n"] for r in rows if r["name"] == PEOPLE[1]} == {3}


async def test_a_bare_name_finds_its_full_names_past_many_entities_called_by_it_alone(
    runtime: Runtime, bank_id: str
) -> None:
    # Each "Luka" no one could place is an entity of its own; the lookup of the next "Luka"
    # must still return the full names it may stand for, however many such entities there are.
    await runtime.banks.put(bank_id, BankUpdate())
    at = datetime(2031, 1, 1, tzinfo=UTC)
    alone = [
        SeedEntity(id=f"luka-{i:02d}", name="Luka", type="person", first_seen=at, last_seen=at)
        for i in range(3 * LOOKUP_LIMIT)
    ]
    full = SeedEntity(id="babic", name="Luka Babić", type="person", first_seen=at, last_seen=at)
    await runtime.graph.write(bank_id, lambda tx: seed_entities(tx, bank_id, [*alone, full]))

    async def lookup(tx: Tx) -> list[dict[str, Any]]:
        query = lookup_query(bank_id, "luka", "person")
        probes = [{"i": 0, "key": "luka", "lucene": query}]
        return await tx.run("resolve/lookup", {"bank_id": bank_id, "probes": probes, "limit": 5})

    rows = await runtime.graph.write(bank_id, lookup)
    found = {r["id"] for r in rows}
    assert found == {e.id for e in alone} | {"babic"}
    await runtime.banks.delete(bank_id)
