"""Every query under cypher/analytics/ against small real banks built through the HTTP API.

Bank A (``chunks`` mode, caller-supplied entities, one request per item so resolution sees them
in order) holds two Alexes that share the name "Alex", a "Sarah" kept apart from Sarah Chen and
Sarah Park (a namesake tie, filed for review), two near-identical facts (a SEMANTIC link, the
second retained last but earlier in event time) and a document whose only fact was invalidated.
Bank B repeats part of A (the same names), to show that nothing crosses banks. Bank C (an LLM
mode against the scripted endpoint) holds a three-fact causal chain and a document the
extraction found nothing in. Bank D (on a service whose consolidation worker runs) holds two
restatements of one claim, consolidated into an observation.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import pytest_asyncio

from app.config import Settings
from app.curate.analytics import MAX_INT_PARAM, analytics_queries, run_analytics
from app.errors import InvalidInput, NotFound
from app.store.cypher import CypherRegistry
from app.store.graph import Graph
from tests.support.consolidating_app import consolidating_http, observations, wait_for
from tests.support.fake_openai import FakeOpenAIServer, reply_json
from tests.support.helpers import GraphProbe, retain
from tests.support.llm_app import llm_http, llm_server

__all__ = ["consolidating_http", "llm_http", "llm_server"]  # fixtures used by this module

QUERIES = [q.name for q in analytics_queries(CypherRegistry.load())]


def item(content: str, *entities: str | tuple[str, str], at: str, **extra: Any) -> dict[str, Any]:
    """A retain item with its entities (``"Name"`` is a person)."""
    hints = [
        {"text": e, "type": "person"} if isinstance(e, str) else {"text": e[0], "type": e[1]}
        for e in entities
    ]
    return {"content": content, "timestamp": at, "entities": hints, **extra}


ACME, GLOBEX, LISBON = ("Acme", "organization"), ("Globex", "organization"), ("Lisbon", "place")
OFFSITE_LATE = "Bo Ng booked the Acme offsite in Lisbon for the whole design team."
OFFSITE_EARLY = "Bo Ng booked the Acme offsite in Lisbon for the design team."
BANK_A = [
    item(
        "Alex Kim planned the Acme sprint with Bo Ng.",
        "Alex Kim",
        ACME,
        "Bo Ng",
        at="2024-05-01T09:00:00Z",
    ),
    item(
        "Alex Moreno audited Globex with Cy Ruiz.",
        "Alex Moreno",
        GLOBEX,
        "Cy Ruiz",
        at="2024-05-02T09:00:00Z",
    ),
    item(
        "Alex and Bo Ng reviewed the Acme roadmap.",
        "Alex",
        "Bo Ng",
        ACME,
        at="2024-05-03T09:00:00Z",
    ),
    item(
        "Alex and Cy Ruiz closed the Globex deal.",
        "Alex",
        "Cy Ruiz",
        GLOBEX,
        at="2024-05-04T09:00:00Z",
    ),
    item(
        "Sarah Chen leads design at Acme with Bo Ng.",
        "Sarah Chen",
        ACME,
        "Bo Ng",
        at="2024-05-05T09:00:00Z",
    ),
    item(
        "Sarah Park runs sales at Globex with Cy Ruiz.",
        "Sarah Park",
        GLOBEX,
        "Cy Ruiz",
        at="2024-05-06T09:00:00Z",
    ),
    item(
        "Sarah had lunch with Bo Ng and Cy Ruiz.",
        "Sarah",
        "Bo Ng",
        "Cy Ruiz",
        at="2024-05-07T09:00:00Z",
    ),
    item(OFFSITE_LATE, "Bo Ng", ACME, LISBON, at="2024-06-10T09:00:00Z"),
    item(
        "Cy Ruiz is moving to Madrid.",
        "Cy Ruiz",
        ("Madrid", "place"),
        at="2024-05-08T09:00:00Z",
        document_id="rumour",
    ),
    # Retained last, but the earliest event of Bo Ng's timeline.
    item(OFFSITE_EARLY, "Bo Ng", ACME, LISBON, at="2024-04-20T09:00:00Z"),
]

CAUSE, STAY, MISSED = (
    "The Ocean Probe 1 launch slipped by four days.",
    "Sarah Chen stayed in Lisbon until Friday 24 May 2024.",
    "Sarah Chen missed the Acme design review on 23 May 2024.",
)
CHAIN = {
    "facts": [
        {
            "what": CAUSE,
            "fact_kind": "event",
            "fact_type": "world",
            "entities": [{"name": "Ocean Probe 1", "type": "product"}],
        },
        {
            "what": STAY,
            "fact_kind": "event",
            "fact_type": "world",
            "occurred_start": "2024-05-19",
            "occurred_end": "2024-05-24",
            "entities": [
                {"name": "Sarah Chen", "type": "person"},
                {"name": "Lisbon", "type": "place"},
            ],
            "causal_relations": [0],
        },
        {
            "what": MISSED,
            "fact_kind": "event",
            "fact_type": "world",
            "occurred_start": "2024-05-23",
            "occurred_end": "2024-05-23",
            "entities": [
                {"name": "Sarah Chen", "type": "person"},
                {"name": "Acme", "type": "organization"},
            ],
            "causal_relations": [1],
        },
    ]
}


RESTATED = [
    ("Ana Ruiz has two dogs.", "2024-01-05T09:00:00Z"),
    ("Ana Ruiz owns 2 dogs.", "2024-02-11T18:30:00Z"),
]


class Banks:
    """What the module's banks hold, by name."""

    def __init__(self, probe: GraphProbe, a: str, b: str, c: str, d: str) -> None:
        self.a, self.b, self.c, self.d = a, b, c, d
        self._probe = probe

    def entity(self, bank: str, name: str) -> str:
        return str(
            self._probe.value(
                "MATCH (e:Entity {bank_id: $b, canonical_name: $n}) RETURN e.id AS id",
                b=bank,
                n=name,
            )
        )

    def fact(self, bank: str, text: str) -> str:
        return str(
            self._probe.value(
                "MATCH (m:Memory {bank_id: $b, text: $t}) RETURN m.id AS id", b=bank, t=text
            )
        )

    def ids(self, bank: str) -> set[str]:
        """Every node id of a bank (facts, entities, documents, names' keys excluded)."""
        rows = self._probe.rows(
            "MATCH (n {bank_id: $b}) WHERE n:Memory OR n:Entity OR n:Document RETURN n.id AS id",
            b=bank,
        )
        return {str(r["id"]) for r in rows}


