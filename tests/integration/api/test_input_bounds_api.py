"""Bad input is a 4xx naming what is wrong, never a 500: huge integers, deep or large
metadata, relative dates out of range, empty searches, dot bank ids, size limits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.api.deps import MAX_OFFSET
from tests.conftest import make_settings
from tests.support.live_server import live_server

BANKS = "/v1/default/banks"
LISTINGS = [
    "",
    "/{b}/memories/list",
    "/{b}/documents",
    "/{b}/entities",
    "/{b}/entity-merges",
    "/{b}/reviews",
    "/{b}/operations",
    "/{b}/security-events",
    "/{b}/tags",
    "/{b}/webhooks",
]
# Banks and operations are listed under Hindsight's names; the other pages under ``items``.
ROWS = {"": "banks", "/{b}/operations": "operations"}


@pytest.mark.parametrize("listing", LISTINGS)
@pytest.mark.parametrize("offset", [2**31, 2**63, 2**64, MAX_OFFSET + 1])
def test_offsets_past_the_bound_are_400(
    http: httpx.Client, bank: str, listing: str, offset: int
) -> None:
    response = http.get(BANKS + listing.format(b=bank), params={"offset": offset})
    assert response.status_code == 400, response.text
    assert "offset" in response.text


@pytest.mark.parametrize("listing", LISTINGS)
def test_the_largest_offset_is_an_empty_page(http: httpx.Client, bank: str, listing: str) -> None:
    response = http.get(BANKS + listing.format(b=bank), params={"offset": MAX_OFFSET})
    assert response.status_code == 200, response.text
    assert response.json()[ROWS.get(listing, "items")] == []


def test_entity_graph_min_count_is_bounded(http: httpx.Client, bank: str) -> None:
    response = http.get(f"{BANKS}/{bank}/entities/graph", params={"min_count": 2**63})
    assert response.status_code == 400 and "min_count" in response.text


@pytest.mark.parametrize("depth", [10, 1000, 5000])
def test_deeply_nested_bodies_are_400(http: httpx.Client, bank: str, depth: int) -> None:
    nested = '{"a":' * depth + '"x"' + "}" * depth
    body = '{"items": [{"content": "hello there", "metadata": ' + nested + "}]}"
    response = http.post(
        f"{BANKS}/{bank}/memories", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400, response.text[:300]
    bank_body = '{"name": "n", "x": ' + "[" * depth + "]" * depth + "}"
    patched = http.patch(
        f"{BANKS}/{bank}", content=bank_body, headers={"content-type": "application/json"}
    )
    assert patched.status_code == 400


def test_metadata_is_bounded_in_keys_and_size(http: httpx.Client, bank: str) -> None:
    many = {f"k{i}": "v" for i in range(65)}
    big = {"k": "x" * 10_001}
    for metadata in (many, big, {"": "empty key"}):
        response = http.post(
            f"{BANKS}/{bank}/memories",
            json={"items": [{"content": "Ada wrote code.", "metadata": metadata}]},
        )
        assert response.status_code == 400, response.text[:300]
        assert "metadata" in response.text


@pytest.mark.parametrize(
    ("timestamp", "text"),
    [
        ("0001-01-01T00:00:00Z", "I went to Paris yesterday."),
        ("9999-12-31T12:00:00Z", "I will go to Paris tomorrow."),
        ("0003-06-01T00:00:00Z", "That was ten years ago."),
    ],
)
def test_relative_dates_out_of_range_are_400(
    http: httpx.Client, bank: str, timestamp: str, text: str
) -> None:
    response = http.post(
        f"{BANKS}/{bank}/memories", json={"items": [{"content": text, "timestamp": timestamp}]}
    )
    assert response.status_code == 400, response.text
    assert "representable range" in response.json()["detail"]
    recall = http.post(
        f"{BANKS}/{bank}/memories/recall",
        json={"query": "what happened yesterday", "query_timestamp": "0001-01-01T00:00:00Z"},
    )
    assert recall.status_code == 400, recall.text


@pytest.mark.parametrize("q", ["the", "AND", "(", "the AND of", "*", '""'])
def test_a_search_without_words_is_400_not_the_whole_bank(
    http: httpx.Client, bank: str, q: str
) -> None:
    http.post(f"{BANKS}/{bank}/memories", json={"items": [{"content": "Ada wrote code."}]})
    response = http.get(f"{BANKS}/{bank}/memories/list", params={"q": q})
    assert response.status_code == 400, response.text
    assert response.json()["extra"]["field"] == "q"
    words = http.get(f"{BANKS}/{bank}/memories/list", params={"q": "the code"})
    assert words.status_code == 200 and words.json()["total"] == 1


@pytest.mark.parametrize("bank_id", [".", "..", "%2E", "%2E%2E"])
def test_dot_bank_ids_are_refused(base_url: str, bank_id: str) -> None:
    # A raw path: clients would normalise "/banks/.." away before sending it.
    with httpx.Client(base_url=base_url) as client:
        request = client.build_request("PUT", "/", json={})
        request.url = request.url.copy_with(raw_path=f"{BANKS}/{bank_id}".encode())
        response = client.send(request)
    # 400 (the id), or 404/405 when the server reads the dots as path navigation.
    assert response.status_code in (400, 404, 405), response.text
    assert client is not None
    with httpx.Client(base_url=base_url) as client:
        listing = client.get(BANKS).json()["banks"]
    assert not any(b["id"] in (".", "..") for b in listing)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    settings = make_settings(
        Path(tmp_path_factory.mktemp("small-limits")),
        max_item_chars=1000,
        max_request_bytes=20_000,
    )
    with live_server(settings) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


def test_memory_edits_obey_the_retain_size_limit(small: httpx.Client) -> None:
    assert small.put(f"{BANKS}/limits", json={}).status_code in (200, 201)
    too_long = small.post(f"{BANKS}/limits/memories", json={"items": [{"content": "x" * 1001}]})
    assert too_long.status_code == 413
    memory = small.post(
        f"{BANKS}/limits/memories", json={"items": [{"content": "Ada wrote the first program."}]}
    ).json()["memory_ids"][0]
    edit = small.patch(f"{BANKS}/limits/memories/{memory}", json={"text": "y" * 1001})
    assert edit.status_code == 413, edit.text
    assert "MNEMO_MAX_ITEM_CHARS" in edit.json()["detail"]
    ok = small.patch(f"{BANKS}/limits/memories/{memory}", json={"text": "Ada wrote programs."})
    assert ok.status_code == 200


def test_a_body_over_the_request_limit_is_413(small: httpx.Client) -> None:
    body = {"items": [{"content": "z" * 900} for _ in range(30)]}  # ~28 KB > 20 KB
    response = small.post(f"{BANKS}/limits/memories", json=body)
    assert response.status_code == 413, response.text[:300]
    assert response.json()["status_code"] == 413
