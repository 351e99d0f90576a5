"""Group commit as an agent sees it: concurrent retains into one bank, each with its own answer.

Over real HTTP against the shared test server (its default group bounds), and in process with
tight bounds and a write that fails for one request, to see groups form and a failure stay
with its request. Real Neo4j, real vector store, real embeddings throughout.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence

import httpx
import pytest

from app.curate.schemas.banks import BankUpdate
from app.retain.pipeline import PreparedRequest, RetainPipeline
from app.retain.schemas import RetainItem
from app.runtime import Runtime
from tests.conftest import make_settings
from tests.support.helpers import GraphProbe

PEOPLE = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken"]
CITIES = ["Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Dakar", "Lima", "Riga"]


def note(i: int) -> str:
    """A one-sentence turn; each says something different so each is its own fact."""
    return f"{PEOPLE[i % 8]} Marlowe flew to {CITIES[(i * 3) % 8]} on day {i + 1} of the trip."


def stored_by_document(graph_probe: GraphProbe, bank: str) -> dict[str, set[str]]:
    rows = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) RETURN m.document_id AS d, m.id AS id, "
        "m.vector_pending AS pending",
        b=bank,
    )
    assert all(row["pending"] is False for row in rows), "a published retain left facts pending"
    stored: dict[str, set[str]] = {}
    for row in rows:
        stored.setdefault(str(row["d"]), set()).add(str(row["id"]))
    return stored


async def landed(client: httpx.AsyncClient, bank: str) -> None:
    """Wait, as a client does, for the publish and settle behind the answers (0018, 0019)."""
    response = await client.get(f"/v1/default/banks/{bank}/entities", params={"limit": 1})
    assert response.status_code == 200, response.text


async def send(
    client: httpx.AsyncClient, bank: str, items: list[dict[str, object]], **extra: object
) -> httpx.Response:
    return await client.post(
        f"/v1/default/banks/{bank}/memories", json={"items": items, **extra}, timeout=120
    )


# -- over HTTP ----------------------------------------------------------------------------------


async def test_concurrent_requests_into_one_bank_each_get_exactly_their_own_memories(
    base_url: str, bank: str, graph_probe: GraphProbe
) -> None:
    async with httpx.AsyncClient(base_url=base_url) as client:
        answers = await asyncio.gather(
            *(
                send(client, bank, [{"content": note(i), "document_id": f"turn-{i}"}])
                for i in range(16)
            )
        )
        await landed(client, bank)
    assert [a.status_code for a in answers] == [200] * 16, [a.text for a in answers]
    stored = stored_by_document(graph_probe, bank)
    seen: set[str] = set()
    for i, answer in enumerate(answers):
        body = answer.json()
        [item] = body["items"]
        assert item["document_id"] == f"turn-{i}"
        assert item["memory_ids"] and set(item["memory_ids"]) == set(body["memory_ids"])
        # Exactly the facts stored from this request's document, and no one else's.
        assert set(body["memory_ids"]) == stored[f"turn-{i}"]
        assert seen.isdisjoint(body["memory_ids"])
        seen |= set(body["memory_ids"])
    assert len(stored) == 16


async def test_a_bad_request_among_concurrent_ones_fails_alone(
    base_url: str, bank: str, graph_probe: GraphProbe
) -> None:
    good = [[{"content": note(i), "document_id": f"good-{i}"}] for i in range(6)]
    bad = [
        [{"content": "", "document_id": "empty"}],
        [
            {"content": note(7), "document_id": "twice"},
            {"content": note(8), "document_id": "twice"},
        ],
    ]
    async with httpx.AsyncClient(base_url=base_url) as client:
        answers = await asyncio.gather(
            *(
                send(client, bank, items)
                for items in [good[0], bad[0], *good[1:4], bad[1], *good[4:]]
            )
        )
        await landed(client, bank)
    codes = [a.status_code for a in answers]
    assert codes == [200, 400, 200, 200, 200, 400, 200, 200], [a.text for a in answers]
    assert "items[0].content" in answers[1].text
    assert "document_id" in answers[5].text
    stored = stored_by_document(graph_probe, bank)
    assert set(stored) == {f"good-{i}" for i in range(6)}
    for answer in (a for a in answers if a.status_code == 200):
        body = answer.json()
        assert set(body["memory_ids"]) == stored[body["items"][0]["document_id"]]


async def test_async_retains_share_the_path_with_sync_ones(
    base_url: str, bank: str, graph_probe: GraphProbe
) -> None:
    async with httpx.AsyncClient(base_url=base_url) as client:
        answers = await asyncio.gather(
            *(
                send(
                    client,
                    bank,
                    [{"content": note(i), "document_id": f"turn-{i}"}],
                    **({"async": True} if i % 2 else {}),
                )
                for i in range(10)
            )
        )
        assert [a.status_code for a in answers] == [200] * 10, [a.text for a in answers]
        assert [a.json()["async"] for a in answers] == [False, True] * 5
        operations = [a.json()["operation_id"] for a in answers[1::2]]
        deadline = time.monotonic() + 120
        for operation_id in operations:
            while True:
                status = (
                    await client.get(f"/v1/default/banks/{bank}/operations/{operation_id}")
                ).json()
                if status["status"] in ("completed", "failed"):
                    break
                assert time.monotonic() < deadline, status
                await asyncio.sleep(0.2)
            assert status["status"] == "completed" and status["errors"] == [], status
            assert status["memories_count"] >= 1
        await landed(client, bank)
    stored = stored_by_document(graph_probe, bank)
    assert set(stored) == {f"turn-{i}" for i in range(10)}
    for answer in answers[0::2]:
        body = answer.json()
        assert set(body["memory_ids"]) == stored[body["items"][0]["document_id"]]


# -- in process, with tight bounds ---------------------------------------------------------------

MAX_FACTS = 3
POISON = "poison-"


class Writes:
    """The facts of each group write the pipeline started, in order."""

    def __init__(self) -> None:
        self.groups: list[list[int]] = []


@pytest.fixture(scope="module")
async def grouped(
    tmp_path_factory: pytest.TempPathFactory, test_neo4j: str
) -> AsyncIterator[tuple[Runtime, Writes]]:
    """A runtime whose groups hold at most 3 facts and wait 300 ms for company.

    Its write phase records each group and fails any group holding a poisoned document (as a
    write that breaks on one request's data would), after which the pipeline writes the
    group's members one by one.
    """
    writes = Writes()
    real = RetainPipeline._write

    async def write(
        self: RetainPipeline, bank_id: str, requests: Sequence[PreparedRequest]
    ) -> None:
        writes.groups.append([r.facts for r in requests])
        if any(p.plan.document_id.startswith(POISON) for r in requests for p in r.items):
            raise RuntimeError("this write breaks on a poisoned document")
        await real(self, bank_id, requests)

    settings = make_settings(
        tmp_path_factory.mktemp("grouped"),
        retain_group_max_facts=MAX_FACTS,
        retain_group_wait_ms=300,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RetainPipeline, "_write", write)
        async with Runtime.open(settings, background=False) as runtime:
            yield runtime, writes


@pytest.fixture
async def grouped_bank(grouped: tuple[Runtime, Writes], bank_id: str) -> AsyncIterator[str]:
    """A fresh bank of the grouped runtime, its write record cleared; deleted afterwards."""
    runtime, writes = grouped
    await runtime.banks.put(bank_id, BankUpdate())
    writes.groups.clear()
    yield bank_id
    await runtime.retainer.wait_idle()
    await runtime.banks.delete(bank_id)


async def test_waiting_requests_share_writes_within_the_bounds(
    grouped: tuple[Runtime, Writes], grouped_bank: str, graph_probe: GraphProbe
) -> None:
    runtime, writes = grouped
    bank_id = grouped_bank
    answers = await asyncio.gather(
        *(
            runtime.retainer.retain(bank_id, [RetainItem(content=note(i), document_id=f"t-{i}")])
            for i in range(9)
        )
    )
    # Nine one-fact requests arrived together: they shared writes, none over the bound.
    assert len(writes.groups) < 9
    assert all(sum(group) <= MAX_FACTS for group in writes.groups), writes.groups
    assert sum(len(group) for group in writes.groups) == 9
    await runtime.retainer.published(bank_id)
    stored = stored_by_document(graph_probe, bank_id)
    for i, answer in enumerate(answers):
        assert set(answer.memory_ids) == stored[f"t-{i}"]


async def test_a_request_whose_write_fails_fails_alone_and_its_group_lands(
    grouped: tuple[Runtime, Writes], grouped_bank: str, graph_probe: GraphProbe
) -> None:
    runtime, writes = grouped
    bank_id = grouped_bank
    documents = ["a", f"{POISON}b", "c"]
    answers = await asyncio.gather(
        *(
            runtime.retainer.retain(bank_id, [RetainItem(content=note(i), document_id=d)])
            for i, d in enumerate(documents)
        ),
        return_exceptions=True,
    )
    assert isinstance(answers[1], RuntimeError)
    # They were one group, which failed, then were written one by one.
    assert writes.groups[0] == [1, 1, 1] and writes.groups[1:] == [[1], [1], [1]]
    await runtime.retainer.published(bank_id)
    stored = stored_by_document(graph_probe, bank_id)
    assert set(stored) == {"a", "c"}
    for answer, document in ((answers[0], "a"), (answers[2], "c")):
        assert not isinstance(answer, BaseException)
        assert set(answer.memory_ids) == stored[document]
    # The neighbours are published: their vectors are searchable.
    vector_ids = await runtime.vectors.ids(bank_id)
    assert vector_ids == stored["a"] | stored["c"]
