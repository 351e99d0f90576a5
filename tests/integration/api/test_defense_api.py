"""Memory defense over real HTTP: redacted before anything is stored, blocked items refused,
events kept per bank (never the secret)."""

from __future__ import annotations

import logging
import time

import httpx
import pytest

from tests.support.helpers import GraphProbe

SECRET = "ghp_" + "Zq7Xk2Lm9Pw4Rt6Yv8Bn3Cd5Fg1Hj0Ks2Ab4"
EMAIL = "anna.berg@example.org"
BANKS = "/v1/default/banks"


def _texts_in_bank(graph_probe: GraphProbe, bank: str) -> str:
    """Every string property of every node of the bank, joined (what Neo4j holds)."""
    rows = graph_probe.rows("MATCH (n {bank_id: $b}) RETURN properties(n) AS p", b=bank)
    return "\n".join(str(v) for row in rows for v in row["p"].values())


def _events(http: httpx.Client, bank: str) -> list[dict]:
    response = http.get(f"{BANKS}/{bank}/security-events")
    assert response.status_code == 200, response.text
    items: list[dict] = response.json()["items"]
    return items


def test_secrets_are_redacted_by_default_everywhere(
    http: httpx.Client, bank: str, graph_probe: GraphProbe, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    text = f"Ada set up CI yesterday. The GitHub token is {SECRET} and it expires soon."
    response = http.post(
        f"{BANKS}/{bank}/memories",
        json={
            "items": [
                {
                    "content": text,
                    "document_id": "ci",
                    "context": f"key {SECRET}",
                    "metadata": {"note": SECRET},
                }
            ]
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    events = body["security_events"]
    assert {(e["detector"], e["action"], e["field"]) for e in events} >= {
        ("github_token", "redacted", "content"),
        ("github_token", "redacted", "context"),
        ("github_token", "redacted", "metadata.note"),
    }
    assert SECRET not in response.text

    stored = _texts_in_bank(graph_probe, bank)
    assert "[REDACTED:GITHUB_TOKEN]" in stored and SECRET not in stored
    document = http.get(f"{BANKS}/{bank}/documents/ci").json()
    assert SECRET not in document["original_text"]
    recall = http.post(f"{BANKS}/{bank}/memories/recall", json={"query": "GitHub token"}).json()
    assert recall["results"] and SECRET not in str(recall)
    assert all(SECRET not in record.getMessage() for record in caplog.records)

    listed = _events(http, bank)
    assert {e["id"] for e in events} <= {e["id"] for e in listed}
    assert SECRET not in str(listed)


def test_personal_data_is_kept_unless_the_bank_asks(http: httpx.Client, bank: str) -> None:
    item = {"content": f"Anna's email is {EMAIL}."}
    kept = http.post(f"{BANKS}/{bank}/memories", json={"items": [item]}).json()
    assert kept["security_events"] == []
    http.patch(f"{BANKS}/{bank}", json={"defense": {"pii": "redact"}})
    redacted = http.post(f"{BANKS}/{bank}/memories", json={"items": [item]}).json()
    assert [e["detector"] for e in redacted["security_events"]] == ["email"]
    texts = [m["text"] for m in http.get(f"{BANKS}/{bank}/memories/list").json()["items"]]
    assert any("[REDACTED:EMAIL]" in t for t in texts)


def test_blocked_items_are_not_stored_and_the_rest_are(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    assert http.patch(f"{BANKS}/{bank}", json={"defense": {"secrets": "block"}}).json()[
        "defense"
    ] == {"secrets": "block", "pii": "off", "detectors": {}}
    items = [
        {"content": "Grace wrote the first COBOL compiler."},
        {"content": f"Deploy with {SECRET} tonight."},
        {"content": "Ada Lovelace published her notes in 1843."},
    ]
    response = http.post(f"{BANKS}/{bank}/memories", json={"items": items})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [o["index"] for o in body["items"]] == [0, 2]  # the request's own indexes
    [event] = body["security_events"]
    assert (event["index"], event["action"], event["detector"]) == (1, "blocked", "github_token")
    assert "Deploy" not in _texts_in_bank(graph_probe, bank)


def test_all_blocked_is_422_with_violations(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    http.patch(f"{BANKS}/{bank}", json={"defense": {"pii": "block", "secrets": "block"}})
    response = http.post(
        f"{BANKS}/{bank}/memories",
        json={"items": [{"content": f"Write to {EMAIL}."}, {"content": f"Token {SECRET}."}]},
    )
    assert response.status_code == 422, response.text
    violations = response.json()["violations"]
    assert [(v["index"], v["detector"], v["severity"]) for v in violations] == [
        (0, "email", "medium"),
        (1, "github_token", "high"),
    ]
    assert all(v["message"] for v in violations)
    assert SECRET not in response.text and EMAIL not in response.text
    assert graph_probe.value("MATCH (m:Memory {bank_id: $b}) RETURN count(m) AS n", b=bank) == 0
    assert {e["action"] for e in _events(http, bank)} == {"blocked"}


def test_async_retain_stores_the_redacted_request(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    response = http.post(
        f"{BANKS}/{bank}/memories",
        json={"async": True, "items": [{"content": f"The token is {SECRET} for staging."}]},
    )
    assert response.status_code == 200
    assert [e["detector"] for e in response.json()["security_events"]] == ["github_token"]
    operation = f"{BANKS}/{bank}/operations/{response.json()['operation_id']}"
    deadline = time.monotonic() + 60
    while http.get(operation).json()["status"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    assert SECRET not in _texts_in_bank(graph_probe, bank)


def test_memory_edits_are_screened_too(http: httpx.Client, bank: str) -> None:
    retained = http.post(
        f"{BANKS}/{bank}/memories", json={"items": [{"content": "Ada wrote the first program."}]}
    ).json()
    memory = retained["memory_ids"][0]
    edited = http.patch(
        f"{BANKS}/{bank}/memories/{memory}", json={"text": f"Ada's token is {SECRET}."}
    )
    assert edited.status_code == 200
    assert edited.json()["text"] == "Ada's token is [REDACTED:GITHUB_TOKEN]."
    http.patch(f"{BANKS}/{bank}", json={"defense": {"secrets": "block"}})
    blocked = http.patch(f"{BANKS}/{bank}/memories/{memory}", json={"text": f"Again {SECRET}"})
    assert blocked.status_code == 422
    assert blocked.json()["violations"][0]["detector"] == "github_token"
    sources = {e["source"] for e in _events(http, bank)}
    assert sources == {"memory_edit"}


def test_unknown_detector_names_are_refused(http: httpx.Client, bank: str) -> None:
    response = http.patch(f"{BANKS}/{bank}", json={"defense": {"detectors": {"nope": "block"}}})
    assert response.status_code == 400
    assert "nope" in response.json()["detail"]


def test_deleting_the_bank_deletes_its_events(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    http.post(f"{BANKS}/{bank}/memories", json={"items": [{"content": f"Token {SECRET} here."}]})
    count = "MATCH (s:SecurityEvent {bank_id: $b}) RETURN count(s) AS n"
    assert graph_probe.value(count, b=bank) >= 1
    http.delete(f"{BANKS}/{bank}")
    assert graph_probe.value(count, b=bank) == 0
