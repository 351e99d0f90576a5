"""Mental models over HTTP, offline: create, read in one query, refresh, history, CRUD."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.support.helpers import GraphProbe, retain

MAY = {
    "content": "Caroline: I went to the LGBTQ support group yesterday.",
    "timestamp": "2023-05-08T13:56:00Z",
    "document_id": "may",
}
JUNE = {
    "content": "Caroline: The support group helped me a lot with my transition.",
    "timestamp": "2023-06-12T10:00:00Z",
    "document_id": "june",
}
AUGUST = {
    "content": "Caroline: I am going to the support group again next week.",
    "timestamp": "2023-08-20T10:00:00Z",
    "document_id": "august",
}


def models(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/mental-models{suffix}"


def wait_for(http: httpx.Client, bank: str, operation_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        operation: dict[str, Any] = http.get(
            f"/v1/default/banks/{bank}/operations/{operation_id}"
        ).json()
        if operation["status"] in ("completed", "failed"):
            return operation
        time.sleep(0.1)
    raise AssertionError(f"operation {operation_id} did not finish")


def create(http: httpx.Client, bank: str, **body: Any) -> str:
    response = http.post(models(bank), json={"name": "Support", **body})
    assert response.status_code == 200, response.text
    created = response.json()
    assert wait_for(http, bank, created["operation_id"])["status"] == "completed"
    model_id: str = created["mental_model_id"]
    return model_id


def test_created_model_has_a_page_with_its_evidence_read_in_one_query(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    ids = retain(http, bank, MAY, JUNE)["memory_ids"]

    model_id = create(http, bank, source_query="What does the support group mean to Caroline?")
    model = http.get(models(bank, f"/{model_id}")).json()

    assert model["version"] == 1 and not model["is_stale"]
    assert [s["id"] for s in model["sections"]] == ["overview", "2023-05", "2023-06"]
    assert model["content"].startswith("## Overview\n\nQuestion: What does the support group")
    evidence = [m["id"] for m in model["reflect_response"]["based_on"]["memories"]]
    assert set(evidence) <= set(ids) and evidence
    linked = graph_probe.rows(
        "MATCH (:MentalModel {bank_id: $b, id: $id})-[r:BASED_ON]->(m:Memory) "
        "RETURN m.id AS id ORDER BY r.rank",
        b=bank,
        id=model_id,
    )
    assert [r["id"] for r in linked] == evidence
    for section in model["sections"][1:]:
        assert section["memory_ids"] and all(
            f"[{m}]" in section["text"] for m in section["memory_ids"]
        )


def test_refresh_edits_only_the_sections_new_evidence_touches(
    http: httpx.Client, bank: str
) -> None:
    retain(http, bank, MAY, JUNE)
    model_id = create(http, bank, source_query="What does the support group mean to Caroline?")
    before = {s["id"]: s for s in http.get(models(bank, f"/{model_id}")).json()["sections"]}
    retain(http, bank, AUGUST)

    queued = http.post(models(bank, f"/{model_id}/refresh"))
    assert queued.status_code == 200 and queued.json()["status"] == "queued"
    operation = wait_for(http, bank, queued.json()["operation_id"])
    after = http.get(models(bank, f"/{model_id}")).json()
    history = http.get(models(bank, f"/{model_id}/history")).json()

    assert operation["status"] == "completed"
    assert any("content_written" in w for w in operation["warnings"])
    sections = {s["id"]: s for s in after["sections"]}
    assert sections["2023-05"] == before["2023-05"]
    assert sections["2023-06"] == before["2023-06"]
    assert "2023-08" in sections
    assert [v["version"] for v in history] == [2, 1]
    latest = history[0]
    assert latest["reason"] == "refresh" and latest["mode"] == "offline"
    assert {c["id"]: c["change"] for c in latest["changes"]} == {
        "overview": "edited",
        "2023-08": "added",
    }
    assert latest["unchanged_sections"] == 2
    assert latest["previous_content"] == history[1]["content"]
    assert history[1]["reason"] == "created" and history[1]["previous_content"] is None


def test_refresh_without_new_evidence_writes_no_version(http: httpx.Client, bank: str) -> None:
    retain(http, bank, MAY)
    model_id = create(http, bank, source_query="support group")

    operation = wait_for(
        http,
        bank,
        http.post(models(bank, f"/{model_id}/refresh"), json={"mode": "delta"}).json()[
            "operation_id"
        ],
    )

    assert any("content_unchanged" in w for w in operation["warnings"])
    assert len(http.get(models(bank, f"/{model_id}/history")).json()) == 1


def test_a_tagged_model_reads_untagged_memories_unless_strict(
    http: httpx.Client, bank: str
) -> None:
    retain(http, bank, MAY)

    loose = create(http, bank, source_query="support group", tags=["caroline"])
    strict = create(
        http,
        bank,
        source_query="support group",
        tags=["caroline"],
        trigger={"tags_match": "any_strict"},
    )

    loose_page = http.get(models(bank, f"/{loose}")).json()
    strict_page = http.get(models(bank, f"/{strict}")).json()
    assert loose_page["reflect_response"]["based_on"]["memories"]
    assert strict_page["reflect_response"]["based_on"]["memories"] == []
    assert "Nothing in this bank answers it yet" in strict_page["content"]


def test_crud_and_paging(http: httpx.Client, bank: str, graph_probe: GraphProbe) -> None:
    retain(http, bank, MAY)
    first = create(http, bank, source_query="support group", id="group", tags=["a"])
    second = create(http, bank, source_query="pottery", tags=["b"])

    assert (
        http.post(models(bank), json={"name": "x", "source_query": "y", "id": "group"}).status_code
        == 409
    )
    empty = http.post(models(bank), json={"name": "x", "source_query": " "})
    assert empty.status_code == 400 and empty.json()["extra"]["field"] == "source_query"
    listed = http.get(models(bank), params={"limit": 1}).json()
    assert listed["total"] == 2 and [m["id"] for m in listed["items"]] == [first]
    assert listed["items"][0]["content"] is None
    assert (
        http.get(models(bank), params={"tags": ["b"], "tags_match": "any_strict"}).json()["total"]
        == 1
    )
    patched = http.patch(
        models(bank, f"/{first}"),
        json={"name": "Group", "trigger": {"mode": "delta", "refresh_after_consolidation": True}},
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["name"] == "Group"
    assert patched.json()["trigger"]["mode"] == "delta"
    assert patched.json()["trigger"]["refresh_after_consolidation"] is True
    assert patched.json()["trigger"]["budget"] == "mid"
    metadata = http.get(models(bank, f"/{first}"), params={"detail": "metadata"}).json()
    assert metadata["content"] is None and metadata["reflect_response"] is None
    refused = http.patch(models(bank, f"/{first}"), json={"trigger": {"refresh_cron": "* * * * *"}})
    assert refused.status_code == 400 and refused.json()["extra"]["field"] == "trigger.refresh_cron"

    deleted = http.delete(models(bank, f"/{second}"))
    assert deleted.status_code == 200 and deleted.json()["deleted_versions"] == 1
    assert http.get(models(bank, f"/{second}")).status_code == 404
    assert (
        graph_probe.value(
            "MATCH (v:MentalModelVersion {bank_id: $b, mental_model_id: $id}) RETURN count(v) AS n",
            b=bank,
            id=second,
        )
        == 0
    )
    assert http.get(models(bank, "/missing/history")).status_code == 404
    assert http.post(models(bank, "/missing/refresh")).status_code == 404
    assert http.get(models("no-such-bank-x")).status_code == 404


def test_reflect_consults_a_matching_mental_model(http: httpx.Client, bank: str) -> None:
    retain(http, bank, MAY, JUNE)
    model_id = create(http, bank, source_query="What does the support group mean to Caroline?")

    body = http.post(
        f"/v1/default/banks/{bank}/reflect",
        json={"query": "What does the support group mean for Caroline?", "include": {"facts": {}}},
    ).json()
    excluded = http.post(
        f"/v1/default/banks/{bank}/reflect",
        json={
            "query": "What does the support group mean for Caroline?",
            "include": {"facts": {}},
            "exclude_mental_models": True,
        },
    ).json()

    assert [m["id"] for m in body["based_on"]["mental_models"]] == [model_id]
    assert model_id in body["text"]
    assert excluded["based_on"]["mental_models"] == []


def test_bank_deletion_removes_models_and_versions(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    retain(http, bank, MAY)
    create(http, bank, source_query="support group")

    assert http.delete(f"/v1/default/banks/{bank}").status_code == 200

    assert (
        graph_probe.value(
            "MATCH (n) WHERE (n:MentalModel OR n:MentalModelVersion) AND n.bank_id = $b "
            "RETURN count(n) AS n",
            b=bank,
        )
        == 0
    )
