"""Recall over real HTTP against the real Neo4j: channels, filters, isolation, limits, trace."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from tests.support.helpers import GraphProbe, retain

RECALL = "/v1/default/banks/{bank}/memories/recall"


def recall(http: httpx.Client, bank: str, query: str, **options: object) -> dict[str, Any]:
    """POST a recall and return the JSON answer (asserting 200)."""
    response = http.post(RECALL.format(bank=bank), json={"query": query, **options})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def texts(answer: dict[str, Any]) -> list[str]:
    return [r["text"] for r in answer["results"]]


def channel(answer: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in answer["trace"]["channels"] if c["channel"] == name)
    return found


@contextmanager
def made_bank(http: httpx.Client, bank_id: str, mode: str = "chunks") -> Iterator[str]:
    """A fresh bank in ``mode``, deleted afterwards."""
    response = http.put(
        f"/v1/default/banks/{bank_id}", json={"name": bank_id, "retain_extraction_mode": mode}
    )
    assert response.status_code == 200, response.text
    try:
        yield bank_id
    finally:
        http.delete(f"/v1/default/banks/{bank_id}")


@pytest.fixture
def chunks_bank(http: httpx.Client, bank_id: str) -> Iterator[str]:
    """A fresh bank in ``chunks`` mode: one fact per item, entities only as supplied."""
    with made_bank(http, bank_id) as made:
        yield made


def item(content: str, *entities: str, **fields: object) -> dict[str, object]:
    return {"content": content, "entities": [{"text": e} for e in entities], **fields}


# Facts close to the question in words and meaning, none of them about Zephyrine: more of them
# than the "low" budget's vector and keyword depth (20), so only the graph can reach the answer.
PEOPLE = [
    "Marcus",
    "Lena",
    "Omar",
    "Priya",
    "Jonas",
    "Aiko",
    "Bruno",
    "Chiara",
    "Dmitri",
    "Esther",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jamal",
    "Kirsten",
    "Luis",
    "Mira",
    "Nils",
    "Olga",
    "Pavel",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Ulla",
    "Viktor",
    "Wanda",
    "Xavier",
    "Yusuf",
]
ACTIVITIES = [
    "rebuilding the garden shed",
    "finishing a thesis",
    "hiking in the mountains",
    "moving into a new apartment",
    "playing chess at the club",
    "learning to bake bread",
]
DISTRACTORS = [
    f"{name} has been up to {ACTIVITIES[i % len(ACTIVITIES)]} lately."
    for i, name in enumerate(PEOPLE)
]


def test_fact_sharing_only_an_entity_with_the_query_is_found_through_the_graph(
    http: httpx.Client, chunks_bank: str
) -> None:
    quiet = "The greenhouse sensors were recalibrated on Tuesday."
    retain(
        http,
        chunks_bank,
        *(item(text, name) for text, name in zip(DISTRACTORS, PEOPLE, strict=True)),
        item(quiet, "Zephyrine"),
    )
    # "Zephyrne" (a typo) shares no word with the fact: only the entity lookup connects them.
    answer = recall(
        http, chunks_bank, "What has Zephyrne been up to lately?", budget="low", trace=True
    )

    hit = next(r for r in answer["results"] if r["text"] == quiet)
    assert hit["scores"]["graph"] > 0
    assert set(hit["scores"]) == {"final", "graph"}
    assert [e["name"] for e in hit["mentions"]] == ["Zephyrine"]
    assert answer["entities"][hit["mentions"][0]["id"]]["in_query"] is True
    assert [e["name"] for e in answer["trace"]["query_entities"]] == ["Zephyrine"]
    # Neither text channel returns it at all; the graph channel ranks it first.
    for name in ("vector", "keyword"):
        found = channel(answer, name)["candidates"]
        assert len(found) == 20, name
        assert hit["id"] not in [c["id"] for c in found], name
    assert channel(answer, "graph")["candidates"][0]["id"] == hit["id"]


def test_graph_expands_from_seed_facts_through_a_shared_entity(
    http: httpx.Client, chunks_bank: str
) -> None:
    seed = "Dana presented the warehouse migration plan to the board."
    linked = "The budget review went smoothly and nobody objected."
    retain(
        http,
        chunks_bank,
        item(seed, "Project Heron"),
        item(linked, "Project Heron"),
        item("The cafeteria now serves ramen on Fridays.", "Cafeteria"),
        item("Parking permits must be renewed every spring.", "Parking Office"),
    )
    answer = recall(http, chunks_bank, "warehouse migration plan", trace=True)
    by_text = {r["text"]: r for r in answer["results"]}
    assert texts(answer)[0] == seed
    assert by_text[linked]["scores"]["graph"] > 0
    assert "keyword" not in by_text[linked]["scores"]
    graph_ids = [c["id"] for c in channel(answer, "graph")["candidates"]]
    assert by_text[linked]["id"] in graph_ids
    assert by_text["The cafeteria now serves ramen on Fridays."]["id"] not in graph_ids


def test_temporal_query_returns_facts_inside_the_window_first(
    http: httpx.Client, chunks_bank: str
) -> None:
    dated = {
        "2023-03-14T10:00:00Z": "Team meeting about the roadmap and hiring.",
        "2023-05-04T10:00:00Z": "Team meeting about the budget.",
        "2023-05-22T10:00:00Z": "Team meeting with the design agency.",
        "2023-07-30T10:00:00Z": "Team meeting about the roadmap, the budget and the agency.",
        "2023-09-02T10:00:00Z": "Team meeting about the offsite.",
    }
    retain(http, chunks_bank, *(item(text, timestamp=at) for at, text in dated.items()))
    answer = recall(
        http,
        chunks_bank,
        "What team meetings did we have in May 2023?",
        query_timestamp="2023-10-01T00:00:00Z",
        trace=True,
    )
    assert set(texts(answer)[:2]) == {dated["2023-05-04T10:00:00Z"], dated["2023-05-22T10:00:00Z"]}
    window = answer["trace"]["query_window"]
    assert window["start"].startswith("2023-05-01") and window["end"].startswith("2023-05-31")
    temporal = channel(answer, "temporal")
    assert temporal["status"] == "ok"
    top = {c["id"] for c in temporal["candidates"][:2]}
    assert top == {r["id"] for r in answer["results"][:2]}
    for result in answer["results"][:2]:
        assert result["scores"]["temporal"] >= 0.5

    # A relative expression resolves against query_timestamp; an explicit window wins.
    yesterday = recall(
        http, chunks_bank, "team meeting yesterday", query_timestamp="2023-07-31T09:00:00Z"
    )
    assert texts(yesterday)[0] == dated["2023-07-30T10:00:00Z"]
    explicit = recall(
        http,
        chunks_bank,
        "team meeting",
        temporal_window={"start": "2023-03-01T00:00:00Z", "end": "2023-03-31T00:00:00Z"},
    )
    assert texts(explicit)[0] == dated["2023-03-14T10:00:00Z"]


def test_types_filter_every_channel(http: httpx.Client, chunks_bank: str) -> None:
    world = "The orchard harvest in Kent was early this year."
    experience = "I helped the user plan the orchard harvest in Kent."
    retain(
        http,
        chunks_bank,
        item(world, "Kent"),
        item(experience, "Kent", context="the assistant's own notes"),
    )
    both = recall(http, chunks_bank, "orchard harvest Kent")
    assert {(r["text"], r["type"]) for r in both["results"]} == {
        (world, "world"),
        (experience, "experience"),
    }
    only = recall(http, chunks_bank, "orchard harvest Kent", types=["experience"], trace=True)
    assert texts(only) == [experience]
    for name in ("vector", "keyword", "graph"):
        ids = {c["id"] for c in channel(only, name)["candidates"]}
        assert ids <= {only["results"][0]["id"]}, name
    bad = http.post(RECALL.format(bank=chunks_bank), json={"query": "x", "types": ["opinion"]})
    assert bad.status_code == 400
    assert "types" in bad.text


TAGGED = {
    "red": ["red"],
    "blue": ["blue"],
    "red-blue": ["red", "blue"],
    "red-blue-green": ["red", "blue", "green"],
    "untagged": [],
}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("any", {"red", "blue", "red-blue", "red-blue-green", "untagged"}),
        ("any_strict", {"red", "blue", "red-blue", "red-blue-green"}),
        ("all", {"red-blue", "red-blue-green", "untagged"}),
        ("all_strict", {"red-blue", "red-blue-green"}),
        ("exact", {"red-blue"}),
    ],
)
def test_every_tags_match_mode_filters_every_channel(
    http: httpx.Client, chunks_bank: str, mode: str, expected: set[str]
) -> None:
    retain(
        http,
        chunks_bank,
        *(
            item(
                f"Lighthouse log {name}: the lamp at Dunmore Head was cleaned.",
                "Dunmore",
                tags=tags,
            )
            for name, tags in TAGGED.items()
        ),
    )
    everything = recall(http, chunks_bank, "lighthouse lamp Dunmore Head cleaned")
    assert len(everything["results"]) == len(TAGGED)
    answer = recall(
        http,
        chunks_bank,
        "lighthouse lamp Dunmore Head cleaned",
        tags=["red", "blue"],
        tags_match=mode,
        query_timestamp="2030-01-01T00:00:00Z",
        temporal_window={"start": "2000-01-01T00:00:00Z", "end": "2100-01-01T00:00:00Z"},
        trace=True,
    )
    got = {r["text"].split(" log ")[1].split(":")[0] for r in answer["results"]}
    assert got == expected
    allowed = {r["id"] for r in answer["results"]}
    for trace in answer["trace"]["channels"]:
        assert trace["status"] == "ok", trace
        assert {c["id"] for c in trace["candidates"]} <= allowed, trace["channel"]


def test_invalidated_and_pending_facts_never_return(
    http: httpx.Client, chunks_bank: str, graph_probe: GraphProbe
) -> None:
    first = retain(
        http,
        chunks_bank,
        {"content": "The kiln in studio B reaches 1300 degrees.", "document_id": "kiln"},
        item("Studio B also has a pottery wheel.", "Studio B"),
    )
    assert len(first["memory_ids"]) == 2
    # Re-retaining the document with new content retires its old fact (state: invalidated).
    retain(
        http,
        chunks_bank,
        {"content": "The kiln in studio B was replaced by an electric one.", "document_id": "kiln"},
    )
    assert (
        graph_probe.value(
            "MATCH (m:Memory {bank_id: $b, state: 'invalidated'}) RETURN count(m) AS n",
            b=chunks_bank,
        )
        == 1
    )
    answer = recall(http, chunks_bank, "kiln studio B 1300 degrees", trace=True)
    assert "The kiln in studio B reaches 1300 degrees." not in texts(answer)
    assert "The kiln in studio B was replaced by an electric one." in texts(answer)
    retired = first["memory_ids"][0]
    for trace in answer["trace"]["channels"]:
        assert retired not in {c["id"] for c in trace["candidates"]}, trace["channel"]


def test_banks_are_isolated(http: httpx.Client, bank_id: str) -> None:
    with made_bank(http, f"{bank_id}-a") as ours, made_bank(http, f"{bank_id}-b") as theirs:
        retain(http, ours, item("Quentin keeps bees on the roof of the library.", "Quentin"))
        retain(http, theirs, item("Quentin keeps bees on the roof of the museum.", "Quentin"))
        answer = recall(http, ours, "Where does Quentin keep bees?", trace=True)
        assert texts(answer) == ["Quentin keeps bees on the roof of the library."]
        assert len(answer["entities"]) == 1
        for trace in answer["trace"]["channels"]:
            assert len(trace["candidates"]) <= 1, trace["channel"]


def test_empty_bank_returns_empty_results(http: httpx.Client, chunks_bank: str) -> None:
    answer = recall(http, chunks_bank, "anything at all in May 2023?", trace=True)
    assert answer["results"] == []
    assert "entities" not in answer
    assert [c["status"] for c in answer["trace"]["channels"]] == ["ok", "ok", "skipped", "ok"]


def test_unknown_bank_is_404(http: httpx.Client, bank_id: str) -> None:
    response = http.post(RECALL.format(bank=bank_id), json={"query": "hello"})
    assert response.status_code == 404


@pytest.mark.parametrize("query", ["", "   \n\t "])
def test_empty_query_is_400(http: httpx.Client, chunks_bank: str, query: str) -> None:
    response = http.post(RECALL.format(bank=chunks_bank), json={"query": query})
    assert response.status_code == 400
    assert response.json()["extra"]["field"] == "query"


def test_query_over_the_documented_size_is_400(
    http: httpx.Client, chunks_bank: str, settings: Any
) -> None:
    limit = settings.max_query_chars
    ok = http.post(RECALL.format(bank=chunks_bank), json={"query": "a" * limit})
    assert ok.status_code == 200, ok.text
    response = http.post(RECALL.format(bank=chunks_bank), json={"query": "a" * (limit + 1)})
    assert response.status_code == 400
    assert response.json()["extra"] == {"field": "query", "max_chars": limit}


@pytest.mark.parametrize(
    "body",
    [
        {"query": "x", "budget": "extreme"},
        {"query": "x", "tags_match": "some"},
        {"query": "x", "max_tokens": 0},
        {"query": "x", "temporal_window": {"start": "2024-02-01T00:00:00Z", "end": "2024-01-01"}},
        {"query": "x", "surprise": True},
    ],
)
def test_invalid_request_fields_are_400(
    http: httpx.Client, chunks_bank: str, body: dict[str, object]
) -> None:
    assert http.post(RECALL.format(bank=chunks_bank), json=body).status_code == 400


@pytest.mark.parametrize(
    "query",
    [
        'foo AND (bar:* OR "x" ~ \\) NOT -baz^2 && || !',
        "text:ramen OR bank_key:* OR state:invalidated",
        '*?~^"[]{}()/\\:',
        "AND OR NOT TO",
    ],
)
def test_lucene_syntax_in_a_query_is_harmless(
    http: httpx.Client, chunks_bank: str, query: str
) -> None:
    retain(http, chunks_bank, item("The cafeteria serves ramen on Fridays.", "Cafeteria"))
    answer = recall(http, chunks_bank, query, trace=True)
    assert all(c["status"] in ("ok", "skipped") for c in answer["trace"]["channels"])
    if "ramen" in query:
        assert texts(answer) == ["The cafeteria serves ramen on Fridays."]


def test_result_shape_and_budget(http: httpx.Client, chunks_bank: str) -> None:
    retain(
        http,
        chunks_bank,
        item(
            "Melanie painted a sunrise over Lake Tahoe.",
            "Melanie",
            "Lake Tahoe",
            timestamp="2023-05-08T14:01:00Z",
            metadata={"dia_id": "D1:4"},
            tags=["locomo"],
            context="chat between friends",
            document_id="conv/D1:4",
        ),
        item("Melanie also paints portraits of her kids.", "Melanie"),
    )
    answer = recall(http, chunks_bank, "What did Melanie paint at Lake Tahoe?")
    top = answer["results"][0]
    assert top["text"] == "Melanie painted a sunrise over Lake Tahoe."
    assert set(top) == {
        "id",
        "text",
        "type",
        "entities",
        "mentions",
        "chunk_id",
        "context",
        "occurred_start",
        "occurred_end",
        "mentioned_at",
        "document_id",
        "metadata",
        "tags",
        "scores",
        "proof_count",
        "source_memory_ids",
    }
    assert top["type"] == "world"
    assert (top["proof_count"], top["source_memory_ids"]) == (1, None)
    assert top["metadata"] == {"dia_id": "D1:4"}
    assert top["document_id"] == "conv/D1:4"
    assert top["tags"] == ["locomo"]
    assert top["context"] == "chat between friends"
    assert top["mentioned_at"].startswith("2023-05-08T14:01")
    assert top["occurred_start"].startswith("2023-05-08")
    assert sorted((e["name"], e["mention"]) for e in top["mentions"]) == [
        ("Lake Tahoe", "Lake Tahoe"),
        ("Melanie", "Melanie"),
    ]
    assert top["entities"] == ["Lake Tahoe", "Melanie"]  # Hindsight's shape: the names
    assert top["chunk_id"]
    assert {"final", "vector", "keyword"} <= set(top["scores"])
    assert top["scores"]["final"] >= answer["results"][1]["scores"]["final"]
    names = {e["name"] for e in answer["entities"].values()}
    assert names == {"Melanie", "Lake Tahoe"}

    # max_tokens keeps a prefix of the ranking that fits (the first fact alone is 11 tokens).
    small = recall(http, chunks_bank, "What did Melanie paint at Lake Tahoe?", max_tokens=12)
    assert texts(small) == [top["text"]]
    none = recall(http, chunks_bank, "What did Melanie paint at Lake Tahoe?", max_tokens=3)
    assert none["results"] == []


def test_trace_shows_channels_fusion_budget_and_timings(
    http: httpx.Client, chunks_bank: str
) -> None:
    retain(
        http,
        chunks_bank,
        item(
            "Ravi adopted a greyhound named Comet in March 2023.",
            "Ravi",
            "Comet",
            timestamp="2023-03-20T09:00:00Z",
        ),
        item(
            "Comet loves the beach at Brighton.",
            "Comet",
            "Brighton",
            timestamp="2023-04-02T09:00:00Z",
        ),
    )
    answer = recall(
        http,
        chunks_bank,
        "What did Ravi adopt in March 2023?",
        query_timestamp="2023-06-01T00:00:00Z",
        trace=True,
        budget="high",
    )
    trace = answer["trace"]
    assert trace["recipe"]["name"] == "high"
    assert [c["channel"] for c in trace["channels"]] == ["vector", "keyword", "graph", "temporal"]
    for ch in trace["channels"]:
        assert ch["status"] == "ok"
        ranks = [c["rank"] for c in ch["candidates"]]
        assert ranks == sorted(ranks) and (not ranks or ranks[0] == 1)
        assert all({"id", "score", "rank"} == set(c) for c in ch["candidates"])
    fusion = trace["fusion"]
    assert [f["id"] for f in fusion][: len(answer["results"])] == [
        r["id"] for r in answer["results"]
    ]
    first = fusion[0]
    assert set(first) >= {"id", "final", "rrf", "channels", "boosts"}
    assert first["rrf"] == pytest.approx(
        sum(hit["contribution"] for hit in first["channels"].values())
    )
    assert first["final"] == pytest.approx(first["rrf"] * (1 + first["boosts"]["total"]))
    assert trace["budget"]["kept"] == len(answer["results"])
    assert trace["budget"]["max_tokens"] == 4096
    for phase in (
        "embed",
        "query_entities",
        "vector",
        "keyword",
        "graph",
        "temporal",
        "fusion",
        "hydrate",
        "boosts",
        "budget",
        "total",
    ):
        assert phase in trace["timings_ms"], phase
    assert trace["timings_ms"]["total"] >= trace["timings_ms"]["graph"]
    assert trace["query_window"]["start"].startswith("2023-03-01")
    assert {e["name"] for e in trace["query_entities"]} >= {"Ravi"}
    assert "trace" not in recall(http, chunks_bank, "Ravi")


def _ids(results: Sequence[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in results]


def test_local_mode_bank_recalls_extracted_facts(http: httpx.Client, bank: str) -> None:
    retain(
        http,
        bank,
        {
            "content": "Caroline: I went to the LGBTQ support group yesterday. It was so powerful!",
            "timestamp": "2023-05-08T13:56:00Z",
            "metadata": {"dia_id": "D1:3"},
        },
        {
            "content": "Melanie: I painted a sunrise over Lake Tahoe last week with my kids.",
            "timestamp": "2023-05-08T14:01:00Z",
            "metadata": {"dia_id": "D1:4"},
        },
    )
    answer = recall(
        http,
        bank,
        "When did Caroline go to the support group?",
        query_timestamp="2023-06-01T00:00:00Z",
    )
    assert answer["results"][0]["text"].startswith("Caroline: I went to the LGBTQ support group")
    assert answer["results"][0]["metadata"] == {"dia_id": "D1:3"}
    assert _ids(answer["results"]) == list(dict.fromkeys(_ids(answer["results"])))