def _make_bank(http: httpx.Client, bank_id: str, **config: Any) -> str:
    response = http.put(f"/v1/default/banks/{bank_id}", json={"name": "analytics", **config})
    assert response.status_code == 200, response.text
    return bank_id


@pytest.fixture(scope="module")
def banks(
    http: httpx.Client,
    llm_http: httpx.Client,
    llm_server: FakeOpenAIServer,
    consolidating_http: httpx.Client,
    graph_probe: GraphProbe,
) -> Iterator[Banks]:
    suffix = uuid.uuid4().hex[:10]
    d = _make_bank(consolidating_http, f"an-d-{suffix}")
    for n, (text, at) in enumerate(RESTATED):
        retain(consolidating_http, d, {"content": text, "timestamp": at, "document_id": f"r{n}"})
    a = _make_bank(http, f"an-a-{suffix}", retain_extraction_mode="chunks")
    b = _make_bank(http, f"an-b-{suffix}", retain_extraction_mode="chunks")
    c = _make_bank(llm_http, f"an-c-{suffix}", retain_extraction_mode="concise")
    for it in BANK_A:
        retain(http, a, it)
    for it in BANK_A[:4]:
        retain(http, b, it)
    rumour = graph_probe.value(
        "MATCH (m:Memory {bank_id: $b, document_id: 'rumour'}) RETURN m.id AS id", b=a
    )
    response = http.patch(
        f"/v1/default/banks/{a}/memories/{rumour}",
        json={"state": "invalidated", "reason": "a rumour, not confirmed"},
    )
    assert response.status_code == 200, response.text

    llm_server.script(reply_json(CHAIN), reply_json({"facts": []}))
    retain(
        llm_http, c, {"content": f"{CAUSE} So {STAY} {MISSED}", "timestamp": "2024-05-25T10:00:00Z"}
    )
    retain(
        llm_http,
        c,
        {
            "content": "Thanks, talk soon!",
            "timestamp": "2024-05-25T10:05:00Z",
            "document_id": "small-talk",
        },
    )
    wait_for(lambda: observations(consolidating_http, d))
    yield Banks(graph_probe, a, b, c, d)
    for bank, client in ((a, http), (b, http), (c, llm_http), (d, consolidating_http)):
        client.delete(f"/v1/default/banks/{bank}")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def graph(settings: Settings) -> AsyncIterator[Graph]:
    store = Graph.from_settings(settings, CypherRegistry.load())
    try:
        yield store
    finally:
        await store.close()


