"""The console over plain HTTP: bad input gets a readable page with a 4xx naming the field,
never a 500; every page is scoped to its bank; every page says how long the server took."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest

from tests.browser.seed import seed_bank


@pytest.fixture(scope="module")
def banks(http: httpx.Client):  # type: ignore[no-untyped-def]
    a, b = f"ca-{uuid.uuid4().hex[:8]}", f"cb-{uuid.uuid4().hex[:8]}"
    made = seed_bank(http, a)
    http.put(f"/v1/default/banks/{b}", json={"name": "other"})
    yield a, b, made
    for bank in (a, b):
        http.delete(f"/v1/default/banks/{bank}")


def page(http: httpx.Client, path: str, status: int = 200, **params: str) -> str:
    response = http.get(path, params=params)
    assert response.status_code == status, (path, response.status_code, response.text[:500])
    assert response.headers["content-type"].startswith("text/html")
    assert re.fullmatch(r"app;dur=\d+\.\d", response.headers["server-timing"])
    return response.text


def post(http: httpx.Client, path: str, data: dict[str, str], status: int) -> str:
    response = http.post(path, data=data, follow_redirects=False)
    assert response.status_code == status, (path, response.status_code, response.text[:500])
    return response.text


def test_every_page_of_a_bank_loads(http: httpx.Client, banks) -> None:  # type: ignore[no-untyped-def]
    a, _, made = banks
    base = f"/console/banks/{a}"
    memory = made["memory_ids"][0]
    for path in ("/", "/memories/", f"/memories/{memory}", "/documents/",
                 "/documents/letters/caroline.txt", "/entities/", f"/entities/{made['rob']}",
                 "/reviews/", "/reviews/?status=all", "/audit/", "/audit/?kind=merge",
                 "/recall/", "/?by=occurred"):  # fmt: skip
        page(http, base + path)
    assert "Where did" not in page(http, base + "/recall/", q="Where did Caroline move?")[:0]


def test_bad_input_is_a_readable_4xx(http: httpx.Client, banks) -> None:  # type: ignore[no-untyped-def]
    a, _, made = banks
    base = f"/console/banks/{a}"
    memory = made["memory_ids"][0]
    assert "type: one of" in page(http, base + "/memories/", 400, type="opinion")
    assert "bank_id" in page(http, "/console/banks/not%20a%20bank/", 400)
    assert "not found" in page(http, "/console/banks/no-such-bank-here/", 404)
    assert page(http, base + "/memories/", offset="lots")  # a bad offset reads as the start
    assert "max_tokens" in page(http, base + "/recall/", 400, q="x", max_tokens="-3")
    assert "reason: required" in post(
        http, f"{base}/memories/{memory}/state", {"state": "invalidated"}, 400
    )
    assert "state: valid or invalidated" in post(
        http, f"{base}/memories/{memory}/state", {"state": "gone", "reason": "x"}, 400
    )
    assert "text: required" in post(http, f"{base}/memories/{memory}/edit", {"reason": "x"}, 400)
    assert "not found" in post(
        http, f"{base}/entities/{made['rob']}/merge", {"into": "nobody", "reason": "x"}, 404
    )
    assert "memory_ids" in post(http, f"{base}/entities/{made['rob']}/split", {"reason": "x"}, 400)
    review = http.get(f"/v1/default/banks/{a}/reviews").json()["items"][0]["id"]
    assert "decision" in post(http, f"{base}/reviews/{review}", {"decision": "maybe"}, 400)
    assert "bank_id" in post(http, "/console/banks", {"bank_id": "no spaces"}, 400)
    merge = made["merge"]["id"]
    post(http, f"{base}/audit/{merge}/revert", {"reason": "test"}, 303)
    assert "already" in post(http, f"{base}/audit/{merge}/revert", {"reason": "again"}, 409)


def test_pages_never_show_another_banks_items(http: httpx.Client, banks) -> None:  # type: ignore[no-untyped-def]
    a, b, made = banks
    memory = made["memory_ids"][0]
    page(http, f"/console/banks/{b}/memories/{memory}", 404)
    page(http, f"/console/banks/{b}/entities/{made['rob']}", 404)
    page(http, f"/console/banks/{b}/documents/letters/caroline.txt", 404)
    post(
        http,
        f"/console/banks/{b}/memories/{memory}/state",
        {"state": "invalidated", "reason": "x"},
        404,
    )
    assert http.get(f"/v1/default/banks/{a}/memories/{memory}").json()["state"] == "valid"
    listing = page(http, f"/console/banks/{b}/memories/")
    assert memory not in listing and "No memories match" in listing


def _charted(html: str) -> int:
    """Memories the overview's chart shows, summed over its bars."""
    return sum(int(n) for n in re.findall(r"<title>[^<:]+: (\d+)", html))


def test_the_overview_chart_catches_up_with_a_retain(http: httpx.Client) -> None:
    bank = f"cc-{uuid.uuid4().hex[:8]}"
    memories = f"/v1/default/banks/{bank}/memories"
    try:
        items = [{"content": "Mara Lind repaired the lighthouse lamp in Tromsø."}]
        assert http.post(memories, json={"items": items}).status_code == 200
        first = page(http, f"/console/banks/{bank}/")
        assert "counted at" in first and _charted(first) >= 1
        items = [
            {"content": "Oskar Brandt sold his sailboat to a buyer from Bergen."},
            {"content": "Ines Vidal opened a bakery on the harbour front in Vigo."},
        ]
        assert http.post(memories, json={"items": items}).status_code == 200
        # The count moved, so the next load recounts (behind the page); a load soon after
        # shows the new count.
        seen = [_charted(page(http, f"/console/banks/{bank}/")) for _ in range(20)]
        assert max(seen) >= _charted(first) + 2, seen
    finally:
        http.delete(f"/v1/default/banks/{bank}")
