"""Memories over real HTTP: list and filters, get, edits, invalidate/restore, history, errors."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from app.domain.tags import TAGS_MATCH_MODES, tags_match
from tests.support.fake_openai import FakeOpenAIServer, reply_json
from tests.support.graph_snapshot import entity_counts, fact_links
from tests.support.helpers import GraphProbe, retain
from tests.support.llm_app import STAY, STAY_TEXT, llm_http, llm_server

__all__ = ["llm_http", "llm_server"]  # module-scoped fixtures used below

STORY = [
    {
        "content": "Alice Novak moved to Paris with Bob Stone.",
        "timestamp": "2024-03-01T10:00:00Z",
        "document_id": "notes/1",
        "tags": ["travel"],
        "metadata": {"source": "chat"},
        "context": "a diary",
    },
    {
        "content": "Alice Novak and Bob Stone opened a bakery in Paris.",
        "timestamp": "2024-03-02T10:00:00Z",
        "document_id": "notes/2",
        "tags": ["travel", "work"],
    },
    {
        "content": "Bob Stone sold the Paris bakery to Carla Diaz.",
        "timestamp": "2024-03-05T10:00:00Z",
        "document_id": "notes/3",
    },
]


def url(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/memories{suffix}"


def retain_story(http: httpx.Client, bank: str) -> list[str]:
    """Retain the story one item per request (so creation order is the list order)."""
    ids = []
    for item in STORY:
        [memory_id] = retain(http, bank, item)["memory_ids"]
        ids.append(memory_id)
    return ids


def listed(http: httpx.Client, bank: str, **params: Any) -> dict[str, Any]:
    response = http.get(url(bank, "/list"), params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ids_of(page: dict[str, Any]) -> list[str]:
    return [m["id"] for m in page["items"]]


def patch(http: httpx.Client, bank: str, memory_id: str, **body: Any) -> dict[str, Any]:
    response = http.patch(url(bank, f"/{memory_id}"), json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def names(memory: dict[str, Any]) -> set[str]:
    return {e["name"] for e in memory["mentions"]}


def recall_ids(http: httpx.Client, bank: str, query: str) -> list[str]:
    """Ids recall returns for ``query`` (recall must answer)."""
    response = http.post(url(bank, "/recall"), json={"query": query})
    assert response.status_code == 200, response.text
    return [r["id"] for r in response.json()["results"]]


# -- list, get -------------------------------------------------------------------------------


def test_list_is_newest_first_with_total_and_paging(http: httpx.Client, bank: str) -> None:
    ids = retain_story(http, bank)
    page = listed(http, bank)
    assert ids_of(page) == ids[::-1]
    assert (page["total"], page["limit"], page["offset"]) == (3, 100, 0)
    second = listed(http, bank, limit=1, offset=1)
    assert ids_of(second) == [ids[1]]
    assert second["total"] == 3
    assert listed(http, bank, offset=5)["items"] == []


def test_cursor_pages_walk_every_fact_once_in_order_with_and_without_filters(
    http: httpx.Client, bank_id: str
) -> None:
    """One retain gives its facts one created_at: the cursor's ties (mentioned_at, then id)
    must still give each fact exactly once, in the order of the offset listing."""
    http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "chunks"})
    items = [
        {"content": f"note {i}", "timestamp": f"2024-01-{1 + i % 3:02d}T00:00:00Z"}
        for i in range(7)
    ]
    retain(http, bank_id, *items[:4])
    retain(http, bank_id, *items[4:], {"content": "tagged note", "tags": ["t"]})
    for params in ({}, {"q": "note"}, {"type": "world"}, {"tags": ["t"], "tags_match": "all"}):
        everything = listed(http, bank_id, **params)
        walked: list[str] = []
        page = listed(http, bank_id, limit=3, **params)
        while True:
            walked += ids_of(page)
            assert page["total"] == everything["total"], params
            if page["next_cursor"] is None:
                break
            page = listed(http, bank_id, limit=3, cursor=page["next_cursor"], **params)
        assert walked == ids_of(everything), params
    assert listed(http, bank_id)["next_cursor"] is None
    for broken in ("nope", "W10", "x" * 1001):
        response = http.get(url(bank_id, "/list"), params={"cursor": broken})
        assert response.status_code == 400 and "cursor" in response.text, broken


def test_a_hubs_facts_list_the_same_whether_scanned_or_sorted(
    http: httpx.Client, bank: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entity named by many facts is listed by scanning the bank's newest facts; the answer
    (rows, order, cursor walk, total) is the one the sorted mentions give."""
    ids = retain_story(http, bank)
    bob = next(
        e["id"]
        for e in http.get(url(bank, f"/{ids[0]}")).json()["mentions"]
        if e["name"] == "Bob Stone"
    )
    sorted_page = listed(http, bank, entity_id=bob)
    sorted_walk = listed(http, bank, entity_id=bob, limit=2)
    monkeypatch.setattr("app.curate.memories.HUB_MENTIONS", 0)  # every entity is a hub
    scanned = listed(http, bank, entity_id=bob)
    assert ids_of(scanned) == ids_of(sorted_page) == ids[::-1]
    assert scanned["total"] == sorted_page["total"] == 3
    page = listed(http, bank, entity_id=bob, limit=2)
    assert page["next_cursor"] == sorted_walk["next_cursor"]
    rest = listed(http, bank, entity_id=bob, limit=2, cursor=page["next_cursor"])
    assert ids_of(page) + ids_of(rest) == ids[::-1] and rest["next_cursor"] is None