def _params(banks: Banks, name: str) -> dict[str, Any]:
    """Required parameters of a query, on the bank where it has something to find."""
    if name == "causal_chains":
        return {"bank_id": banks.c, "memory_id": banks.fact(banks.c, MISSED)}
    if name.startswith("observation"):
        return {"bank_id": banks.d}
    params: dict[str, Any] = {"bank_id": banks.a}
    if "entity_id" in {
        p.name for q in analytics_queries(CypherRegistry.load()) if q.name == name for p in q.params
    }:
        params["entity_id"] = banks.entity(banks.a, "Bo Ng")
    return params


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("name", QUERIES)
async def test_every_analytics_query_answers_on_a_real_bank_and_stays_in_it(
    graph: Graph, banks: Banks, name: str
) -> None:
    params = _params(banks, name)
    rows = await run_analytics(graph, name, params)

    assert rows, f"{name} found nothing in a bank built to have an answer"
    others = banks.ids(banks.b) | (banks.ids(banks.c) if params["bank_id"] != banks.c else set())
    others |= banks.ids(banks.a) if params["bank_id"] == banks.d else set()
    leaked = others & set(_strings(rows))
    assert not leaked, f"{name} returned another bank's ids"


async def test_overview_counts_facts_entities_documents_links_and_reviews(
    graph: Graph, banks: Banks
) -> None:
    rows = await run_analytics(graph, "overview", {"bank_id": banks.a})
    counts = {(r["section"], r["key"]): r["count"] for r in rows}

    assert counts[("facts", "world/valid")] == 9
    assert counts[("facts", "world/invalidated")] == 1
    assert counts[("entities", "person")] == 7  # 2 Alexes, 3 Sarahs, Bo Ng, Cy Ruiz
    assert counts[("entities", "organization")] == 2
    assert counts[("entities", "place")] == 2  # Madrid stays, unmentioned
    assert counts[("documents", "with facts")] == 10
    assert counts[("links", "MENTIONS")] == 27
    assert counts[("links", "MENTIONS (archived)")] == 2
    assert counts[("links", "SEMANTIC")] >= 1
    assert counts[("links", "TEMPORAL")] >= 9
    assert counts[("links", "CO_OCCURS")] >= 10
    assert sum(n for (section, _), n in counts.items() if section == "reviews") == 2
    other = await run_analytics(graph, "overview", {"bank_id": banks.b})
    assert {(r["section"], r["key"]): r["count"] for r in other}[("facts", "world/valid")] == 4


async def test_top_entities_rank_by_valid_mentions_with_aliases(graph: Graph, banks: Banks) -> None:
    rows = await run_analytics(graph, "top_entities", {"bank_id": banks.a, "limit": 3})

    assert [(r["name"], r["mentions"]) for r in rows] == [
        ("Bo Ng", 6),
        ("Acme", 5),
        ("Cy Ruiz", 4),  # the invalidated fact does not count
    ]
    everyone = await run_analytics(graph, "top_entities", {"bank_id": banks.a})
    alex = next(r for r in everyone if r["name"] == "Alex Kim")
    assert alex["aliases"] == ["Alex"] and alex["mentions"] == 2


async def test_namesakes_list_the_two_alexes_with_what_tells_them_apart(
    graph: Graph, banks: Banks
) -> None:
    rows = await run_analytics(graph, "namesakes", {"bank_id": banks.a})

    assert [r["name_key"] for r in rows] == ["alex"]
    candidates = {c["name"]: c for c in rows[0]["candidates"]}
    assert set(candidates) == {"Alex Kim", "Alex Moreno"}
    assert candidates["Alex Kim"]["facts_with_this_name"] == 1
    assert set(candidates["Alex Kim"]["seen_with"]) == {"Acme", "Bo Ng"}
    assert set(candidates["Alex Moreno"]["seen_with"]) == {"Globex", "Cy Ruiz"}


