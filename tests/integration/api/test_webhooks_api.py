"""Webhooks over real HTTP: subscriptions, signed deliveries, retries, the delivery record.

The shared test server retries after 0.2 s, doubling (conftest), five attempts.
"""

from __future__ import annotations

import hashlib
import hmac
import time

import httpx
import msgspec

from tests.support.receiver import receiver

SECRET = "s3cret-for-tests"


def _hook(http: httpx.Client, bank: str, url: str, **extra: object) -> dict[str, object]:
    body = {"url": url, "secret": SECRET, **extra}
    response = http.post(f"/v1/default/banks/{bank}/webhooks", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _retain(http: httpx.Client, bank: str, text: str, **extra: object) -> dict[str, object]:
    response = http.post(
        f"/v1/default/banks/{bank}/memories", json={"items": [{"content": text}], **extra}
    )
    assert response.status_code == 200, response.text
    return response.json()


def _deliveries(http: httpx.Client, bank: str, hook_id: object) -> list[dict[str, object]]:
    response = http.get(f"/v1/default/banks/{bank}/webhooks/{hook_id}/deliveries")
    assert response.status_code == 200, response.text
    return response.json()["items"]


def _settled(
    http: httpx.Client, bank: str, hook_id: object, count: int = 1, timeout: float = 30.0
) -> list:
    """The hook's deliveries once at least ``count`` exist and none is pending."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        items = _deliveries(http, bank, hook_id)
        if len(items) >= count and all(d["status"] != "pending" for d in items):
            return items
        time.sleep(0.1)
    raise AssertionError(f"deliveries still pending: {_deliveries(http, bank, hook_id)}")


def test_delivery_is_signed_and_carries_the_memory_count(http: httpx.Client, bank: str) -> None:
    with receiver() as rx:
        hook = _hook(http, bank, rx.url, event_types=["retain.completed"])
        assert hook["secret"] == SECRET
        answer = _retain(http, bank, "Ada Lovelace wrote the first program in 1843.")
        [got] = rx.wait_for(1)
        expected = "sha256=" + hmac.new(SECRET.encode(), got.body, hashlib.sha256).hexdigest()
        assert got.headers["X-Mnemo-Signature"] == expected
        assert got.headers["X-Mnemo-Event"] == "retain.completed"
        event = msgspec.json.decode(got.body)
        assert event["type"] == "retain.completed" and event["bank_id"] == bank
        assert event["data"]["memory_unit_count"] == len(answer["memory_ids"]) >= 1
        [delivery] = _settled(http, bank, hook["id"])
        assert delivery["status"] == "delivered" and delivery["attempts"] == 1
        assert delivery["event_id"] == event["id"]
        assert delivery["last_response_status"] == 200


def test_zero_memory_retain_still_reports_its_count(http: httpx.Client, bank: str) -> None:
    item = {"content": "Edsger Dijkstra found the shortest path.", "document_id": "d/1"}
    first = http.post(f"/v1/default/banks/{bank}/memories", json={"items": [item]}).json()
    assert first["memory_ids"]
    with receiver() as rx:
        hook = _hook(http, bank, rx.url)
        # The same document again: nothing changed, no memory made, and the event still says so.
        again = http.post(f"/v1/default/banks/{bank}/memories", json={"items": [item]}).json()
        assert again["memory_ids"] == []
        [got] = rx.wait_for(1)
        assert msgspec.json.decode(got.body)["data"]["memory_unit_count"] == 0
        _settled(http, bank, hook["id"])


def test_failure_then_timeout_then_recovery_is_retried_and_recorded(
    http: httpx.Client, bank: str
) -> None:
    # attempt 1: a 500; attempt 2: no answer within the 1 s timeout; attempt 3: 200.
    with receiver([500, ("sleep", 2.5)]) as rx:
        hook = _hook(http, bank, rx.url, http_config={"timeout_seconds": 1})
        _retain(http, bank, "Grace Hopper found a moth in the Mark II.")
        [delivery] = _settled(http, bank, hook["id"])
        got = rx.wait_for(3)
        assert len(got) == 3
        assert len({r.body for r in got}) == 1, "every attempt sends the same signed body"
        assert len({r.headers["X-Mnemo-Delivery"] for r in got}) == 1
        assert got[1].at - got[0].at >= 0.2 and got[2].at - got[1].at >= 0.4, "backoff doubles"
        assert delivery["status"] == "delivered"
        assert delivery["attempts"] == 3
        assert delivery["last_error"] is None and delivery["last_response_status"] == 200


def test_a_receiver_that_never_accepts_fails_after_the_last_attempt(
    http: httpx.Client, bank: str
) -> None:
    with receiver([503] * 10) as rx:
        hook = _hook(http, bank, rx.url)
        _retain(http, bank, "Alan Turing proposed the imitation game.")
        [delivery] = _settled(http, bank, hook["id"])
        assert delivery["status"] == "failed"
        assert delivery["attempts"] == 5 == len(rx.wait_for(5))
        assert delivery["last_response_status"] == 503
        assert delivery["last_error"] == "answered 503"
        assert delivery["next_retry_at"] is None


def test_a_slow_receiver_never_blocks_a_retain(http: httpx.Client, bank: str) -> None:
    with receiver([("hold", None)]) as rx:
        hook = _hook(http, bank, rx.url)
        _retain(http, bank, "Katherine Johnson computed the trajectory.")
        rx.wait_for(1)
        # The receiver holds the first delivery; a second retain still answers at once.
        started = time.monotonic()
        _retain(http, bank, "Margaret Hamilton led the Apollo software team.")
        assert time.monotonic() - started < 5
        assert not rx.released.is_set()
        rx.release()
        # The second delivery may be recorded after the first settles: wait for both.
        assert len(_settled(http, bank, hook["id"], count=2)) == 2


def test_async_retain_emits_when_the_operation_finishes(http: httpx.Client, bank: str) -> None:
    with receiver() as rx:
        hook = _hook(http, bank, rx.url)
        text = "Hedy Lamarr co-invented frequency hopping."
        answer = _retain(http, bank, text, **{"async": True})
        assert answer["async"] is True
        [got] = rx.wait_for(1)
        data = msgspec.json.decode(got.body)["data"]
        assert data["operation_id"] == answer["operation_id"]
        assert data["memory_unit_count"] >= 1 and data["status"] == "completed"
        _settled(http, bank, hook["id"])


def test_disabled_or_unsubscribed_hooks_get_nothing(http: httpx.Client, bank: str) -> None:
    with receiver() as rx:
        off = _hook(http, bank, rx.url, enabled=False)
        other = _hook(http, bank, rx.url, event_types=["consolidation.completed"])
        _retain(http, bank, "Barbara Liskov defined substitutability.")
        time.sleep(1.0)
        assert rx.received == []
        assert _deliveries(http, bank, off["id"]) == _deliveries(http, bank, other["id"]) == []


def test_crud_and_secrets(http: httpx.Client, bank: str) -> None:
    base = f"/v1/default/banks/{bank}/webhooks"
    created = http.post(base, json={"url": "http://127.0.0.1:9/hook"}).json()
    assert len(created["secret"]) >= 32, "a secret is made when none is sent"
    listed = http.get(base).json()
    assert listed["total"] == 1 and listed["items"][0]["secret"] is None
    assert listed["items"][0]["event_types"] == [
        "retain.completed",
        "consolidation.completed",
        "mental_model.refreshed",
    ]
    hook = f"{base}/{created['id']}"
    patched = http.patch(hook, json={"enabled": False, "event_types": ["retain.completed"]})
    assert patched.status_code == 200 and patched.json()["enabled"] is False
    assert patched.json()["secret"] is None
    assert http.get(hook).json()["event_types"] == ["retain.completed"]
    deleted = http.delete(hook)
    assert deleted.status_code == 200 and deleted.json()["success"] is True
    assert http.get(hook).status_code == 404
    assert http.get(f"{hook}/deliveries").status_code == 404


def test_bad_requests_name_the_field(http: httpx.Client, bank: str) -> None:
    base = f"/v1/default/banks/{bank}/webhooks"
    bad_type = http.post(base, json={"url": "http://127.0.0.1:9/", "event_types": ["nope"]})
    assert bad_type.status_code == 400 and "event_types" in bad_type.text
    assert http.post(base, json={"url": "ftp://x/"}).status_code == 400
    # A host no request can be sent to is refused when subscribing, not at every delivery.
    bad_host = http.post(base, json={"url": "http://\U00052476a9/hook"})
    assert bad_host.status_code == 400 and "url" in bad_host.text
    assert http.post(base, json={"url": "http://127.0.0.1:9/", "colour": 1}).status_code == 400
    hook = _hook(http, bank, "http://127.0.0.1:9/hook")["id"]
    for cursor in ["\u00b21", "99999999999999999999", "-1"]:
        page = http.get(f"{base}/{hook}/deliveries", params={"cursor": cursor})
        assert page.status_code == 400 and "cursor" in page.text, cursor
    nobody = "/v1/default/banks/no-such-bank-x/webhooks"
    assert http.post(nobody, json={"url": "http://a.b.example/"}).status_code == 404


def test_deleting_the_bank_removes_its_webhooks(
    http: httpx.Client, bank: str, graph_probe: object
) -> None:
    _hook(http, bank, "http://127.0.0.1:9/hook")
    assert http.delete(f"/v1/default/banks/{bank}").status_code == 200
    count = graph_probe.value(  # type: ignore[attr-defined]
        "MATCH (n) WHERE (n:Webhook OR n:WebhookDelivery) AND n.bank_id = $b RETURN count(n)",
        b=bank,
    )
    assert count == 0


def test_a_mental_model_refresh_emits_its_outcome(http: httpx.Client, bank: str) -> None:
    _retain(http, bank, "Grace Hopper found a moth in the Mark II in 1947.")
    with receiver() as rx:
        hook = _hook(http, bank, rx.url, event_types=["mental_model.refreshed"])
        created = http.post(
            f"/v1/default/banks/{bank}/mental-models",
            json={"name": "Bugs", "source_query": "What did Grace Hopper find?"},
        ).json()
        [got] = rx.wait_for(1)
        event = msgspec.json.decode(got.body)
        assert event["type"] == "mental_model.refreshed"
        assert event["data"] == {
            "mental_model_id": created["mental_model_id"],
            "operation_id": created["operation_id"],
            "reason": "created",
            "outcome": "content_written",
            "mode": "offline",
            "version": 1,
        }
        _settled(http, bank, hook["id"])
