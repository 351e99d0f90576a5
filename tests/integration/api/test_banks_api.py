"""Bank CRUD over real HTTP against the real Neo4j."""

from __future__ import annotations

import httpx


def test_put_creates_then_updates_a_bank(http: httpx.Client, bank_id: str) -> None:
    created = http.put(
        f"/v1/default/banks/{bank_id}",
        json={"name": "Support agent", "retain_mission": "Keep customer facts"},
    )
    assert created.status_code == 200
    body = created.json()
    assert body["id"] == bank_id
    assert body["name"] == "Support agent"
    assert body["retain_extraction_mode"] == "local"
    assert body["counts"] == {"memories": 0, "entities": 0, "documents": 0}

    updated = http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "chunks"})
    assert updated.status_code == 200
    assert updated.json()["retain_extraction_mode"] == "chunks"
    # Fields not sent keep their value.
    assert updated.json()["retain_mission"] == "Keep customer facts"
    assert updated.json()["created_at"] == body["created_at"]


def test_get_patch_list_and_delete_a_bank(http: httpx.Client, bank: str) -> None:
    assert http.get(f"/v1/default/banks/{bank}").json()["name"] == "test bank"

    patched = http.patch(
        f"/v1/default/banks/{bank}",
        json={
            "retain_mission": None,
            "entity_labels": [{"name": "person", "values": ["sarah-chen", "alex-kim"]}],
        },
    )
    assert patched.status_code == 200
    assert patched.json()["retain_mission"] is None
    assert patched.json()["entity_labels"][0]["values"] == ["sarah-chen", "alex-kim"]

    first = http.get("/v1/default/banks", params={"limit": 1}).json()
    assert first["total"] >= 1
    listed: list[str] = []
    for offset in range(0, first["total"], 500):
        page = http.get("/v1/default/banks", params={"limit": 500, "offset": offset}).json()
        listed += [b["id"] for b in page["banks"]]
    assert bank in listed
    assert listed == sorted(listed)

    deleted = http.delete(f"/v1/default/banks/{bank}")
    assert deleted.status_code == 200
    assert deleted.json()["deleted_nodes"] >= 1
    assert http.get(f"/v1/default/banks/{bank}").status_code == 404


def test_deleting_one_bank_leaves_another_untouched(
    http: httpx.Client, bank: str, bank_id: str
) -> None:
    other = f"{bank_id}-other"
    assert http.put(f"/v1/default/banks/{other}", json={"name": "other"}).status_code == 200
    assert http.delete(f"/v1/default/banks/{other}").status_code == 200
    assert http.get(f"/v1/default/banks/{bank}").json()["name"] == "test bank"


def test_list_is_paged(http: httpx.Client, bank_id: str) -> None:
    for suffix in ("a", "b", "c"):
        http.put(f"/v1/default/banks/{bank_id}-{suffix}", json={})
    page = http.get("/v1/default/banks", params={"limit": 2, "offset": 0}).json()
    assert len(page["banks"]) == 2
    assert page["limit"] == 2
    assert page["total"] >= 3


def test_unknown_bank_is_404_with_the_error_shape(http: httpx.Client, bank_id: str) -> None:
    for response in (
        http.get(f"/v1/default/banks/{bank_id}"),
        http.patch(f"/v1/default/banks/{bank_id}", json={"name": "x"}),
        http.delete(f"/v1/default/banks/{bank_id}"),
    ):
        assert response.status_code == 404
        body = response.json()
        assert body["status_code"] == 404
        assert bank_id in body["detail"]


def test_bad_bank_ids_are_400_naming_the_rule(http: httpx.Client) -> None:
    for bad in ("has space", "x" * 65, "semi;colon", "ünïcode"):
        response = http.put(f"/v1/default/banks/{bad}", json={})
        assert response.status_code == 400, bad
        assert "bank_id" in response.text


def test_unknown_field_is_400_naming_the_field(http: httpx.Client, bank_id: str) -> None:
    response = http.put(f"/v1/default/banks/{bank_id}", json={"nmae": "typo"})
    assert response.status_code == 400
    assert "nmae" in response.text
    assert http.get(f"/v1/default/banks/{bank_id}").status_code == 404


def test_wrong_type_is_400_naming_the_field(http: httpx.Client, bank_id: str) -> None:
    response = http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "magic"})
    assert response.status_code == 400
    assert "retain_extraction_mode" in response.text
    response = http.put(f"/v1/default/banks/{bank_id}", json={"name": 5})
    assert response.status_code == 400
    assert "name" in response.text


def test_llm_mode_without_an_llm_is_refused(http: httpx.Client, bank_id: str) -> None:
    response = http.put(f"/v1/default/banks/{bank_id}", json={"retain_extraction_mode": "concise"})
    assert response.status_code == 400
    assert "MNEMO_LLM_BASE_URL" in response.json()["detail"]


def test_malformed_json_is_400(http: httpx.Client, bank_id: str) -> None:
    response = http.put(
        f"/v1/default/banks/{bank_id}",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["status_code"] == 400
