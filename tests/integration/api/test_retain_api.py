"""Retain over real HTTP: what lands in Neo4j and the vector store, limits, documents."""

from __future__ import annotations

import time

import httpx

from tests.support.helpers import GraphProbe, retain, settled

CONVERSATION = [
    {
        "content": "Caroline: I went to the LGBTQ support group yesterday. It was so powerful!",
        "timestamp": "2023-05-08T13:56:00Z",
        "metadata": {"dia_id": "D1:3"},
        "tags": ["locomo", "session-1"],
        "context": "chat between friends",
        "document_id": "conv/session_1/D1:3",
    },
    {
        "content": "Melanie: That's wonderful, Caroline! I painted a sunrise over Lake Tahoe "
        "with my kids last week.",
        "timestamp": "2023-05-08T14:01:00Z",
        "metadata": {"dia_id": "D1:4"},
        "tags": ["locomo", "session-1"],
        "document_id": "conv/session_1/D1:4",
    },
    {
        "content": "Caroline: Melanie painted a sunrise over Lake Tahoe with her kids.",
        "timestamp": "2023-05-08T14:03:00Z",
        "metadata": {"dia_id": "D1:5"},
        "tags": ["locomo", "session-1"],
        "document_id": "conv/session_1/D1:5",
    },
]


def test_conversation_becomes_facts_entities_and_links(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    answer = retain(http, bank, *CONVERSATION)
    assert answer["success"] is True
    assert answer["items_count"] == 3
    assert len(answer["memory_ids"]) >= 3
    assert [item["status"] for item in answer["items"]] == ["created"] * 3

    settled(http, bank)  # the publish and the settle run behind the answer
    facts = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b})-[:FROM]->(c:Chunk)-[:PART_OF]->(d:Document) "
        "RETURN m.text AS text, m.metadata_json AS metadata, m.tags AS tags, "
        "m.context AS context, d.id AS document, m.vector_pending AS pending, "
        "m.occurred_start AS start",
        b=bank,
    )
    assert len(facts) == len(answer["memory_ids"])
    assert all(f["pending"] is False for f in facts)
    yesterday = next(f for f in facts if "support group yesterday" in str(f["text"]))
    assert yesterday["metadata"] == '{"dia_id":"D1:3"}'
    assert sorted(yesterday["tags"]) == ["locomo", "session-1"]  # type: ignore[arg-type]
    assert yesterday["context"] == "chat between friends"
    assert yesterday["document"] == "conv/session_1/D1:3"
    assert str(yesterday["start"]).startswith("2023-05-07")

    names = {
        row["name"]
        for row in graph_probe.rows(
            "MATCH (:Memory {bank_id: $b})-[:MENTIONS]->(e:Entity) RETURN e.canonical_name AS name",
            b=bank,
        )
    }
    assert {"Caroline", "Melanie", "Lake Tahoe"} <= names
    # Caroline is named in two items: one entity, mentioned by more than one fact.
    caroline = graph_probe.rows(
        "MATCH (e:Entity {bank_id: $b, name_key: 'caroline'}) RETURN e.mention_count AS n", b=bank
    )
    assert len(caroline) == 1
    assert int(caroline[0]["n"]) >= 2  # type: ignore[call-overload]

    link_types = {
        row["type"]
        for row in graph_probe.rows(
            "MATCH (:Memory {bank_id: $b})-[r]->(:Memory {bank_id: $b}) RETURN type(r) AS type",
            b=bank,
        )
    }
    assert {"TEMPORAL", "SEMANTIC"} <= link_types
    assert (
        graph_probe.value(
            "MATCH (:Entity {bank_id: $b, name_key: 'lake tahoe'})-[r:CO_OCCURS]-"
            "(:Entity {bank_id: $b, name_key: 'melanie'}) RETURN sum(r.count) AS n",
            b=bank,
        )
        >= 1
    )  # type: ignore[operator]