def test_get_shows_the_fact_with_entities_metadata_and_provenance(
    http: httpx.Client, bank: str
) -> None:
    first = retain_story(http, bank)[0]
    memory = http.get(url(bank, f"/{first}")).json()
    assert memory["text"] == STORY[0]["content"]
    assert memory["type"] == "world"
    assert memory["context"] == "a diary"
    assert memory["metadata"] == {"source": "chat"}
    assert memory["tags"] == ["travel"]
    assert memory["document_id"] == "notes/1"
    assert memory["chunk_id"].startswith("notes/1#")
    assert memory["mentioned_at"].startswith("2024-03-01T10:00:00")
    assert memory["state"] == "valid"
    assert memory["state_reason"] is None
    assert memory["proof_count"] == 1
    assert memory["edited_at"] is None
    assert memory["created_at"]
    assert names(memory) == {"Alice Novak", "Paris", "Bob Stone"}
    assert all(e["id"] and e["mention"] == e["name"] for e in memory["mentions"])


def test_list_filters_by_type_document_entity_and_state(http: httpx.Client, bank: str) -> None:
    ids = retain_story(http, bank)
    assert ids_of(listed(http, bank, document_id="notes/2")) == [ids[1]]
    assert listed(http, bank, type="experience")["total"] == 0
    assert listed(http, bank, type=["world", "experience"])["total"] == 3
    carla = next(
        e["id"]
        for e in http.get(url(bank, f"/{ids[2]}")).json()["mentions"]
        if e["name"] == "Carla Diaz"
    )
    assert ids_of(listed(http, bank, entity_id=carla)) == [ids[2]]
    alice = next(
        e["id"]
        for e in http.get(url(bank, f"/{ids[0]}")).json()["mentions"]
        if e["name"] == "Alice Novak"
    )
    assert ids_of(listed(http, bank, entity_id=alice)) == [ids[1], ids[0]]
    patch(http, bank, ids[0], state="invalidated", reason="test")
    # An invalidated fact still lists under the entity it mentioned (its mention is archived).
    assert ids_of(listed(http, bank, entity_id=alice)) == [ids[1], ids[0]]
    assert ids_of(listed(http, bank, entity_id=alice, state="valid")) == [ids[1]]
    assert ids_of(listed(http, bank, state="invalidated")) == [ids[0]]
    assert listed(http, bank)["total"] == 3