async def test_possible_duplicates_need_alike_names_and_shared_neighbours(
    graph: Graph, http: httpx.Client, banks: Banks
) -> None:
    rows = await run_analytics(graph, "possible_duplicates", {"bank_id": banks.a})
    pairs = {frozenset((r["a"]["name"], r["b"]["name"])): r for r in rows}

    assert set(pairs) == {frozenset({"Sarah", "Sarah Chen"}), frozenset({"Sarah", "Sarah Park"})}
    assert pairs[frozenset({"Sarah", "Sarah Chen"})]["shared_with"] == ["Bo Ng"]
    assert pairs[frozenset({"Sarah", "Sarah Park"})]["shared_with"] == ["Cy Ruiz"]
    assert all(r["why"] == "name inside name" and r["review"] == "open" for r in rows)

    # Without the neighbour condition, names alone pair the Alexes too (a shared lookup key).
    loose = await run_analytics(graph, "possible_duplicates", {"bank_id": banks.a, "min_shared": 0})
    alexes = [r for r in loose if {r["a"]["name"], r["b"]["name"]} == {"Alex Kim", "Alex Moreno"}]
    assert len(alexes) == 1 and alexes[0]["shared"] == 0
    assert alexes[0]["why"] == "same lookup key"

    # A pair a reviewer decided is different is not proposed again.
    reviews = http.get(f"/v1/default/banks/{banks.a}/reviews").json()["items"]
    park = next(
        r
        for r in reviews
        if {r["entity_a"]["name"], r["entity_b"]["name"]} == {"Sarah", "Sarah Park"}
    )
    decided = http.post(
        f"/v1/default/banks/{banks.a}/reviews/{park['id']}",
        json={"decision": "different", "reason": "Sarah from the lunch is Sarah Chen"},
    )
    assert decided.status_code == 200, decided.text
    after = await run_analytics(graph, "possible_duplicates", {"bank_id": banks.a})
    assert [{r["a"]["name"], r["b"]["name"]} for r in after] == [{"Sarah", "Sarah Chen"}]


async def test_entity_timeline_is_in_event_time_not_retain_order(
    graph: Graph, banks: Banks
) -> None:
    bo = banks.entity(banks.a, "Bo Ng")
    rows = await run_analytics(graph, "entity_timeline", {"bank_id": banks.a, "entity_id": bo})

    assert [r["text"] for r in rows] == [
        OFFSITE_EARLY,  # retained last, happened first
        "Alex Kim planned the Acme sprint with Bo Ng.",
        "Alex and Bo Ng reviewed the Acme roadmap.",
        "Sarah Chen leads design at Acme with Bo Ng.",
        "Sarah had lunch with Bo Ng and Cy Ruiz.",
        OFFSITE_LATE,
    ]
    assert all(r["mentions"] == ["Bo Ng"] for r in rows)
    cy = banks.entity(banks.a, "Cy Ruiz")
    cy_rows = await run_analytics(
        graph, "entity_timeline", {"bank_id": banks.a, "entity_id": cy, "limit": "2"}
    )
    assert [r["text"] for r in cy_rows] == [
        "Alex Moreno audited Globex with Cy Ruiz.",
        "Alex and Cy Ruiz closed the Globex deal.",
    ]  # the invalidated Madrid rumour never shows


async def test_entity_neighbourhood_is_bounded_and_shows_the_cluster(
    graph: Graph, banks: Banks
) -> None:
    sarah = banks.entity(banks.a, "Sarah")
    rows = await run_analytics(
        graph, "entity_neighbourhood", {"bank_id": banks.a, "entity_id": sarah}
    )
    assert {(r["name"], r["count"]) for r in rows} == {("Bo Ng", 1), ("Cy Ruiz", 1)}
    assert {r["name"]: r["also_with"] for r in rows} == {"Bo Ng": ["Cy Ruiz"], "Cy Ruiz": ["Bo Ng"]}

    bo = banks.entity(banks.a, "Bo Ng")
    top = await run_analytics(
        graph, "entity_neighbourhood", {"bank_id": banks.a, "entity_id": bo, "limit": 2}
    )
    assert len(top) == 2
    assert (top[0]["name"], top[0]["count"]) == ("Acme", 5)
    # An entity id of another bank finds nothing here.
    assert (
        await run_analytics(
            graph,
            "entity_neighbourhood",
            {"bank_id": banks.a, "entity_id": banks.entity(banks.b, "Bo Ng")},
        )
        == []
    )


