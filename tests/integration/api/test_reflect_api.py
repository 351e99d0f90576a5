"""Reflect over HTTP, offline (no LLM configured): the extractive answer and its evidence."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.support.helpers import GraphProbe, retain

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

ITEMS = [
    {
        "content": "Caroline: I went to the LGBTQ support group yesterday.",
        "timestamp": "2023-05-08T13:56:00Z",
        "document_id": "s1",
    },
    {
        "content": "Caroline: I signed up for a pottery class last week.",
        "timestamp": "2023-07-03T10:00:00Z",
        "document_id": "s2",
    },
    {
        "content": "Melanie: My kids and I painted a sunset at the lake.",
        "timestamp": "2023-06-01T09:00:00Z",
        "document_id": "s3",
    },
]


def reflect(http: httpx.Client, bank: str, **body: Any) -> httpx.Response:
    return http.post(f"/v1/default/banks/{bank}/reflect", json=body)


def test_offline_answer_cites_exactly_what_based_on_lists(http: httpx.Client, bank: str) -> None:
    ids = retain(http, bank, *ITEMS)["memory_ids"]

    response = reflect(http, bank, query="What did Caroline go to?", include={"facts": {}})

    assert response.status_code == 200, response.text
    body = response.json()
    cited = re.findall(rf"\[({UUID})\]", body["text"])
    listed = [m["id"] for m in body["based_on"]["memories"]]
    assert listed and sorted(cited) == sorted(listed)
    assert set(listed) <= set(ids)
    support = next(m for m in body["based_on"]["memories"] if "support group" in m["text"])
    # The quote is verbatim and names its date (the group was "yesterday": 7 May 2023).
    assert support["text"] in body["text"]
    assert "7 May 2023" in body["text"]
    assert body["structured_output"] is None
    assert body["usage"]["total_tokens"] == 0
    assert body["based_on"]["directives"] == []
    assert body["trace"] is None


def test_when_question_is_answered_oldest_first(http: httpx.Client, bank: str) -> None:
    retain(http, bank, *ITEMS)

    body = reflect(
        http, bank, query="When did Caroline do things?", include={"facts": {}}, budget="high"
    ).json()

    dates = [m["occurred_start"] or m["mentioned_at"] for m in body["based_on"]["memories"]]
    assert len(dates) >= 2 and dates == sorted(dates)
    assert "oldest first" in body["text"]


def test_response_schema_without_an_llm_is_refused_with_the_reason(
    http: httpx.Client, bank: str
) -> None:
    response = reflect(
        http, bank, query="What does Caroline like?", response_schema={"type": "object"}
    )

    assert response.status_code == 400
    assert "needs an LLM" in response.json()["detail"]
    assert response.json()["extra"]["field"] == "response_schema"


def test_bad_requests_name_the_field(http: httpx.Client, bank: str) -> None:
    assert reflect(http, bank, query="  ").status_code == 400
    refused = reflect(http, bank, query="x", tag_groups=[{"tags": ["a"]}])
    assert refused.status_code == 400 and refused.json()["extra"]["field"] == "tag_groups"
    assert reflect(http, bank, query="x", budget="huge").status_code == 400
    assert reflect(http, "no-such-bank-here", query="x").status_code == 404


def test_reflect_reads_one_bank_and_writes_nothing(
    http: httpx.Client, bank: str, graph_probe: GraphProbe
) -> None:
    other = f"{bank}-other"
    assert http.put(f"/v1/default/banks/{other}", json={}).status_code == 200
    try:
        mine = set(retain(http, bank, ITEMS[0])["memory_ids"])
        retain(http, other, {"content": "Caroline: I went to the support group in Paris."})
        count = "MATCH (n) WHERE n.bank_id IN [$a, $b] OR n.id IN [$a, $b] RETURN count(n) AS n"
        before = graph_probe.value(count, a=bank, b=other)

        body = reflect(http, bank, query="support group", include={"facts": {}}).json()

        assert {m["id"] for m in body["based_on"]["memories"]} <= mine
        assert "Paris" not in body["text"]
        assert graph_probe.value(count, a=bank, b=other) == before
    finally:
        http.delete(f"/v1/default/banks/{other}")


def test_tags_filter_as_in_recall(http: httpx.Client, bank: str) -> None:
    retain(
        http,
        bank,
        {"content": "Caroline loves hiking in the Alps.", "tags": ["caroline"]},
        {"content": "Caroline also loves hiking near Lisbon."},
        {"content": "Hiking is what Melanie loves too.", "tags": ["melanie"]},
    )

    def texts(mode: str) -> set[str]:
        body = reflect(
            http, bank, query="hiking", tags=["caroline"], tags_match=mode, include={"facts": {}}
        ).json()
        return {m["text"] for m in body["based_on"]["memories"]}

    assert texts("any") == {
        "Caroline loves hiking in the Alps.",
        "Caroline also loves hiking near Lisbon.",
    }
    assert texts("any_strict") == {"Caroline loves hiking in the Alps."}


def test_trace_shows_the_extractive_mode_and_timings(http: httpx.Client, bank: str) -> None:
    retain(http, bank, *ITEMS)

    body = reflect(http, bank, query="pottery", include={"tool_calls": {}}).json()

    assert body["trace"]["mode"] == "extractive"
    assert body["trace"]["timings_ms"]["total"] > 0
    assert body["based_on"] is None


def test_a_bank_with_nothing_relevant_says_so(http: httpx.Client, bank: str) -> None:
    body = reflect(http, bank, query="What is the capital of Peru?", include={"facts": {}}).json()

    assert body["text"] == "Nothing in this bank answers this."
    assert body["based_on"]["memories"] == []


def test_version_offers_reflect_and_mental_models(http: httpx.Client) -> None:
    features = http.get("/version").json()["features"]
    assert features["reflect"] is True and features["mental_models"] is True
