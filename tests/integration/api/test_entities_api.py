"""Entities and reviews over real HTTP: listing and filters, detail, graph, review decisions."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.entity_helpers import (
    each,
    entities_url,
    entity_of,
    get_json,
    item,
    make_bank,
    merges_url,
    post_json,
    reviews_url,
)
from tests.support.helpers import GraphProbe


@pytest.fixture
def cbank(http: httpx.Client, bank_id: str) -> str:
    return make_bank(http, bank_id)


def office(http: httpx.Client, bank: str) -> list[str]:
    return each(
        http,
        bank,
        item(
            "Priya Raman opened the Northwind Labs office with Tom Ueda.",
            "Priya Raman",
            ("Northwind Labs", "organization"),
            "Tom Ueda",
            at="2024-06-01T09:00:00Z",
        ),
        item(
            "Priya Raman and Tom Ueda hired Lena Vogt for Northwind Labs.",
            "Priya Raman",
            "Tom Ueda",
            "Lena Vogt",
            ("Northwind Labs", "organization"),
            at="2024-06-03T09:00:00Z",
        ),
        item(
            "Priya Raman (PR) signed the lease.",
            "Priya Raman",
            ("Northwind Labs", "organization"),
            at="2024-06-05T09:00:00Z",
        ),
    )


def test_list_is_most_mentioned_first_with_filters_by_any_name_and_type(
    http: httpx.Client, cbank: str
) -> None:
    ids = office(http, cbank)
    page = get_json(http, entities_url(cbank))
    assert page["total"] == 4
    counts = [(e["name"], e["mention_count"]) for e in page["items"]]
    assert counts[:2] == [("Northwind Labs", 3), ("Priya Raman", 3)]
    assert counts[2:] == [("Tom Ueda", 2), ("Lena Vogt", 1)]
    assert all(e["first_seen"] and e["last_seen"] for e in page["items"])

    second = get_json(http, entities_url(cbank), limit=2, offset=2)
    assert [e["name"] for e in second["items"]] == ["Tom Ueda", "Lena Vogt"]
    assert second["total"] == 4

    priya = entity_of(http, cbank, ids[0], "Priya Raman")

    def named(name: str, **params: Any) -> list[str]:
        return [e["id"] for e in get_json(http, entities_url(cbank), name=name, **params)["items"]]

    assert named("priya raman") == [priya]  # normalised exact name
    assert named("PR") == [priya]  # a stated alias ("Priya Raman (PR)") is a name
    assert named("Raman") == [priya]  # one word of a name
    assert named("Pri") == [priya]  # a prefix of the last word
    assert named("nobody at all") == []
    assert [
        e["name"] for e in get_json(http, entities_url(cbank), type="ORGANIZATION")["items"]
    ] == ["Northwind Labs"]
    assert http.get(entities_url(cbank), params={"name": "!!!"}).status_code == 400


def test_detail_shows_names_with_provenance_neighbours_and_open_reviews(
    http: httpx.Client, cbank: str
) -> None:
    ids = office(http, cbank)
    priya = entity_of(http, cbank, ids[0], "Priya Raman")
    detail = get_json(http, entities_url(cbank, f"/{priya}"))
    assert detail["name"] == "Priya Raman" and detail["type"] == "person"
    assert detail["mention_count"] == 3
    assert detail["first_seen"].startswith("2024-06-01")
    assert detail["last_seen"].startswith("2024-06-05")
    names = {n["name"]: n for n in detail["names"]}
    assert detail["names"][0]["name"] == "Priya Raman"
    assert names["Priya Raman"]["memory_ids"] == ids
    assert names["Priya Raman"]["source"] == "mention"
    assert names["Priya Raman"]["first_seen_at"].startswith("2024-06-01")
    assert names["PR"]["stated"] is True and names["PR"]["memory_ids"] == [ids[2]]
    assert [(n["name"], n["count"]) for n in detail["neighbours"]] == [
        ("Northwind Labs", 3),
        ("Tom Ueda", 2),
        ("Lena Vogt", 1),
    ]
    assert detail["open_reviews"] == 0
    one = get_json(http, entities_url(cbank, f"/{priya}"), neighbours=1)
    assert [n["name"] for n in one["neighbours"]] == ["Northwind Labs"]


def test_graph_is_bounded_by_nodes_and_edge_counts(http: httpx.Client, cbank: str) -> None:
    office(http, cbank)
    graph = get_json(http, entities_url(cbank, "/graph"))
    assert len(graph["nodes"]) == 4 and len(graph["edges"]) == 6
    names = {n["id"]: n["name"] for n in graph["nodes"]}
    strong = get_json(http, entities_url(cbank, "/graph"), min_count=2)
    assert {frozenset((names[e["source"]], names[e["target"]])) for e in strong["edges"]} == {
        frozenset(("Priya Raman", "Northwind Labs")),
        frozenset(("Priya Raman", "Tom Ueda")),
        frozenset(("Tom Ueda", "Northwind Labs")),
    }
    assert all(e["count"] >= 2 for e in strong["edges"])
    top = get_json(http, entities_url(cbank, "/graph"), limit=2)
    assert {n["name"] for n in top["nodes"]} == {"Priya Raman", "Northwind Labs"}
    assert [e["count"] for e in top["edges"]] == [3]
    assert http.get(entities_url(cbank, "/graph"), params={"limit": 501}).status_code == 400


def test_every_id_is_scoped_to_its_bank(http: httpx.Client, cbank: str, bank_id: str) -> None:
    ids = office(http, cbank)
    priya = entity_of(http, cbank, ids[0], "Priya Raman")
    other = make_bank(http, bank_id + "-b")
    get_json(http, entities_url(other, f"/{priya}"), expect=404)
    assert get_json(http, entities_url(other))["total"] == 0
    assert get_json(http, entities_url(other), name="Priya Raman")["items"] == []
    get_json(http, entities_url("no-such-bank"), expect=404)
    get_json(http, entities_url("no-such-bank", "/graph"), expect=404)
    get_json(http, reviews_url("no-such-bank"), expect=404)
    get_json(http, merges_url("no-such-bank"), expect=404)
    get_json(http, entities_url(cbank, "/no-such-entity"), expect=404)


# -- reviews -------------------------------------------------------------------------------------


def namesakes(http: httpx.Client, bank: str) -> dict[str, str]:
    """Alex Kim (Acme, two facts) and Alex Moreno (Globex), then a bare "Alex" with no context:
    a namesake tie, so a new entity and a review against each rival."""
    ids = each(
        http,
        bank,
        item(
            "Alex Kim planned the Acme sprint with Bo Ng.",
            "Alex Kim",
            ("Acme", "organization"),
            "Bo Ng",
            at="2024-05-01T09:00:00Z",
        ),
        item(
            "Alex Kim demoed the Acme app.",
            "Alex Kim",
            ("Acme", "organization"),
            at="2024-05-01T09:30:00Z",
        ),
        item(
            "Alex Moreno audited Globex with Cy Ruiz.",
            "Alex Moreno",
            ("Globex", "organization"),
            "Cy Ruiz",
            at="2024-05-01T10:00:00Z",
        ),
        item("Alex called about the invoice.", "Alex", at="2024-05-01T11:00:00Z"),
    )
    return {
        "kim": entity_of(http, bank, ids[0], "Alex Kim"),
        "moreno": entity_of(http, bank, ids[2], "Alex Moreno"),
        "alex": entity_of(http, bank, ids[3], "Alex"),
    }


def review_between(page: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    found = [r for r in page["items"] if {r["entity_a"]["id"], r["entity_b"]["id"]} == {a, b}]
    assert len(found) == 1, page
    return found[0]


def test_a_namesake_tie_keeps_apart_and_files_reviews_with_evidence_on_both_sides(
    http: httpx.Client, cbank: str
) -> None:
    people = namesakes(http, cbank)
    assert len(set(people.values())) == 3  # two Alexes with disjoint company stay two
    page = get_json(http, reviews_url(cbank))
    assert page["total"] == 2
    review = review_between(page, people["alex"], people["kim"])
    assert review["status"] == "open" and "namesake" in review["reason"]
    kim = review["entity_a"] if review["entity_a"]["id"] == people["kim"] else review["entity_b"]
    assert kim["name"] == "Alex Kim" and kim["mention_count"] == 2
    assert {n["name"] for n in kim["neighbours"]} == {"Acme", "Bo Ng"}
    assert "Alex Kim" in kim["names"]
    # The evidence weighs both rivals of the tie, each with its name match and signals.
    assert {e["entity_id"] for e in review["evidence"]} == {people["kim"], people["moreno"]}
    assert all({"name", "context", "recency", "score"} <= set(e) for e in review["evidence"])
    assert get_json(http, entities_url(cbank, f"/{people['alex']}"))["open_reviews"] == 2
    assert get_json(http, reviews_url(cbank), status="different")["total"] == 0
    assert get_json(http, reviews_url(cbank), status="all")["total"] == 2


def test_deciding_same_merges_the_smaller_into_the_larger_once(
    http: httpx.Client, cbank: str, graph_probe: GraphProbe
) -> None:
    people = namesakes(http, cbank)
    review = review_between(get_json(http, reviews_url(cbank)), people["alex"], people["kim"])
    outcome = post_json(
        http, reviews_url(cbank, f"/{review['id']}"), {"decision": "same", "reason": "it was Kim"}
    )
    assert outcome["review"]["status"] == "same"
    assert outcome["review"]["decision_reason"] == "it was Kim"
    merge = outcome["merge"]
    assert (merge["keep"], merge["gone"]) == (people["kim"], people["alex"])
    assert merge["review_id"] == review["id"] and merge["by"] == "review"
    assert merge["evidence"]  # the review's evidence travels into the audit record
    assert outcome["review"]["merge_id"] == merge["id"]
    kim = get_json(http, entities_url(cbank, f"/{people['kim']}"))
    assert kim["mention_count"] == 3 and {"Alex", "Alex Kim"} <= {n["name"] for n in kim["names"]}
    again = post_json(
        http, reviews_url(cbank, f"/{review['id']}"), {"decision": "different"}, expect=409
    )
    assert "already decided" in again["detail"]
    # The other review of the tie now shows its merged-away side and where it went.
    other = review_between(get_json(http, reviews_url(cbank)), people["alex"], people["moreno"])
    alex_side = (
        other["entity_a"] if other["entity_a"]["id"] == people["alex"] else other["entity_b"]
    )
    assert alex_side["merged_into"] == people["kim"]
    assert get_json(http, merges_url(cbank))["items"][0]["id"] == merge["id"]
    post_json(http, reviews_url(cbank, "/no-such-review"), {"decision": "same"}, expect=404)
    bad = http.post(reviews_url(cbank, f"/{other['id']}"), json={"decision": "maybe"})
    assert bad.status_code == 400


def test_deciding_different_is_never_asked_again_even_after_more_evidence(
    http: httpx.Client, cbank: str, graph_probe: GraphProbe
) -> None:
    people = namesakes(http, cbank)
    page = get_json(http, reviews_url(cbank))
    for a, b in ((people["alex"], people["kim"]), (people["alex"], people["moreno"])):
        review = review_between(page, a, b)
        outcome = post_json(http, reviews_url(cbank, f"/{review['id']}"), {"decision": "different"})
        assert outcome["review"]["status"] == "different" and outcome["merge"] is None
    # More evidence: the bare Alex now shares Kim's company and colleague, repeatedly.
    each(
        http,
        cbank,
        *(
            item(
                f"Alex met Bo Ng at Acme ({n}).",
                "Alex",
                ("Acme", "organization"),
                "Bo Ng",
                at=f"2024-05-0{n + 1}T12:00:00Z",
            )
            for n in range(1, 4)
        ),
    )
    assert (
        graph_probe.value(
            "MATCH (e:Entity) WHERE e.id IN $ids RETURN count(e) AS n", ids=list(people.values())
        )
        == 3
    )
    reviews = get_json(http, reviews_url(cbank), status="all")["items"]
    pair = [
        r
        for r in reviews
        if {r["entity_a"]["id"], r["entity_b"]["id"]} == {people["alex"], people["kim"]}
    ]
    assert [r["status"] for r in pair] == ["different"]
    assert (
        graph_probe.value(
            "MATCH (:Entity {id: $a})-[d:DIFFERENT_FROM]-(:Entity {id: $b}) RETURN count(d) AS n",
            a=people["alex"],
            b=people["kim"],
        )
        == 1
    )


def test_a_hubs_detail_is_the_same_whether_its_facts_are_scanned_or_sorted(
    http: httpx.Client, cbank: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub's latest facts (the qualifiers' source) are read in index order; the detail is the
    one sorting its facts gives."""
    ids = office(http, cbank)
    priya = entity_of(http, cbank, ids[0], "Priya Raman")
    sorted_detail = get_json(http, entities_url(cbank, f"/{priya}"))
    monkeypatch.setattr("app.curate.entities.HUB_MENTIONS", 0)  # every entity is a hub
    assert get_json(http, entities_url(cbank, f"/{priya}")) == sorted_detail