async def test_causal_chain_ending_at_a_fact_comes_root_cause_first(
    graph: Graph, banks: Banks
) -> None:
    missed = banks.fact(banks.c, MISSED)
    rows = await run_analytics(graph, "causal_chains", {"bank_id": banks.c, "memory_id": missed})

    assert len(rows) == 1
    assert rows[0]["hops"] == 2 and rows[0]["strength"] == pytest.approx(1.0)
    assert [m["text"] for m in rows[0]["chain"]] == [CAUSE, STAY, MISSED]
    stay = banks.fact(banks.c, STAY)
    shorter = await run_analytics(graph, "causal_chains", {"bank_id": banks.c, "memory_id": stay})
    assert [[m["text"] for m in r["chain"]] for r in shorter] == [[CAUSE, STAY]]
    root = banks.fact(banks.c, CAUSE)
    assert (
        await run_analytics(graph, "causal_chains", {"bank_id": banks.c, "memory_id": root}) == []
    )
    # The fact exists, but not in bank A.
    assert (
        await run_analytics(graph, "causal_chains", {"bank_id": banks.a, "memory_id": missed}) == []
    )


async def test_empty_documents_find_what_produced_no_memory(graph: Graph, banks: Banks) -> None:
    c_rows = await run_analytics(graph, "empty_documents", {"bank_id": banks.c})
    assert [(r["id"], r["invalidated_facts"]) for r in c_rows] == [("small-talk", 0)]
    assert c_rows[0]["preview"] == "Thanks, talk soon!"

    a_rows = await run_analytics(graph, "empty_documents", {"bank_id": banks.a})
    assert [(r["id"], r["invalidated_facts"]) for r in a_rows] == [("rumour", 1)]
    assert await run_analytics(graph, "empty_documents", {"bank_id": banks.b}) == []


def _relationship_types(rows: list[dict[str, Any]]) -> set[str]:
    # A path comes back as [node, "TYPE", node, ...].
    return {str(step) for r in rows for step in r["p"][1::2]}


async def test_bank_graph_draws_facts_entities_and_every_kind_of_link(
    graph: Graph, banks: Banks
) -> None:
    a = await run_analytics(graph, "bank_graph", {"bank_id": banks.a, "limit": 10})
    assert _relationship_types(a) == {"MENTIONS", "CO_OCCURS", "TEMPORAL", "SEMANTIC"}
    c = await run_analytics(graph, "bank_graph", {"bank_id": banks.c})
    assert "CAUSED_BY" in _relationship_types(c)


async def test_run_analytics_checks_the_name_and_the_parameters(graph: Graph, banks: Banks) -> None:
    with pytest.raises(InvalidInput, match="unknown analytics query"):
        await run_analytics(graph, "drop_everything", {"bank_id": banks.a})
    with pytest.raises(InvalidInput, match="unknown analytics query"):
        await run_analytics(graph, "../banks/delete", {"bank_id": banks.a})
    with pytest.raises(InvalidInput, match="entity_id is required"):
        await run_analytics(graph, "entity_timeline", {"bank_id": banks.a})
    with pytest.raises(InvalidInput, match="unknown parameter"):
        await run_analytics(graph, "top_entities", {"bank_id": banks.a, "limt": 5})
    with pytest.raises(InvalidInput, match="must be an integer"):
        await run_analytics(graph, "top_entities", {"bank_id": banks.a, "limit": MAX_INT_PARAM + 1})
    with pytest.raises(NotFound):
        await run_analytics(graph, "overview", {"bank_id": "no-such-bank-anywhere"})
    named = await run_analytics(graph, "analytics/top_entities", {"bank_id": banks.a, "limit": "1"})
    assert [r["name"] for r in named] == ["Bo Ng"]


async def test_observation_evidence_draws_the_observation_its_facts_and_their_documents(
    graph: Graph, banks: Banks
) -> None:
    rows = await run_analytics(graph, "observation_evidence", {"bank_id": banks.d})
    kinds = {step for r in rows for step in r["p"][1::2]}
    assert kinds == {"DERIVED_FROM", "FROM", "PART_OF", "MENTIONS", "HAS_REVISION"}
    [listed] = await run_analytics(graph, "observations", {"bank_id": banks.d})
    assert listed["proof_count"] == 2 and listed["revisions"] == 1
