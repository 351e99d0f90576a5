"""Observations over real HTTP, with the consolidation worker running inside the service.

Restatements become one observation with its sources; a fact stated once creates nothing;
different claims never join; the cascade takes a source out in the same write; the API shows
Hindsight's fields; recall finds observations through its channels.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest

from app.store.cypher import CypherRegistry
from tests.support.consolidating_app import consolidating_http, observations, wait_for
from tests.support.helpers import GraphProbe, retain
from tests.support.receiver import receiver

__all__ = ["consolidating_http"]  # the module-scoped fixture used below

RESTATED = [
    ("Ana Ruiz has two dogs.", "2024-01-05T09:00:00Z"),
    ("Ana Ruiz owns 2 dogs.", "2024-02-11T18:30:00Z"),
    ("Ana Ruiz is the owner of two dogs.", "2024-04-02T08:15:00Z"),
]
DIFFERENT_NUMBER = ("Ana Ruiz has three dogs.", "2024-06-01T09:00:00Z")
ONCE = ("Ben Okafor ran a half marathon in under two hours.", "2024-04-14T12:00:00Z")


@pytest.fixture(scope="module")
def obs_http(consolidating_http: httpx.Client) -> httpx.Client:
    """A Mnemo whose consolidation worker runs (and looks for work often)."""
    return consolidating_http


@pytest.fixture
def obs_bank(obs_http: httpx.Client, bank_id: str) -> Iterator[str]:
    response = obs_http.put(f"/v1/default/banks/{bank_id}", json={"name": "observations"})
    assert response.status_code == 200, response.text
    yield bank_id
    obs_http.delete(f"/v1/default/banks/{bank_id}")


def memories(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/memories{suffix}"


def retain_each(http: httpx.Client, bank: str, facts: list[tuple[str, str]]) -> list[str]:
    """Retain each fact as its own document (one request each); returns the fact ids."""
    ids = []
    for n, (text, at) in enumerate(facts):
        [memory_id] = retain(
            http, bank, {"content": text, "timestamp": at, "document_id": f"doc-{n}-{at}"}
        )["memory_ids"]
        ids.append(memory_id)
    return ids


def listing(http: httpx.Client, bank: str, **params: Any) -> dict[str, Any]:
    response = http.get(memories(bank, "/list"), params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def settled(http: httpx.Client, bank: str) -> bool:
    """Nothing waits for consolidation and every observation's vector is written (the stats)."""
    response = http.get(f"/v1/default/banks/{bank}/stats")
    assert response.status_code == 200, response.text
    return response.json()["pending_consolidation"] == 0


def consolidated(http: httpx.Client, bank: str) -> list[dict[str, Any]]:
    wait_for(lambda: settled(http, bank))
    return observations(http, bank)


