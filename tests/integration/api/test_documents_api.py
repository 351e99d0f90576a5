"""Documents over real HTTP: list with counts, get, delete (exact cascade), reprocess."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from app.errors import NotFound
from app.retain.extract.extracted import ExtractionInput, ExtractionResult
from app.retain.extract.port import ExtractionSettings
from app.runtime import Runtime
from tests.conftest import make_settings
from tests.support.fake_openai import FakeOpenAIServer, reply_json
from tests.support.graph_snapshot import bank_snapshot, entity_counts
from tests.support.helpers import GraphProbe, retain, settled
from tests.support.llm_app import STAY, STAY_TEXT, llm_http, llm_server

__all__ = ["llm_http", "llm_server"]  # module-scoped fixtures used below

SHARED = {
    "content": "Alice Novak met Bob Stone in Paris. Bob Stone works at Quill Labs.",
    "timestamp": "2024-03-10T09:00:00Z",
    "document_id": "shared/b",
    "tags": ["work"],
}
EARLY = {
    "content": "Alice Novak and Bob Stone visited Lyon with Carla Diaz.",
    "timestamp": "2024-01-05T09:00:00Z",
    "document_id": "a/early",
}
LATE = {
    "content": "Bob Stone and Alice Novak hired Dan Wu at Quill Labs in Paris.",
    "timestamp": "2024-06-01T09:00:00Z",
    "document_id": "a/late",
    "metadata": {"source": "email"},
}


def docs(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/documents{suffix}"


def test_list_shows_memory_counts_and_finds_empty_documents(http: httpx.Client, bank: str) -> None:
    retain(http, bank, SHARED)
    retain(http, bank, {"content": "ok", "document_id": "empty-one"})
    page = http.get(docs(bank)).json()
    assert page["total"] == 2
    by_id = {d["id"]: d for d in page["items"]}
    assert [d["id"] for d in page["items"]] == ["empty-one", "shared/b"]  # newest first
    assert by_id["shared/b"]["memory_count"] == 2
    assert by_id["shared/b"]["valid_memory_count"] == 2
    assert by_id["shared/b"]["chunk_count"] == 1
    assert by_id["shared/b"]["tags"] == ["work"]
    assert by_id["shared/b"]["timestamp"].startswith("2024-03-10T09:00:00")
    assert by_id["empty-one"]["memory_count"] == 0
    empty = http.get(docs(bank), params={"empty": "true"}).json()
    assert [d["id"] for d in empty["items"]] == ["empty-one"]
    assert empty["total"] == 1
    full = http.get(docs(bank), params={"empty": "false"}).json()
    assert [d["id"] for d in full["items"]] == ["shared/b"]
    assert http.get(docs(bank), params={"limit": 1, "offset": 1}).json()["items"][0]["id"] == (
        "shared/b"
    )


def test_cursor_pages_walk_every_document_once_newest_first(http: httpx.Client, bank: str) -> None:
    # Three documents in one retain share created_at: ties go by id.
    retain(http, bank, *({"content": f"note {i}", "document_id": f"d{i}"} for i in range(3)))
    retain(http, bank, {"content": "later", "document_id": "d9"})
    retain(http, bank, {"content": "ok", "document_id": "empty-one"})
    everything = http.get(docs(bank)).json()
    assert [d["id"] for d in everything["items"]] == ["empty-one", "d9", "d0", "d1", "d2"]
    for params in ({}, {"empty": "false"}):
        expected = [
            d
            for d in everything["items"]
            if params.get("empty") != "false" or d["memory_count"] > 0
        ]
        walked: list[str] = []
        page = http.get(docs(bank), params={"limit": 2, **params}).json()
        while True:
            walked += [d["id"] for d in page["items"]]
            assert page["total"] == len(expected), params
            if page["next_cursor"] is None:
                break
            page = http.get(
                docs(bank), params={"limit": 2, "cursor": page["next_cursor"], **params}
            ).json()
        assert walked == [d["id"] for d in expected], params
    assert http.get(docs(bank), params={"cursor": "W10"}).status_code == 400


def test_get_returns_the_original_text_and_active_chunks(http: httpx.Client, bank: str) -> None:
    retain(http, bank, LATE)
    for path in (LATE["document_id"], quote(str(LATE["document_id"]), safe="")):
        document = http.get(docs(bank, f"/{path}")).json()
        assert document["id"] == "a/late"
        assert document["original_text"] == LATE["content"]
        assert document["metadata"] == {"source": "email"}
        assert document["memory_count"] == 1
        assert [(c["index"], c["text"]) for c in document["chunks"]] == [(0, LATE["content"])]
        assert document["chunks"][0]["memory_count"] == 1


def test_unknown_or_foreign_document_is_404(
    http: httpx.Client, bank: str, bank_id: str, graph_probe: GraphProbe
) -> None:
    retain(http, bank, LATE)
    other = f"{bank_id}-b"
    http.put(f"/v1/default/banks/{other}", json={})
    assert http.get(docs(bank, "/nope")).status_code == 404
    assert http.get(docs(other, "/a/late")).status_code == 404
    assert http.delete(docs(other, "/a/late")).status_code == 404
    assert http.post(docs(other, "/a/late/reprocess")).status_code == 404
    assert http.post(docs(bank, "/a/late")).status_code == 404  # no such action
    assert http.get(docs(f"{bank_id}-nope")).status_code == 404
    assert (
        graph_probe.value(
            "MATCH (m:Memory {bank_id: $b, document_id: 'a/late'}) RETURN count(m) AS n", b=bank
        )
        == 1
    )


def test_deleting_documents_undoes_exactly_what_they_added(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    """Retain B; snapshot; retain A (early) and A' (late) sharing entities with B; curate them;
    delete both: the graph is exactly the snapshot again (counts, times, names, links)."""
    retain(http, bank, SHARED)
    settled(http, bank)
    before = bank_snapshot(graph_probe, bank)
    early = retain(http, bank, EARLY)["memory_ids"]
    late = retain(http, bank, LATE)["memory_ids"]
    # Curation of the facts to be deleted must not leave traces either.
    memories = f"/v1/default/banks/{bank}/memories"
    http.patch(f"{memories}/{early[0]}", json={"state": "invalidated", "reason": "test"})
    http.patch(f"{memories}/{late[0]}", json={"context": "edited", "reason": "test"})
    assert before != bank_snapshot(graph_probe, bank)

    deleted = http.delete(docs(bank, "/a/early"))
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {
        "bank_id": bank,
        "document_id": "a/early",
        "deleted_memories": len(early),
        "deleted_entities": 2,  # Lyon and Carla Diaz: nobody else names them
        # Hindsight's names for the same answer:
        "success": True,
        "memory_units_deleted": len(early),
        "message": f"document 'a/early' deleted with {len(early)} memories",
    }
    assert http.delete(docs(bank, "/a/late")).json()["deleted_entities"] == 1  # Dan Wu
    assert bank_snapshot(graph_probe, bank) == before
    assert http.get(docs(bank, "/a/early")).status_code == 404
    assert http.get(f"{memories}/{late[0]}").status_code == 404
    results = http.post(f"{memories}/recall", json={"query": "Lyon Carla Dan Wu hired"})
    assert results.status_code == 200, results.text
    recalled = [r["id"] for r in results.json()["results"]]
    assert not set(early + late) & set(recalled)


def test_deleting_the_first_document_keeps_shared_entities_with_the_rest(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    early = retain(http, bank, EARLY)["memory_ids"]
    retain(http, bank, SHARED)
    shared_only = f"{bank}-only"
    http.put(f"/v1/default/banks/{shared_only}", json={})
    retain(http, shared_only, SHARED)
    http.delete(docs(bank, "/a/early"))
    assert not graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) WHERE m.id IN $ids RETURN m", b=bank, ids=early
    )

    # Same counts, times and names as a bank that only ever saw the shared document.
    def by_name(b: str) -> Any:
        counts = entity_counts(graph_probe, b)
        names = {i: v[0] for i, v in counts["entities"].items()}
        return (
            sorted(counts["entities"].values()),
            # Edges run from the smaller (random) id: compare the pairs unordered.
            sorted(
                (tuple(sorted((names[a], names[c]))), v)
                for (a, c), v in counts["co_occurs"].items()
            ),
        )

    assert by_name(bank) == by_name(shared_only)


def test_reprocess_re_extracts_under_the_current_mode_and_keeps_identities(
    http: httpx.Client, bank_id: str, graph_probe: GraphProbe
) -> None:
    http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "chunks"})
    item = {
        "content": "Alice Novak moved to Paris. Bob Stone stayed in Lyon.",
        "timestamp": "2024-02-02T12:00:00Z",
        "document_id": "notes/move",
        "entities": [{"text": "Quill Labs", "type": "organization"}],
        "tags": ["moves"],
    }
    [old] = retain(http, bank_id, item)["memory_ids"]
    quill = graph_probe.value(
        "MATCH (e:Entity {bank_id: $b, name_key: 'quill labs'}) RETURN e.id AS id", b=bank_id
    )
    http.patch(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "local"})

    response = http.post(docs(bank_id, "/notes/move/reprocess"))
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["extraction_mode"] == "local"
    assert answer["deleted_memories"] == 1
    assert len(answer["memory_ids"]) == 2  # one fact per sentence now
    memories = f"/v1/default/banks/{bank_id}/memories"
    assert http.get(f"{memories}/{old}").status_code == 404
    facts = [http.get(f"{memories}/{m}").json() for m in answer["memory_ids"]]
    assert {f["document_id"] for f in facts} == {"notes/move"}
    assert all(f["tags"] == ["moves"] for f in facts)
    assert all(f["mentioned_at"].startswith("2024-02-02T12:00:00") for f in facts)
    named = [{e["name"] for e in f["mentions"]} for f in facts]
    assert all("Quill Labs" in n for n in named)  # the caller's entity joins every fact
    assert set().union(*named) >= {"Alice Novak", "Paris", "Bob Stone", "Lyon"}
    # The entity the old fact named keeps its id; its count is exactly the new facts'.
    assert (
        graph_probe.value(
            "MATCH (e:Entity {bank_id: $b, name_key: 'quill labs'}) RETURN e.id AS id", b=bank_id
        )
        == quill
    )
    assert entity_counts(graph_probe, bank_id)["entities"][quill][1] == 2
    document = http.get(docs(bank_id, "/notes/move")).json()
    assert document["original_text"] == item["content"]
    assert document["memory_count"] == 2
    assert len(document["chunks"]) == 1
    assert graph_probe.value("MATCH (c:Chunk {bank_id: $b}) RETURN count(c) AS n", b=bank_id) == 1


class _BrokenExtractor:
    async def extract(
        self, jobs: Sequence[ExtractionInput], settings: ExtractionSettings
    ) -> list[ExtractionResult]:
        raise RuntimeError("extractor crashed")


@pytest.fixture
async def runtime(test_neo4j: str, tmp_path: Path) -> AsyncIterator[Runtime]:
    """A runtime of its own (own vector shard) whose services tests call directly."""
    async with Runtime.open(make_settings(tmp_path), background=False) as rt:
        yield rt


async def test_reprocess_that_fails_to_extract_changes_nothing(
    runtime: Runtime, graph_probe: GraphProbe, bank_id: str
) -> None:
    from app.curate.schemas.banks import BankUpdate
    from app.retain.schemas import RetainItem

    await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode="local"))
    await runtime.retainer.retain(
        bank_id, [RetainItem(content=str(SHARED["content"]), document_id="kept")]
    )
    await runtime.retainer.settled(bank_id)  # published and settled: the state to keep
    before = bank_snapshot(graph_probe, bank_id)
    runtime.retainer._extractors["local"] = _BrokenExtractor()  # fault injection
    with pytest.raises(RuntimeError, match="extractor crashed"):
        await runtime.documents.reprocess(bank_id, "kept")
    assert bank_snapshot(graph_probe, bank_id) == before
    with pytest.raises(NotFound):
        await runtime.documents.reprocess(bank_id, "missing")
    await runtime.banks.delete(bank_id)


def test_reprocess_uses_the_banks_current_llm_mode_and_mission(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, bank_id: str, graph_probe: GraphProbe
) -> None:
    llm_http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "chunks"})
    item = {"content": STAY_TEXT, "timestamp": "2024-05-20T10:30:00Z", "document_id": "trip"}
    [old] = retain(llm_http, bank_id, item)["memory_ids"]
    llm_http.patch(
        f"/v1/default/banks/{bank_id}",
        json={"retain_extraction_mode": "concise", "retain_mission": "Track launch delays."},
    )
    llm_server.script(reply_json(STAY))

    answer = llm_http.post(docs(bank_id, "/trip/reprocess")).json()

    assert answer["extraction_mode"] == "concise"
    assert "Track launch delays." in llm_server.requests[-1].system_prompt
    assert STAY_TEXT in llm_server.requests[-1].all_text
    assert answer["deleted_memories"] == 1
    texts = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b, document_id: 'trip'}) RETURN m.text AS t ORDER BY t",
        b=bank_id,
    )
    assert [r["t"] for r in texts] == sorted(f["what"] for f in STAY["facts"])  # type: ignore[index]
    assert (
        graph_probe.value(
            "MATCH (:Memory {bank_id: $b})-[r:CAUSED_BY]->() RETURN count(r) AS n", b=bank_id
        )
        == 1
    )
    assert old not in answer["memory_ids"]