@pytest.mark.parametrize("mode", TAGS_MATCH_MODES)
def test_tag_filters_follow_the_reference_semantics(
    http: httpx.Client, bank_id: str, mode: str
) -> None:
    http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "chunks"})
    tag_sets: list[list[str]] = [[], ["a"], ["a", "b"], ["b"], ["a", "b", "c"], ["c"]]
    answer = retain(
        http, bank_id, *({"content": f"fact {i}", "tags": t} for i, t in enumerate(tag_sets))
    )
    tags_of = dict(zip(answer["memory_ids"], tag_sets, strict=True))
    for query in (["a"], ["a", "b"], ["b", "c"]):
        expected = {m for m, t in tags_of.items() if tags_match(t, query, mode)}  # type: ignore[arg-type]
        got = set(ids_of(listed(http, bank_id, tags=query, tags_match=mode)))
        assert got == expected, (mode, query)


def test_text_search_is_scoped_to_the_bank_and_escapes_user_text(
    http: httpx.Client, bank: str, bank_id: str
) -> None:
    ids = retain_story(http, bank)
    other = f"{bank_id}-other"
    http.put(f"/v1/default/banks/{other}", json={})
    retain(http, other, STORY[1])
    assert set(ids_of(listed(http, bank, q="bakery"))) == {ids[1], ids[2]}
    # Entity names are searchable too (Carla Diaz is only in the third fact).
    assert ids_of(listed(http, bank, q="carla")) == [ids[2]]
    assert ids_of(listed(http, bank, q="bakery", document_id="notes/3")) == [ids[2]]
    for hostile in ('bakery" OR bank_key:*', "bakery AND NOT (", "text:*"):
        page = listed(http, bank, q=hostile)
        assert set(ids_of(page)) <= set(ids), hostile
    # Nothing left to search for: refused, never the whole bank.
    for empty in ("\\", "OR", "the (", "*"):
        response = http.get(url(bank, "/list"), params={"q": empty})
        assert response.status_code == 400 and response.json()["extra"]["field"] == "q", empty


def test_unknown_or_foreign_memory_is_404_and_untouched(
    http: httpx.Client, bank: str, bank_id: str, graph_probe: GraphProbe
) -> None:
    [mine] = retain(http, bank, STORY[0])["memory_ids"]
    other = f"{bank_id}-b"
    http.put(f"/v1/default/banks/{other}", json={})
    assert http.get(url(bank, "/00000000-0000-0000-0000-000000000000")).status_code == 404
    assert http.get(url(other, f"/{mine}")).status_code == 404
    assert http.get(url(other, f"/{mine}/history")).status_code == 404
    response = http.patch(url(other, f"/{mine}"), json={"text": "hijacked"})
    assert response.status_code == 404
    assert http.patch(url(other, f"/{mine}"), json={"state": "invalidated"}).status_code == 404
    assert http.get(url(bank, f"/{mine}")).json()["text"] == STORY[0]["content"]
    assert graph_probe.value("MATCH (m:Memory {id: $id}) RETURN m.state AS s", id=mine) == "valid"
    assert http.get(url(f"{bank_id}-nope", f"/{mine}")).status_code == 404
    assert http.get(url(f"{bank_id}-nope", "/list")).status_code == 404


# -- invalidate / restore ----------------------------------------------------------------------