def test_same_document_again_writes_nothing_new(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    item = {"content": "Priya Raman joined the Lisbon office in March 2026.", "document_id": "d1"}
    first = retain(http, bank, item)
    second = retain(http, bank, item)
    assert first["items"][0]["status"] == "created"
    assert second["items"][0]["status"] == "unchanged"
    assert second["memory_ids"] == []
    count = graph_probe.value("MATCH (m:Memory {bank_id: $b}) RETURN count(m) AS n", b=bank)
    assert count == len(first["memory_ids"])


def test_changed_document_reprocesses_only_changed_chunks(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    paragraphs = [
        f"Paragraph {i}: the Atlas project reached milestone {i} with the Berlin team. " * 12
        for i in range(8)
    ]
    original = "\n\n".join(paragraphs)
    first = retain(http, bank, {"content": original, "document_id": "report"})
    edited = paragraphs.copy()
    edited[6] = "Paragraph six was rewritten: the Atlas project moved to Madrid."
    second = retain(http, bank, {"content": "\n\n".join(edited), "document_id": "report"})

    outcome = second["items"][0]
    assert outcome["status"] == "updated"
    assert 0 < len(outcome["memory_ids"]) < len(first["memory_ids"])
    assert outcome["retired_memory_ids"], "facts of the removed chunk are retired"
    states = {
        row["id"]: row["state"]
        for row in graph_probe.rows(
            "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.state AS state", b=bank
        )
    }
    assert all(states[m] == "invalidated" for m in outcome["retired_memory_ids"])
    untouched = set(first["memory_ids"]) - set(outcome["retired_memory_ids"])
    assert untouched and all(states[m] == "valid" for m in untouched)
    text = graph_probe.value(
        "MATCH (d:Document {bank_id: $b, id: 'report'}) RETURN d.original_text AS t", b=bank
    )
    assert text == "\n\n".join(edited)


def test_unicode_of_every_kind_round_trips_exactly(
    http: httpx.Client, bank_id: str, graph_probe: GraphProbe
) -> None:
    http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "chunks"})
    samples = [
        "海洋探测器1号（简称海探1）于三月发射。",
        "Launch party 🚀🎉 with 👩🏽‍🚀 crew",
        "שלום עולם — مرحبا بالعالم",
        "Zoe\u0308 and e\u0301clair (combining marks kept as sent)",
    ]
    answer = retain(http, bank_id, *({"content": s} for s in samples))
    stored = {
        row["text"]
        for row in graph_probe.rows(
            "MATCH (m:Memory {bank_id: $b}) RETURN m.text AS text", b=bank_id
        )
    }
    assert stored == set(samples)
    docs = {
        row["t"]
        for row in graph_probe.rows(
            "MATCH (d:Document {bank_id: $b}) RETURN d.original_text AS t", b=bank_id
        )
    }
    assert docs == set(samples)
    assert len(answer["memory_ids"]) == 4


def test_empty_content_is_400_naming_the_item(http: httpx.Client, bank: str) -> None:
    response = http.post(
        f"/v1/default/banks/{bank}/memories",
        json={"items": [{"content": "fine"}, {"content": "   "}]},
    )
    assert response.status_code == 400
    assert "items[1].content" in response.json()["detail"]


def test_wrong_type_names_the_field_path(http: httpx.Client, bank: str) -> None:
    response = http.post(
        f"/v1/default/banks/{bank}/memories",
        json={"items": [{"content": "ok"}, {"content": "x", "timestamp": "not a date"}]},
    )
    assert response.status_code == 400
    assert "items[1].timestamp" in response.text


def test_limits_answer_413_with_the_limit(http: httpx.Client, bank: str, settings: object) -> None:
    too_long = "a" * (settings.max_item_chars + 1)
    response = http.post(
        f"/v1/default/banks/{bank}/memories", json={"items": [{"content": too_long}]}
    )
    assert response.status_code == 413
    assert "MNEMO_MAX_ITEM_CHARS" in response.json()["detail"]
    many = [{"content": "x"}] * (settings.max_items_per_request + 1)
    response = http.post(f"/v1/default/banks/{bank}/memories", json={"items": many})
    assert response.status_code == 413
    assert "MNEMO_MAX_ITEMS_PER_REQUEST" in response.json()["detail"]