def test_restatements_become_one_observation_and_a_fact_stated_once_nothing(
    obs_http: httpx.Client, obs_bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain_each(obs_http, obs_bank, [*RESTATED[:2], DIFFERENT_NUMBER, ONCE])
    [first] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    assert first["proof_count"] == 2 and first["source_memory_ids"] == sorted(ids[:2])
    # A third restatement joins it.
    ids[2:2] = retain_each(obs_http, obs_bank, RESTATED[2:])
    [observation] = wait_for(
        lambda: [o for o in consolidated(obs_http, obs_bank) if o["proof_count"] == 3]
    )
    assert observation["id"] == first["id"]
    assert observation["type"] == "observation"
    assert observation["proof_count"] == 3
    assert observation["source_memory_ids"] == sorted(ids[:3])
    assert observation["text"] == "Ana Ruiz is the owner of two dogs."  # the most complete
    assert observation["consolidation_state"] is None
    # Facts are done, with the time; the observation's time range spans its sources'.
    facts = {m["id"]: m for m in listing(obs_http, obs_bank, type="world")["items"]}
    assert {facts[i]["consolidation_state"] for i in ids} == {"done"}
    assert all(facts[i]["consolidated_at"] for i in ids)
    assert all(facts[i]["source_memory_ids"] is None for i in ids)
    # GET resolves the sources; the graph holds DERIVED_FROM and the union of mentions.
    detail = obs_http.get(memories(obs_bank, f"/{observation['id']}")).json()
    assert sorted(s["id"] for s in detail["source_memories"]) == sorted(ids[:3])
    assert {s["text"] for s in detail["source_memories"]} == {t for t, _ in RESTATED}
    # The union of the sources' entities (however many "Ana Ruiz" resolution kept apart).
    source_entities = {
        e["id"]
        for i in ids[:3]
        for e in obs_http.get(memories(obs_bank, f"/{i}")).json()["mentions"]
    }
    assert {e["id"] for e in detail["mentions"]} == source_entities
    assert {e["name"] for e in detail["mentions"]} == {"Ana Ruiz"}
    derived = graph_probe.value(
        "MATCH (o:Memory:Observation {bank_id: $b, id: $o})-[:DERIVED_FROM]->(s:Memory) "
        "RETURN count(s)",
        b=obs_bank,
        o=observation["id"],
    )
    assert derived == 3
    # Observations count nothing on entities: the mention count is the facts'.
    mention_count = graph_probe.value(
        "MATCH (e:Entity {bank_id: $b, canonical_name: 'Ana Ruiz'}) RETURN sum(e.mention_count)",
        b=obs_bank,
    )
    assert mention_count == 4
    # A settle replays the facts that mention its entities, not the observation: its mentions
    # are its sources', and counted as a fact it would say their names and words twice.
    entity_ids = sorted(source_entities)
    replayed = graph_probe.rows(
        CypherRegistry.load()["resolve/settle_facts"].text, bank_id=obs_bank, ids=entity_ids
    )
    assert {r["memory_id"] for r in replayed} == set(ids) - {ids[-1]}  # not Ben Okafor's
    history = obs_http.get(memories(obs_bank, f"/{observation['id']}/history")).json()["items"]
    assert [r["kind"] for r in history] == ["create", "update"]
    assert len(history[0]["after"]["source_memory_ids"]) == 2
    assert history[1]["before"]["text"] == "Ana Ruiz has two dogs."
    assert history[1]["after"]["source_memory_ids"] == sorted(ids[:3])


def test_recall_finds_observations_by_type_through_its_channels(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    ids = retain_each(obs_http, obs_bank, RESTATED[:2])
    [observation] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    response = obs_http.post(
        memories(obs_bank, "/recall"),
        json={"query": "How many dogs does Ana Ruiz have?", "types": ["observation"]},
    )
    assert response.status_code == 200, response.text
    [found] = response.json()["results"]
    assert found["id"] == observation["id"]
    assert found["proof_count"] == 2
    assert found["source_memory_ids"] == sorted(ids)
    assert {"vector", "keyword", "graph"} <= set(found["scores"])
    facts_only = obs_http.post(
        memories(obs_bank, "/recall"),
        json={"query": "How many dogs does Ana Ruiz have?", "types": ["world", "experience"]},
    ).json()["results"]
    assert {r["id"] for r in facts_only} == set(ids)
    assert all(r["proof_count"] == 1 and r["source_memory_ids"] is None for r in facts_only)


def test_an_observation_is_not_edited_but_can_be_invalidated(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    retain_each(obs_http, obs_bank, RESTATED[:2])
    [observation] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    path = memories(obs_bank, f"/{observation['id']}")
    for body in ({"text": "Ana has many dogs."}, {"fact_type": "world"}):
        response = obs_http.patch(path, json=body)
        assert response.status_code == 400, response.text
        assert "correct its source facts" in response.json()["detail"]
    invalidated = obs_http.patch(path, json={"state": "invalidated", "reason": "wrong"})
    assert invalidated.status_code == 200, invalidated.text
    assert invalidated.json()["state"] == "invalidated"
    recalled = obs_http.post(
        memories(obs_bank, "/recall"), json={"query": "Ana Ruiz dogs", "types": ["observation"]}
    ).json()["results"]
    assert recalled == []
    restored = obs_http.patch(path, json={"state": "valid"})
    assert restored.status_code == 200 and restored.json()["proof_count"] == 2


def test_invalidating_sources_recounts_then_retracts_the_observation(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    ids = retain_each(obs_http, obs_bank, RESTATED)
    [observation] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    path = memories(obs_bank, f"/{observation['id']}")
    response = obs_http.patch(memories(obs_bank, f"/{ids[0]}"), json={"state": "invalidated"})
    assert response.status_code == 200
    # In the same write: the source is gone and the proof count follows.
    now = obs_http.get(path).json()
    assert now["proof_count"] == 2 and now["source_memory_ids"] == sorted(ids[1:])
    kinds = [r["kind"] for r in obs_http.get(f"{path}/history").json()["items"]]
    assert kinds[-1] == "source_removed"
    # One source left is not an observation offline: the worker retracts it, history kept.
    obs_http.patch(memories(obs_bank, f"/{ids[1]}"), json={"state": "invalidated"})
    gone = wait_for(lambda: (m := obs_http.get(path).json())["state"] == "invalidated" and m)
    assert "fewer than 2 facts" in gone["state_reason"]
    assert observations(obs_http, obs_bank, state="valid") == []
    # A restored source is consolidated again and forms a new observation with the one left.
    obs_http.patch(memories(obs_bank, f"/{ids[1]}"), json={"state": "valid"})
    [again] = wait_for(lambda: observations(obs_http, obs_bank, state="valid") or None)
    assert again["source_memory_ids"] == sorted(ids[1:])


def test_deleting_and_editing_a_source_leave_the_observation_in_the_same_write(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    ids = retain_each(obs_http, obs_bank, RESTATED)
    [observation] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    path = memories(obs_bank, f"/{observation['id']}")
    document = obs_http.get(memories(obs_bank, f"/{ids[2]}")).json()["document_id"]
    assert obs_http.delete(f"/v1/default/banks/{obs_bank}/documents/{document}").status_code == 200
    assert obs_http.get(path).json()["source_memory_ids"] == sorted(ids[:2])
    edited = obs_http.patch(memories(obs_bank, f"/{ids[0]}"), json={"text": "Ana Ruiz has a cat."})
    assert edited.status_code == 200
    now = obs_http.get(path).json()
    assert now["source_memory_ids"] == [ids[1]] and now["proof_count"] == 1
    # The edited fact was requeued: the worker leaves it outside, and retracts the observation.
    wait_for(lambda: obs_http.get(path).json()["state"] == "invalidated")
    # The edited fact waits for its new vector before the worker takes it, so it may be done
    # in a later batch than the retraction; it joins nothing.
    edited_fact = memories(obs_bank, f"/{ids[0]}")
    wait_for(lambda: obs_http.get(edited_fact).json()["consolidation_state"] == "done")
    assert all(o["state"] == "invalidated" for o in observations(obs_http, obs_bank))


def test_clearing_a_facts_observations_deletes_them_and_consolidates_again(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    ids = retain_each(obs_http, obs_bank, RESTATED[:2])
    [observation] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    response = obs_http.delete(memories(obs_bank, f"/{ids[0]}/observations"))
    assert response.status_code == 200, response.text
    assert response.json() == {"deleted_count": 1}
    assert obs_http.get(memories(obs_bank, f"/{observation['id']}")).status_code == 404
    [again] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    assert again["id"] != observation["id"] and again["source_memory_ids"] == sorted(ids)
    missing = obs_http.delete(memories(obs_bank, "/not-a-memory/observations"))
    assert missing.status_code == 404


def test_consolidate_endpoint_queues_one_run_and_reports_it(http: httpx.Client, bank: str) -> None:
    """On a service without a worker, requests queue; a second one is deduplicated."""
    retain(http, bank, {"content": RESTATED[0][0], "timestamp": RESTATED[0][1]})
    first = http.post(f"/v1/default/banks/{bank}/consolidate")
    assert first.status_code == 200, first.text
    second = http.post(f"/v1/default/banks/{bank}/consolidate").json()
    assert first.json()["deduplicated"] is False
    assert second == {"operation_id": first.json()["operation_id"], "deduplicated": True}
    operation = http.get(f"/v1/default/banks/{bank}/operations/{second['operation_id']}").json()
    assert operation["type"] == "consolidation" and operation["status"] == "pending"
    assert listing(http, bank, consolidation_state="pending")["total"] == 1
    assert listing(http, bank, consolidation_state="done")["total"] == 0


def test_consolidate_endpoint_runs_and_completes_the_operation(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    retain_each(obs_http, obs_bank, RESTATED[:2])
    queued = obs_http.post(f"/v1/default/banks/{obs_bank}/consolidate").json()
    operation_path = f"/v1/default/banks/{obs_bank}/operations/{queued['operation_id']}"
    done = wait_for(
        lambda: (op := obs_http.get(operation_path).json())["status"] == "completed" and op
    )
    assert done["type"] == "consolidation"
    assert len(observations(obs_http, obs_bank)) == 1


def test_a_bank_without_observations_is_left_pending(obs_http: httpx.Client, obs_bank: str) -> None:
    obs_http.patch(f"/v1/default/banks/{obs_bank}", json={"enable_observations": False})
    retain_each(obs_http, obs_bank, RESTATED[:2])
    refused = obs_http.post(f"/v1/default/banks/{obs_bank}/consolidate")
    assert refused.status_code == 400 and "enable_observations" in refused.text
    time.sleep(1.0)
    assert listing(obs_http, obs_bank, consolidation_state="pending")["total"] == 2
    bank = obs_http.patch(
        f"/v1/default/banks/{obs_bank}",
        json={"enable_observations": True, "observations_mission": "what the user owns"},
    ).json()
    assert bank["enable_observations"] is True
    assert bank["observations_mission"] == "what the user owns"
    assert len(wait_for(lambda: consolidated(obs_http, obs_bank) or None)) == 1


def test_prefer_observations_leaves_out_the_facts_a_returned_observation_carries(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    ids = retain_each(obs_http, obs_bank, [*RESTATED[:2], ONCE])
    [observation] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    query = {"query": "How many dogs does Ana Ruiz have?"}
    plain = obs_http.post(memories(obs_bank, "/recall"), json=query).json()
    assert set(ids[:2]) <= {r["id"] for r in plain["results"]}
    assert observation["id"] not in {r["id"] for r in plain["results"]}, "observations are opt-in"
    preferred = obs_http.post(
        memories(obs_bank, "/recall"), json={**query, "prefer_observations": True}
    ).json()
    returned = {r["id"] for r in preferred["results"]}
    assert observation["id"] in returned and not returned & set(ids[:2])
    assert ids[2] in returned, "a fact no observation carries stays"
    assert preferred.get("warnings", []) == []


def test_include_source_facts_shows_the_evidence_of_observation_results(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    ids = retain_each(obs_http, obs_bank, RESTATED)
    [observation] = wait_for(
        lambda: [o for o in consolidated(obs_http, obs_bank) if o["proof_count"] == 3] or None
    )
    body = {"query": "Ana Ruiz dogs", "types": ["observation"]}
    full = obs_http.post(
        memories(obs_bank, "/recall"), json={**body, "include": {"source_facts": {}}}
    ).json()
    assert [r["id"] for r in full["results"]] == [observation["id"]]
    assert set(full["source_facts"]) == set(ids) and full["source_facts_truncated"] is False
    assert {f["text"] for f in full["source_facts"].values()} == {t for t, _ in RESTATED}
    one = obs_http.post(
        memories(obs_bank, "/recall"),
        json={**body, "include": {"source_facts": {"max_tokens_per_observation": 8}}},
    ).json()
    assert len(one["source_facts"]) == 1 and one["source_facts_truncated"] is True
    plain = obs_http.post(memories(obs_bank, "/recall"), json=body).json()
    assert "source_facts" not in plain


def test_clearing_the_banks_observations_deletes_them_all_and_they_are_rebuilt(
    obs_http: httpx.Client, obs_bank: str, graph_probe: GraphProbe
) -> None:
    retain_each(obs_http, obs_bank, RESTATED[:2])
    [observation] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    response = obs_http.delete(f"/v1/default/banks/{obs_bank}/observations")
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True and response.json()["deleted_count"] == 1
    assert obs_http.get(memories(obs_bank, f"/{observation['id']}")).status_code == 404
    [gone] = graph_probe.rows(
        "OPTIONAL MATCH (m:Memory {bank_id: $b, id: $id}) WITH count(m) AS nodes "
        "OPTIONAL MATCH (r:MemoryRevision {bank_id: $b}) WHERE NOT ()-[:HAS_REVISION]->(r) "
        "RETURN nodes, count(r) AS orphans",
        b=obs_bank,
        id=observation["id"],
    )
    assert gone == {"nodes": 0, "orphans": 0}, "the observation and its history are gone"
    [again] = wait_for(lambda: consolidated(obs_http, obs_bank) or None)
    assert again["id"] != observation["id"] and again["proof_count"] == 2
    assert obs_http.delete("/v1/default/banks/no-such-bank/observations").status_code == 404


def test_a_finished_consolidation_is_announced_to_webhooks(
    obs_http: httpx.Client, obs_bank: str
) -> None:
    with receiver() as rx:
        hook = obs_http.post(
            f"/v1/default/banks/{obs_bank}/webhooks",
            json={"url": rx.url, "event_types": ["consolidation.completed"]},
        )
        assert hook.status_code == 201, hook.text
        retain_each(obs_http, obs_bank, RESTATED[:2])
        queued = obs_http.post(f"/v1/default/banks/{obs_bank}/consolidate").json()
        wait_for(lambda: consolidated(obs_http, obs_bank) or None)
        events = [msgspec.json.decode(r.body) for r in rx.wait_for(1)]
    assert {e["type"] for e in events} == {"consolidation.completed"}
    assert all(e["bank_id"] == obs_bank for e in events)
    data = [e["data"] for e in events]
    assert sum(d["memories_consolidated"] for d in data) >= 2
    assert sum(d["observations_created"] for d in data) == 1
    assert any(queued["operation_id"] in d["operation_ids"] for d in data) or (
        obs_http.get(f"/v1/default/banks/{obs_bank}/operations/{queued['operation_id']}").json()[
            "status"
        ]
        == "completed"
    )