def test_invalidated_fact_leaves_list_recall_and_links_then_restores_exactly(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_story(http, bank)
    target = ids[1]
    links_before = fact_links(graph_probe, bank, target)
    counts_before = entity_counts(graph_probe, bank)
    assert {t for t, *_ in links_before} >= {"MENTIONS", "TEMPORAL"}

    answer = patch(http, bank, target, state="invalidated", reason="told it was a rumour")
    assert answer["state"] == "invalidated"
    assert answer["state_reason"] == "told it was a rumour"
    assert answer["state_changed_at"]
    assert names(answer) == {"Alice Novak", "Bob Stone", "Paris"}  # kept for audit

    # Out of the active graph: only archived copies remain, same ends, same properties.
    archived = fact_links(graph_probe, bank, target)
    assert {t for t, *_ in archived} == {"ARCHIVED_LINK"}
    assert sorted(
        (dict(p)["type"], out, other, tuple(kv for kv in p if kv[0] != "type"))
        for _, out, other, p in archived
    ) == sorted((t, out, other, p) for t, out, other, p in links_before)
    counts = entity_counts(graph_probe, bank)
    mentioned = {e["id"] for e in answer["mentions"]}
    for entity_id, (name, n, *_) in counts["entities"].items():
        expected = counts_before["entities"][entity_id][1] - (entity_id in mentioned)
        assert n == expected, name
    for pair, (n, *_) in counts_before["co_occurs"].items():
        shared = set(pair) <= mentioned
        assert counts["co_occurs"].get(pair, (0,))[0] == n - shared, pair

    assert target not in ids_of(listed(http, bank, state="valid"))
    assert ids_of(listed(http, bank, state="invalidated")) == [target]
    assert (
        graph_probe.value("MATCH (m:Memory {id: $id}) RETURN m.vector_pending AS p", id=target)
        is False
    )
    recalled = recall_ids(http, bank, "Alice Novak and Bob Stone opened a bakery in Paris")
    assert target not in recalled

    restored = patch(http, bank, target, state="valid", reason="confirmed by Alice")
    assert restored["state"] == "valid"
    assert restored["state_reason"] == "confirmed by Alice"
    assert fact_links(graph_probe, bank, target) == links_before
    assert entity_counts(graph_probe, bank) == counts_before
    assert target in ids_of(listed(http, bank, state="valid"))
    recalled = recall_ids(http, bank, "Alice Novak and Bob Stone opened a bakery in Paris")
    assert target in recalled


def test_links_between_two_invalidated_facts_come_back_when_both_are_restored(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_story(http, bank)
    before = {m: fact_links(graph_probe, bank, m) for m in ids}
    counts = entity_counts(graph_probe, bank)
    patch(http, bank, ids[0], state="invalidated")
    patch(http, bank, ids[1], state="invalidated")
    # Restoring one first: its link to the other (still invalidated) stays archived.
    patch(http, bank, ids[0], state="valid")
    assert not any(t != "ARCHIVED_LINK" for t, _, other, _ in fact_links(graph_probe, bank, ids[1]))
    patch(http, bank, ids[1], state="valid")
    assert {m: fact_links(graph_probe, bank, m) for m in ids} == before
    assert entity_counts(graph_probe, bank) == counts


def test_invalidating_twice_changes_nothing_more(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_story(http, bank)
    patch(http, bank, ids[0], state="invalidated", reason="first")
    counts = entity_counts(graph_probe, bank)
    again = patch(http, bank, ids[0], state="invalidated", reason="second")
    assert again["state_reason"] == "first"
    assert entity_counts(graph_probe, bank) == counts
    assert len(http.get(url(bank, f"/{ids[0]}/history")).json()["items"]) == 1


# -- edits -------------------------------------------------------------------------------------


def test_editing_text_re_resolves_entities_and_relinks(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_story(http, bank)
    target = ids[0]
    before = http.get(url(bank, f"/{target}")).json()
    by_name = {e["name"]: e["id"] for e in before["mentions"]}
    paris = by_name["Paris"]
    paris_count = entity_counts(graph_probe, bank)["entities"][paris][1]

    edited = patch(
        http, bank, target, text="Alice Novak moved to Berlin with Bob Stone.", reason="wrong city"
    )
    assert edited["text"] == "Alice Novak moved to Berlin with Bob Stone."
    assert edited["edited_at"]
    assert names(edited) == {"Alice Novak", "Berlin", "Bob Stone"}
    after = {e["name"]: e["id"] for e in edited["mentions"]}
    # Names still in the text keep their entity; the new name resolved to a new entity.
    assert after["Alice Novak"] == by_name["Alice Novak"]
    assert after["Bob Stone"] == by_name["Bob Stone"]
    counts = entity_counts(graph_probe, bank)
    assert counts["entities"][paris][1] == paris_count - 1
    assert counts["entities"][after["Berlin"]][1] == 1
    mentions = graph_probe.rows(
        "MATCH (:Memory {id: $id})-[r:MENTIONS]->(e) RETURN e.id AS id, r.mention AS mention",
        id=target,
    )
    assert {r["id"] for r in mentions} == set(after.values())
    pair = tuple(sorted((after["Alice Novak"], after["Berlin"])))
    assert counts["co_occurs"][pair][0] == 1
    old_pair = tuple(sorted((after["Alice Novak"], paris)))
    # Alice and Paris still meet in the second fact, once.
    assert counts["co_occurs"][old_pair][0] == 1
    # The fact no longer backs the name it gave Paris; Berlin's name is backed by it.
    claims = graph_probe.rows(
        "MATCH (e:Entity {bank_id: $b})-[k:KNOWN_AS]->(n:Name) "
        "WHERE $id IN k.memory_ids RETURN e.id AS id",
        b=bank,
        id=target,
    )
    assert paris not in {c["id"] for c in claims}
    assert after["Berlin"] in {c["id"] for c in claims}

    assert ids_of(listed(http, bank, q="berlin")) == [target]
    assert target not in ids_of(listed(http, bank, q="paris"))
    links = fact_links(graph_probe, bank, target)
    assert all(other != target for _, _, other, _ in links)
    assert (
        graph_probe.value("MATCH (m:Memory {id: $id}) RETURN m.vector_pending AS p", id=target)
        is False
    )
    recalled = recall_ids(http, bank, "Alice Novak moved to Berlin with Bob Stone")
    assert target in recalled


def test_editing_text_again_and_again_keeps_one_semantic_link_per_pair(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    # Retain creates semantic links without looking for existing ones: an edit must remove
    # the fact's old links first, or each edit would add a second edge to the same neighbour.
    moved, budget = retain(
        http,
        bank,
        {"content": "Priya Raman moved to Lisbon in March to run the design team."},
        {"content": "The quarterly budget review is scheduled for Friday."},
    )["memory_ids"]
    for verb in ("lead", "head", "lead"):
        patch(http, bank, budget, text=f"Priya Raman moved to Lisbon in March to {verb} the team.")
    edges = graph_probe.rows(
        "MATCH (a:Memory {bank_id: $b})-[r:SEMANTIC]-(o:Memory {bank_id: $b}) "
        "WHERE a.id < o.id RETURN a.id AS a, o.id AS o",
        b=bank,
    )
    assert [(e["a"], e["o"]) for e in edges] == [tuple(sorted((moved, budget)))]


def test_editing_entities_replaces_the_mentions(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_story(http, bank)
    before = {e["name"]: e["id"] for e in http.get(url(bank, f"/{ids[0]}")).json()["mentions"]}
    edited = patch(
        http,
        bank,
        ids[0],
        entities=[{"text": "alice novak"}, {"text": "Quill Labs", "type": "organization"}],
        reason="tagging the employer",
    )
    after = {e["name"]: e for e in edited["mentions"]}
    assert set(after) == {"Alice Novak", "Quill Labs"}
    assert after["Alice Novak"]["id"] == before["Alice Novak"]
    assert after["Alice Novak"]["mention"] == "alice novak"
    assert after["Quill Labs"]["type"] == "organization"
    counts = entity_counts(graph_probe, bank)
    assert counts["entities"][after["Quill Labs"]["id"]][1] == 1
    # Bob Stone is still named by the other two facts.
    assert counts["entities"][before["Bob Stone"]][1] == 2
    assert edited["text"] == STORY[0]["content"]


def test_editing_an_invalidated_fact_keeps_it_out_until_restored(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_story(http, bank)
    counts = entity_counts(graph_probe, bank)
    patch(http, bank, ids[2], state="invalidated", reason="unsure")
    edited = patch(http, bank, ids[2], text="Bob Stone sold the Paris bakery to Dan Wu.")
    assert edited["state"] == "invalidated"
    assert names(edited) == {"Bob Stone", "Paris", "Dan Wu"}
    assert {t for t, *_ in fact_links(graph_probe, bank, ids[2])} == {"ARCHIVED_LINK"}
    assert ids[2] not in ids_of(listed(http, bank, state="valid"))
    restored = patch(http, bank, ids[2], state="valid")
    types = {t for t, *_ in fact_links(graph_probe, bank, ids[2])}
    assert "ARCHIVED_LINK" not in types and "MENTIONS" in types
    final = entity_counts(graph_probe, bank)
    dan = next(e["id"] for e in restored["mentions"] if e["name"] == "Dan Wu")
    assert final["entities"][dan][1] == 1
    carla = next(i for i, v in counts["entities"].items() if v[0] == "Carla Diaz")
    # Carla lost her only mention; she stays, with nothing counted.
    assert final["entities"][carla][1] == 0


def test_editing_time_and_type_relabels_and_relinks(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_story(http, bank)
    edited = patch(
        http,
        bank,
        ids[0],
        occurred_start="2023-01-01T00:00:00Z",
        occurred_end="2023-01-31T00:00:00Z",
        fact_type="experience",
    )
    assert edited["type"] == "experience"
    assert edited["occurred_start"].startswith("2023-01-01")
    assert edited["occurred_end"].startswith("2023-01-31")
    labels = graph_probe.value("MATCH (m:Memory {id: $id}) RETURN labels(m) AS l", id=ids[0])
    assert sorted(labels) == ["Experience", "Memory"]  # type: ignore[arg-type]
    assert ids_of(listed(http, bank, type="experience")) == [ids[0]]
    weights = graph_probe.rows(
        "MATCH (:Memory {id: $id})-[r:TEMPORAL]-() RETURN r.weight AS w", id=ids[0]
    )
    # More than a year from the others: every temporal link sits at the floor.
    assert weights and all(w["w"] == 0.3 for w in weights)


def test_history_lists_every_change_with_reason_and_previous_values(
    http: httpx.Client, bank: str
) -> None:
    [memory_id] = retain(http, bank, STORY[0])["memory_ids"]
    patch(http, bank, memory_id, context="from the diary", reason="added context")
    patch(http, bank, memory_id, state="invalidated", reason="duplicate")
    patch(http, bank, memory_id, state="valid", reason="not a duplicate after all")
    history = http.get(url(bank, f"/{memory_id}/history")).json()
    assert history["memory_id"] == memory_id
    items = history["items"]
    assert [(i["kind"], i["reason"]) for i in items] == [
        ("edit", "added context"),
        ("invalidate", "duplicate"),
        ("restore", "not a duplicate after all"),
    ]
    assert items[0]["before"] == {"context": "a diary"}
    assert items[0]["after"] == {"context": "from the diary"}
    assert items[0]["fields"] == ["context"]
    assert items[1]["before"]["state"] == "valid"
    assert items[1]["after"]["state"] == "invalidated"
    assert items[0]["at"] < items[1]["at"] < items[2]["at"]


def test_a_patch_that_changes_nothing_records_nothing(http: httpx.Client, bank: str) -> None:
    [memory_id] = retain(http, bank, STORY[0])["memory_ids"]
    same = patch(http, bank, memory_id, text=STORY[0]["content"], state="valid")
    assert same["edited_at"] is None
    assert http.get(url(bank, f"/{memory_id}/history")).json()["items"] == []


# -- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "names_field"),
    [
        ({}, "text"),
        ({"reason": "only a reason"}, "text"),
        ({"state": "deleted"}, "state"),
        ({"fact_type": "opinion"}, "fact_type"),
        ({"fact_type": "observation"}, "fact_type"),
        ({"text": "   "}, "text"),
        ({"text": ""}, "text"),
        (
            {"occurred_start": "2024-05-01T00:00:00Z", "occurred_end": "2024-04-01T00:00:00Z"},
            "occurred_end",
        ),
        ({"occurred_start": "yesterday"}, "occurred_start"),
        ({"colour": "red"}, "colour"),
        ({"entities": [{"name": "x"}]}, "entities"),
    ],
)
def test_bad_patches_are_400_naming_the_field(
    http: httpx.Client, bank: str, body: dict[str, Any], names_field: str
) -> None:
    [memory_id] = retain(http, bank, STORY[0])["memory_ids"]
    response = http.patch(url(bank, f"/{memory_id}"), json=body)
    assert response.status_code == 400, response.text
    assert names_field in response.text


@pytest.mark.parametrize(
    "params",
    [{"type": "opinion"}, {"state": "bogus"}, {"tags_match": "some"}, {"limit": 0}, {"offset": -1}],
)
def test_bad_list_filters_are_400_naming_the_parameter(
    http: httpx.Client, bank: str, params: dict[str, Any]
) -> None:
    response = http.get(url(bank, "/list"), params=params)
    assert response.status_code == 400, response.text
    assert next(iter(params)) in response.text


# -- causal links (LLM extraction, scripted) ---------------------------------------------------


def test_causal_links_are_archived_and_restored_with_the_fact(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, bank_id: str, graph_probe: GraphProbe
) -> None:
    response = llm_http.put(
        f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "concise"}
    )
    assert response.status_code == 200, response.text
    llm_server.script(reply_json(STAY))
    cause, effect = retain(
        llm_http, bank_id, {"content": STAY_TEXT, "timestamp": "2024-05-20T10:30:00Z"}
    )["memory_ids"]
    causal = "MATCH (:Memory {bank_id: $b})-[r:CAUSED_BY]->(c) RETURN c.id AS c, r.weight AS w"
    assert graph_probe.rows(causal, b=bank_id) == [{"c": cause, "w": 1.0}]
    links = {m: fact_links(graph_probe, bank_id, m) for m in (cause, effect)}

    patch(llm_http, bank_id, cause, state="invalidated", reason="the launch did not slip")
    assert graph_probe.rows(causal, b=bank_id) == []
    archived = graph_probe.rows(
        "MATCH (a:Memory {bank_id: $b})-[r:ARCHIVED_LINK {type: 'CAUSED_BY'}]->(c) "
        "RETURN a.id AS a, c.id AS c",
        b=bank_id,
    )
    assert archived == [{"a": effect, "c": cause}]

    patch(llm_http, bank_id, cause, state="valid", reason="it did slip")
    assert graph_probe.rows(causal, b=bank_id) == [{"c": cause, "w": 1.0}]
    assert {m: fact_links(graph_probe, bank_id, m) for m in (cause, effect)} == links


def co_mentioned(http: httpx.Client, bank: str, memory_id: str) -> list[tuple[str, str]]:
    """The memory page's co-mentioned facts: (linked fact id, the names it shares), in order."""
    page = http.get(f"/console/banks/{bank}/memories/{memory_id}")
    assert page.status_code == 200
    return re.findall(
        r'memories/([^"]+)">[^<]*</a> <span class="muted small">shares ([^<]*)<', page.text
    )


def test_a_facts_co_mentioned_facts_are_the_same_whether_hubs_are_scanned_or_sorted(
    http: httpx.Client, bank: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub's newest facts are read in index order; the merged list (facts, shared names,
    order) is the one sorting each entity's facts gives."""
    ids = retain_story(http, bank)
    sorted_links = co_mentioned(http, bank, ids[0])
    assert [i for i, _ in sorted_links] == [ids[1], ids[2]]  # 3 shared names, then 2
    assert set(sorted_links[0][1].split(", ")) == {"Alice Novak", "Paris", "Bob Stone"}
    monkeypatch.setattr("app.curate.browse.HUB_MENTIONS", 0)  # every entity is a hub
    assert co_mentioned(http, bank, ids[0]) == sorted_links
    monkeypatch.setattr("app.curate.browse.HUB_MENTIONS", 1)  # Carla Diaz is not
    assert co_mentioned(http, bank, ids[2]) == co_mentioned_sorted(http, bank, ids[2], monkeypatch)


def co_mentioned_sorted(
    http: httpx.Client, bank: str, memory_id: str, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, str]]:
    with monkeypatch.context() as m:
        m.setattr("app.curate.browse.HUB_MENTIONS", 10**9)
        return co_mentioned(http, bank, memory_id)