def test_failed_validation_writes_nothing(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    http.post(
        f"/v1/default/banks/{bank}/memories",
        json={"items": [{"content": "A good item about Oslo."}, {"content": ""}]},
    )
    assert graph_probe.value("MATCH (m:Memory {bank_id: $b}) RETURN count(m) AS n", b=bank) == 0
    assert graph_probe.value("MATCH (d:Document {bank_id: $b}) RETURN count(d) AS n", b=bank) == 0


def test_retain_into_an_unknown_bank_creates_it(http: httpx.Client, bank_id: str) -> None:
    refused = http.post(f"/v1/default/banks/{bank_id}/memories", json={"items": [{}]})
    assert refused.status_code == 400
    assert http.get(f"/v1/default/banks/{bank_id}").status_code == 404, "a refusal creates none"
    item = {"content": "Ana Lima sings in the Lisbon choir every Friday."}
    response = http.post(f"/v1/default/banks/{bank_id}/memories", json={"items": [item]})
    assert response.status_code == 200, response.text
    assert response.json()["async"] is False and len(response.json()["memory_ids"]) == 1
    bank = http.get(f"/v1/default/banks/{bank_id}").json()
    assert bank["name"] == bank_id and bank["counts"]["memories"] == 1
    http.delete(f"/v1/default/banks/{bank_id}")


def test_async_retain_returns_an_operation_that_completes(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    accepted = retain(
        http,
        bank,
        {"content": "Tomas moved to Porto."},
        {"content": "Ines visited him."},
        **{"async": True},
    )
    operation_id = accepted["operation_id"]
    assert operation_id
    deadline = time.monotonic() + 60
    while True:
        status = http.get(f"/v1/default/banks/{bank}/operations/{operation_id}").json()
        if status["status"] in ("completed", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status["status"] == "completed"
    assert status["items_done"] == 2
    assert status["memories_count"] == 2
    assert status["errors"] == []
    listed = http.get(f"/v1/default/banks/{bank}/operations").json()["operations"]
    assert operation_id in [op["id"] for op in listed]
    assert graph_probe.value("MATCH (m:Memory {bank_id: $b}) RETURN count(m) AS n", b=bank) == 2


def test_an_operation_is_invisible_from_another_bank(
    http: httpx.Client, bank: str, bank_id: str
) -> None:
    accepted = retain(http, bank, {"content": "Noor started at Acme."}, **{"async": True})
    other = f"{bank_id}-x"
    http.put(f"/v1/default/banks/{other}", json={})
    response = http.get(f"/v1/default/banks/{other}/operations/{accepted['operation_id']}")
    assert response.status_code == 404


def test_deleting_a_bank_removes_its_facts_and_vectors_only(
    http: httpx.Client, bank: str, bank_id: str, graph_probe: GraphProbe
) -> None:
    other = f"{bank_id}-keep"
    http.put(f"/v1/default/banks/{other}", json={})
    retain(http, bank, {"content": "Hugo sold the Lyon bakery."})
    retain(http, other, {"content": "Hugo sold the Lyon bakery."})
    deleted = http.delete(f"/v1/default/banks/{bank}").json()
    assert deleted["deleted_vectors"] >= 1
    assert graph_probe.value("MATCH (n:Memory {bank_id: $b}) RETURN count(n) AS n", b=bank) == 0
    assert graph_probe.value("MATCH (n:Entity {bank_id: $b}) RETURN count(n) AS n", b=bank) == 0
    assert graph_probe.value("MATCH (n:Memory {bank_id: $b}) RETURN count(n) AS n", b=other) == 1
    assert http.get(f"/v1/default/banks/{other}").json()["counts"]["memories"] == 1


def test_stored_times_are_datetimes_exact_to_the_microsecond(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    # Retain sends its times to Neo4j as text that Cypher parses: what lands must still be a
    # zoned datetime (Cypher date functions work on it) and the same instant, to the µs.
    at = "2024-03-01T09:15:30.123456+02:00"
    retain(
        http,
        bank,
        {"content": "Priya Raman met Tomas Novak in Lisbon.", "timestamp": at},
        {"content": "Priya Raman flew to Berlin with Tomas Novak.", "timestamp": at},
    )
    types = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b})-[:MENTIONS]->(e:Entity)-[k:KNOWN_AS]->(:Name) "
        "MATCH (e)-[c:CO_OCCURS]-(:Entity) "
        "UNWIND [m.mentioned_at, m.occurred_start, m.occurred_end, e.first_seen, e.last_seen, "
        "        k.at, c.first_at, c.last_at] AS t "
        "RETURN DISTINCT valueType(t) AS type, toString(t) AS text",
        b=bank,
    )
    assert {row["type"] for row in types} == {"ZONED DATETIME NOT NULL"}
    assert {row["text"] for row in types} == {"2024-03-01T07:15:30.123456Z"}


def test_semantic_links_join_a_new_fact_to_similar_stored_ones_once(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    first = retain(
        http,
        bank,
        {"content": "Priya Raman moved to Lisbon in March to run the design team."},
        {"content": "The quarterly budget review is scheduled for Friday."},
    )
    second = retain(
        http, bank, {"content": "Priya Raman moved to Lisbon in March to lead the design team."}
    )
    settled(http, bank)
    edges = graph_probe.rows(
        "MATCH (a:Memory {bank_id: $b})-[r:SEMANTIC]->(o:Memory {bank_id: $b}) "
        "RETURN a.id AS source, o.id AS target, r.weight AS weight",
        b=bank,
    )
    moved, budget = first["memory_ids"]
    [new] = second["memory_ids"]
    assert [(e["source"], e["target"]) for e in edges] == [(new, moved)]
    assert 0.7 <= edges[0]["weight"] <= 1.0  # type: ignore[operator]
    assert budget not in {e["target"] for e in edges}
