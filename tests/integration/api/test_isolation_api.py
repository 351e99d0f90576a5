"""No request reads or changes another bank: every endpoint that takes an id, and every listing.

Bank A holds one of everything that has an id (a memory, a document and its chunks, entities, a
merge and a split record, reviews, an operation, security events, a webhook, a tag). Each
id-taking endpoint is called under bank B's path with A's ids: every answer is a 404, and
bank A is exactly as it was. Every listing of B (and its filters given A's ids) shows nothing
of A.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.support.entity_helpers import each, entity_of, item, make_bank
from tests.support.graph_snapshot import bank_snapshot
from tests.support.helpers import GraphProbe

BANKS = "/v1/default/banks"
SECRET = "ghp_" + "Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc2Vb4"


def _wait(http: httpx.Client, path: str) -> None:
    deadline = time.monotonic() + 60
    while http.get(path).json()["status"] not in ("completed", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.3)


@pytest.fixture
def world(http: httpx.Client, bank_id: str) -> dict[str, Any]:
    a, b = make_bank(http, f"{bank_id}-a"), make_bank(http, f"{bank_id}-b")
    ids = each(
        http,
        a,
        item("Alex Kim planned the Acme sprint with Bo Ng.", "Alex Kim", "Bo Ng",
             ("Acme", "organization"), at="2024-05-01T09:00:00Z", document_id="notes/1"),
        item("Alex Kim demoed the Acme app.", "Alex Kim", ("Acme", "organization"),
             at="2024-05-01T09:30:00Z"),
        item("Alex Moreno audited Globex with Cy Ruiz.", "Alex Moreno", "Cy Ruiz",
             ("Globex", "organization"), at="2024-05-01T10:00:00Z"),
        item("Alex called about the invoice.", "Alex", at="2024-05-01T11:00:00Z"),
    )  # fmt: skip
    kim = entity_of(http, a, ids[0], "Alex Kim")
    bo, cy = entity_of(http, a, ids[0], "Bo Ng"), entity_of(http, a, ids[2], "Cy Ruiz")
    reviews = http.get(f"{BANKS}/{a}/reviews").json()["items"]
    assert reviews, "the namesakes must file a review"
    merged = http.post(
        f"{BANKS}/{a}/entities/{bo}/merge", json={"into": cy, "reason": "same person"}
    ).json()["record"]
    split = http.post(
        f"{BANKS}/{a}/entities/{kim}/split",
        json={"memory_ids": [ids[1]], "reason": "two people"},
    ).json()["record"]
    operation = http.post(
        f"{BANKS}/{a}/memories",
        json={"async": True, "items": [{"content": f"Deploy key {SECRET} for Acme."}]},
    ).json()["operation_id"]
    _wait(http, f"{BANKS}/{a}/operations/{operation}")
    tagged = {"content": "Alex Kim filed the Acme budget.", "tags": ["project-acme-only"]}
    assert http.post(f"{BANKS}/{a}/memories", json={"items": [tagged]}).status_code == 200
    # Disabled: the subscription exists to be looked up, never delivered to.
    webhook = http.post(
        f"{BANKS}/{a}/webhooks", json={"url": "http://127.0.0.1:9/hook", "enabled": False}
    ).json()["id"]
    http.post(f"{BANKS}/{b}/memories", json={"items": [{"content": "Bank B knows Dana."}]})
    yield {
        "a": a, "b": b, "memories": ids, "document": "notes/1", "entity": kim,
        "other_entity": cy, "review": reviews[0]["id"], "merge": merged["id"],
        "split": split["id"], "operation": operation, "webhook": webhook,
        "tag": "project-acme-only",
    }  # fmt: skip
    for bank in (a, b):
        http.delete(f"{BANKS}/{bank}")


def test_every_id_endpoint_under_another_bank_is_404_and_changes_nothing(
    http: httpx.Client, world: dict[str, Any], graph_probe: GraphProbe
) -> None:
    a, b, memory = world["a"], world["b"], world["memories"][0]
    entity, review = world["entity"], world["review"]
    before = bank_snapshot(graph_probe, a)
    calls = [
        ("GET", f"/memories/{memory}", None),
        ("GET", f"/memories/{memory}/history", None),
        ("PATCH", f"/memories/{memory}", {"state": "invalidated", "reason": "x"}),
        ("PATCH", f"/memories/{memory}", {"text": "Changed from another bank."}),
        ("GET", f"/documents/{world['document']}", None),
        ("POST", f"/documents/{world['document']}/reprocess", None),
        ("DELETE", f"/documents/{world['document']}", None),
        ("GET", f"/entities/{entity}", None),
        ("POST", f"/entities/{entity}/merge", {"into": world["other_entity"], "reason": "x"}),
        ("POST", f"/entities/{entity}/split", {"memory_ids": [memory], "reason": "x"}),
        ("POST", f"/entity-merges/{world['merge']}/revert", {"reason": "x"}),
        ("POST", f"/entity-merges/{world['split']}/revert", {"reason": "x"}),
        ("GET", f"/reviews/{review}", None),
        ("POST", f"/reviews/{review}", {"decision": "same", "reason": "x"}),
        ("POST", f"/reviews/{review}", {"decision": "different", "reason": "x"}),
        ("GET", f"/operations/{world['operation']}", None),
        ("GET", f"/documents/{world['document']}/chunks", None),
        ("GET", f"/webhooks/{world['webhook']}", None),
        ("PATCH", f"/webhooks/{world['webhook']}", {"enabled": True}),
        ("GET", f"/webhooks/{world['webhook']}/deliveries", None),
        ("DELETE", f"/webhooks/{world['webhook']}", None),
    ]
    for method, path, body in calls:
        response = http.request(method, f"{BANKS}/{b}{path}", json=body)
        assert response.status_code == 404, (method, path, response.status_code, response.text)
    assert bank_snapshot(graph_probe, a) == before


def test_ids_of_another_bank_inside_a_request_are_refused(
    http: httpx.Client, world: dict[str, Any], graph_probe: GraphProbe
) -> None:
    a, b = world["a"], world["b"]
    other = http.get(f"{BANKS}/{b}/memories/list").json()["items"][0]["id"]
    before_a, before_b = bank_snapshot(graph_probe, a), bank_snapshot(graph_probe, b)
    b_entity = http.get(f"{BANKS}/{b}/entities").json()["items"]
    if b_entity:
        foreign = http.post(
            f"{BANKS}/{a}/entities/{world['entity']}/merge",
            json={"into": b_entity[0]["id"], "reason": "x"},
        )
        assert foreign.status_code == 404, foreign.text
    split = http.post(
        f"{BANKS}/{a}/entities/{world['entity']}/split",
        json={"memory_ids": [other], "reason": "x"},
    )
    assert split.status_code == 400 and other in split.text
    assert bank_snapshot(graph_probe, a) == before_a
    assert bank_snapshot(graph_probe, b) == before_b


def test_listings_of_a_bank_show_nothing_of_another(
    http: httpx.Client, world: dict[str, Any]
) -> None:
    a, b = world["a"], world["b"]
    a_ids = set(world["memories"]) | {world["entity"], world["other_entity"], world["review"],
                                      world["merge"], world["split"], world["operation"],
                                      world["document"], world["webhook"],
                                      world["tag"]}  # fmt: skip
    a_ids |= {e["id"] for e in http.get(f"{BANKS}/{a}/entities").json()["items"]}
    a_ids |= {e["id"] for e in http.get(f"{BANKS}/{a}/security-events").json()["items"]}
    assert http.get(f"{BANKS}/{a}/security-events").json()["total"] >= 1
    listings = {
        "/memories/list": {},
        "/memories/list?entity_id=" + world["entity"]: {},
        "/memories/list?document_id=notes/1": {},
        "/memories/list?q=Alex Acme": {},
        "/documents": {},
        "/entities": {},
        "/entities?name=Alex": {},
        "/entity-merges": {},
        "/entity-merges?entity_id=" + world["entity"]: {},
        "/reviews?status=all": {},
        "/operations": {},
        "/security-events": {},
        "/tags": {},
        "/webhooks": {},
    }
    for listing in listings:
        response = http.get(f"{BANKS}/{b}{listing}")
        assert response.status_code == 200, (listing, response.text)
        rows = response.json()["operations" if listing == "/operations" else "items"]
        seen = {str(i.get("id")) for i in rows}
        seen |= {str(i.get("document_id")) for i in rows} | {str(i.get("tag")) for i in rows}
        assert not seen & a_ids, (listing, seen & a_ids)
    graph = http.get(f"{BANKS}/{b}/entities/graph").json()
    assert not {n["id"] for n in graph["nodes"]} & a_ids
    recall = http.post(f"{BANKS}/{b}/memories/recall", json={"query": "Alex Kim Acme sprint"})
    assert not {r["id"] for r in recall.json()["results"]} & a_ids
    # Bank B's own content is listed (the listings above are not empty by accident).
    assert http.get(f"{BANKS}/{b}/memories/list").json()["total"] == 1
