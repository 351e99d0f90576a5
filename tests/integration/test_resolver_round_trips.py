"""Entity resolution costs a write a fixed number of statements, whatever the facts it carries.

Group commit puts many requests' facts into one write; that pays only if resolving them costs
about what resolving one costs. Here, in process against the real Neo4j, a bank holds twelve
people, each seen with their own city; then one write resolves one fact about one of them and
another resolves twelve facts about all of them (the same shape, twelve times). Both must send
the same number of resolution statements, and resolve to the stored entities.
"""

from __future__ import annotations

import contextvars
import functools
from collections import Counter
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from app.curate.schemas.banks import BankUpdate
from app.resolve.bulk import SeedEntity, SeedPair, seed_co_occurrences, seed_entities
from app.resolve.graph_resolver import LOOKUP_LIMIT, GraphResolver, lookup_query
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
    """Counts, by name, the statements a write's resolution runs from now on.

    A write's settle runs after it, in a transaction of its own, whenever the worker gets to
    it: its statements are not counted, or the count would depend on that timing.
    """
    counts: Counter[str] = Counter()
    in_write = contextvars.ContextVar("in_write", default=False)
    real: Callable[..., Any] = Tx.run

    @functools.wraps(real)
    async def run(self: Tx, name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("resolve/") and in_write.get():
            counts[name] += 1
        return await real(self, name, *args, **kwargs)

    def counted(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            token = in_write.set(True)
            try:
                return await method(*args, **kwargs)
            finally:
                in_write.reset(token)

        return wrapper

    monkeypatch.setattr(Tx, "run", run)
    for method in ("resolve", "record_mentions"):
        monkeypatch.setattr(GraphResolver, method, counted(getattr(GraphResolver, method)))
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


async def test_two_popular_namesakes_once_named_together_stay_two(
    runtime: Runtime, bank_id: str, graph_probe: GraphProbe
) -> None:
    # Sarah Chen and a Sarah, named side by side once, each met with everyone else in the
    # bank: both are hubs, which a write's first pass does not list as anyone's neighbour.
    # Named together, they are two people, whatever a later write says of Sarah.
    await runtime.banks.put(bank_id, BankUpdate())
    at = datetime(2031, 1, 1, tzinfo=UTC)

    def seeded(eid: str, name: str, kind: str, mentions: int = 1) -> SeedEntity:
        return SeedEntity(
            id=eid, name=name, type=kind, first_seen=at, last_seen=at, mention_count=mentions
        )

    pair = [seeded("a-chen", "Sarah Chen", "person", 30), seeded("b-sarah", "Sarah", "person", 3)]
    others = [seeded(f"c-{i:02d}", p, "person") for i, p in enumerate(PEOPLE)]
    others += [seeded(f"d-{i:02d}", c, "place") for i, c in enumerate(CITIES)]
    edges = [SeedPair("a-chen", "b-sarah", 1, at, at)]
    edges += [SeedPair(s.id, o.id, 2, at, at) for s in pair for o in others]

    async def seed(tx: Tx) -> None:
        await seed_entities(tx, bank_id, [*pair, *others])
        await seed_co_occurrences(tx, bank_id, edges)

    await runtime.graph.write(bank_id, seed)
    hint = EntityHint(text="Sarah", type="person")
    await runtime.retainer.retain(
        bank_id, [RetainItem(content="a call about the quarterly numbers.", entities=[hint])]
    )
    await runtime.retainer.wait_idle()
    rows = graph_probe.rows(
        "MATCH (e:Entity {bank_id: $b}) WHERE e.id IN ['a-chen', 'b-sarah'] RETURN e.id AS id",
        b=bank_id,
    )
    assert sorted(r["id"] for r in rows) == ["a-chen", "b-sarah"]
    await runtime.banks.delete(bank_id)
