"""Entity repairs over real HTTP: merge, split and revert (exact), the audit trail, errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.entity_helpers import (
    each,
    entities_url,
    entity_of,
    entity_side,
    get_json,
    item,
    make_bank,
    memory,
    merges_url,
    post_json,
)
from tests.support.helpers import GraphProbe


@pytest.fixture
def cbank(http: httpx.Client, bank_id: str) -> str:
    return make_bank(http, bank_id)


def story(http: httpx.Client, bank: str) -> dict[str, Any]:
    """Two entities a resolver kept apart ("Dana Whitfield of Acme" and "Dr. Whitfield of
    Globex", a year apart: the stated companies conflict), each with neighbours; one of the
    doctor's facts is invalidated."""
    ids = each(
        http,
        bank,
        item(
            "Dana Whitfield of Acme runs the Lisbon office with Rui Costa.",
            "Dana Whitfield",
            ("Acme", "organization"),
            "Rui Costa",
            at="2024-01-10T09:00:00Z",
        ),
        item(
            "Dana Whitfield and Rui Costa hired Inês Duarte.",
            "Dana Whitfield",
            "Rui Costa",
            "Inês Duarte",
            at="2024-01-12T09:00:00Z",
        ),
        item(
            "Dana Whitfield signed the Acme lease.",
            "Dana Whitfield",
            ("Acme", "organization"),
            at="2024-01-15T09:00:00Z",
        ),
        item(
            "Dr. Whitfield of Globex presented with Mei Tan.",
            "Dr. Whitfield",
            ("Globex", "organization"),
            "Mei Tan",
            at="2025-06-01T09:00:00Z",
        ),
        item(
            "Dr. Whitfield and Mei Tan published the Globex report.",
            "Dr. Whitfield",
            "Mei Tan",
            ("Globex", "organization"),
            at="2025-06-03T09:00:00Z",
        ),
    )
    dana = entity_of(http, bank, ids[0], "Dana Whitfield")
    doctor = entity_of(http, bank, ids[3], "Dr. Whitfield")
    assert dana != doctor, "the story needs two entities to merge"
    response = http.patch(
        f"/v1/default/banks/{bank}/memories/{ids[4]}",
        json={"state": "invalidated", "reason": "the report was someone else's"},
    )
    assert response.status_code == 200, response.text
    return {"ids": ids, "dana": dana, "doctor": doctor}


def merge(http: httpx.Client, bank: str, gone: str, keep: str, expect: int = 200) -> Any:
    return post_json(
        http, entities_url(bank, f"/{gone}/merge"), {"into": keep, "reason": "same person"}, expect
    )


def revert(http: httpx.Client, bank: str, record: str, expect: int = 200) -> Any:
    return post_json(http, merges_url(bank, f"/{record}/revert"), {"reason": "was wrong"}, expect)


def test_merge_moves_mentions_names_and_co_occurrences_then_revert_restores_them_exactly(
    http: httpx.Client, cbank: str, graph_probe: GraphProbe
) -> None:
    s = story(http, cbank)
    before = entity_side(graph_probe, cbank)

    change = merge(http, cbank, s["doctor"], s["dana"])
    record = change["record"]
    assert record["kind"] == "merge" and record["state"] == "active" and record["by"] == "api"
    assert (record["keep"], record["gone"]) == (s["dana"], s["doctor"])
    assert record["reason"] == "same person"
    [kept] = change["entities"]
    assert kept["id"] == s["dana"]
    assert kept["mention_count"] == 4  # 3 + 1 valid facts; the invalidated one counts nothing
    assert {n["name"] for n in kept["names"]} >= {"Dana Whitfield", "Dr. Whitfield"}
    neighbours = {n["name"]: n["count"] for n in kept["neighbours"]}
    assert neighbours["Mei Tan"] == 1 and neighbours["Rui Costa"] == 2
    # The invalidated fact's archived mention moved too (a restore must find the survivor).
    assert entity_of(http, cbank, s["ids"][4], "Dr. Whitfield") == s["dana"]
    # The facts now show the survivor, with the surface text they used.
    doctor_fact = memory(http, cbank, s["ids"][3])
    assert {(e["id"], e["mention"]) for e in doctor_fact["mentions"]} >= {
        (s["dana"], "Dr. Whitfield")
    }
    # The absorbed name finds the survivor; the absorbed id answers 404 naming it.
    found = get_json(http, entities_url(cbank), name="Dr. Whitfield")
    assert [e["id"] for e in found["items"]] == [s["dana"]]
    gone = get_json(http, entities_url(cbank, f"/{s['doctor']}"), expect=404)
    assert s["dana"] in gone["detail"] and gone["extra"]["merged_into"] == s["dana"]
    # The co-occurrence of the Whitfield pair's neighbours is recomputed, not patched.
    assert entity_side(graph_probe, cbank) != before

    undone = revert(http, cbank, record["id"])
    assert undone["record"]["kind"] == "revert" and undone["record"]["reverts"] == record["id"]
    assert [e["id"] for e in undone["entities"]] == [s["dana"], s["doctor"]]
    assert entity_side(graph_probe, cbank) == before
    # Restoring the invalidated fact brings its mention back to the entity it had.
    restored = http.patch(
        f"/v1/default/banks/{cbank}/memories/{s['ids'][4]}", json={"state": "valid"}
    )
    assert restored.status_code == 200, restored.text
    assert entity_of(http, cbank, s["ids"][4], "Dr. Whitfield") == s["doctor"]
    assert get_json(http, entities_url(cbank, f"/{s['doctor']}"))["mention_count"] == 2

    audit = get_json(http, merges_url(cbank))
    # The story's own retains may have been settled (by: settle) before the curator's merge.
    assert [(r["kind"], r["state"]) for r in audit["items"] if r["by"] == "api"] == [
        ("revert", "active"),
        ("merge", "reverted"),
    ]
    assert audit["items"][1]["reverted_by"] == undone["record"]["id"]
    # A reverted merge is remembered as a decision: resolution must not redo it.
    assert graph_probe.value(
        "MATCH (:Entity {id: $a})-[d:DIFFERENT_FROM]-(:Entity {id: $b}) RETURN count(d) AS n",
        a=s["dana"],
        b=s["doctor"],
    )


def test_reverting_twice_or_a_revert_or_an_unknown_record_is_refused(
    http: httpx.Client, cbank: str
) -> None:
    s = story(http, cbank)
    record = merge(http, cbank, s["doctor"], s["dana"])["record"]
    undone = revert(http, cbank, record["id"])["record"]
    again = revert(http, cbank, record["id"], expect=409)
    assert "already reverted" in again["detail"]
    assert "revert" in revert(http, cbank, undone["id"], expect=400)["detail"]
    revert(http, cbank, "no-such-merge", expect=404)


def test_a_later_merge_of_the_same_entities_must_be_reverted_first(
    http: httpx.Client, cbank: str, graph_probe: GraphProbe
) -> None:
    s = story(http, cbank)
    rui = entity_of(http, cbank, s["ids"][0], "Rui Costa")
    before = entity_side(graph_probe, cbank)
    first = merge(http, cbank, s["doctor"], s["dana"])["record"]
    # Dana (holding the doctor's facts) is folded further into Rui: merges nest.
    second = merge(http, cbank, s["dana"], rui)["record"]
    blocked = revert(http, cbank, first["id"], expect=409)
    assert second["id"] in blocked["detail"]
    assert blocked["extra"]["revert_first"] == [second["id"]]
    revert(http, cbank, second["id"])
    revert(http, cbank, first["id"])
    assert entity_side(graph_probe, cbank) == before


def test_merge_refuses_itself_unknown_foreign_and_merged_away_ids_and_blank_reasons(
    http: httpx.Client, cbank: str, bank_id: str
) -> None:
    s = story(http, cbank)
    dana, doctor = s["dana"], s["doctor"]
    assert "itself" in merge(http, cbank, dana, dana, expect=400)["detail"]
    merge(http, cbank, dana, "no-such-entity", expect=404)
    other = make_bank(http, bank_id + "-other")
    [foreign_fact] = each(
        http, other, item("Ola Berg met Dana.", "Ola Berg", at="2024-01-01T00:00:00Z")
    )
    foreign = entity_of(http, other, foreign_fact, "Ola Berg")
    merge(http, cbank, dana, foreign, expect=404)  # another bank's id is unknown here
    merge(http, other, foreign, dana, expect=404)
    blank = http.post(entities_url(cbank, f"/{doctor}/merge"), json={"into": dana, "reason": " "})
    assert blank.status_code == 400 and "reason" in blank.text
    missing = http.post(entities_url(cbank, f"/{doctor}/merge"), json={"into": dana})
    assert missing.status_code == 400 and "reason" in missing.text
    merge(http, cbank, doctor, dana)
    again = merge(http, cbank, doctor, dana, expect=404)
    assert dana in again["detail"]


def test_labels_merge_only_within_their_vocabulary(http: httpx.Client, bank_id: str) -> None:
    bank = make_bank(
        http,
        bank_id,
        entity_labels=[
            {"name": "pedagogy", "values": ["scaffolding", "modelling"]},
            {"name": "level", "values": ["beginner"]},
        ],
    )
    ids = each(
        http,
        bank,
        item(
            "Scaffolding helps beginners.",
            ("scaffolding", "pedagogy"),
            ("beginner", "level"),
            "Ana Lima",
            at="2024-02-01T00:00:00Z",
        ),
        item(
            "Modelling with Ana Lima.",
            ("modelling", "pedagogy"),
            "Ana Lima",
            at="2024-02-02T00:00:00Z",
        ),
    )
    scaffolding = entity_of(http, bank, ids[0], "scaffolding")
    beginner = entity_of(http, bank, ids[0], "beginner")
    ana = entity_of(http, bank, ids[0], "Ana Lima")
    modelling = entity_of(http, bank, ids[1], "modelling")
    assert "vocabulary" in merge(http, bank, scaffolding, beginner, expect=400)["detail"]
    assert "vocabulary" in merge(http, bank, ana, scaffolding, expect=400)["detail"]
    merge(http, bank, modelling, scaffolding)  # two values of one vocabulary: a curator's call


def test_split_moves_the_chosen_facts_to_a_new_entity_then_revert_restores_exactly(
    http: httpx.Client, cbank: str, graph_probe: GraphProbe
) -> None:
    # Two people called Alex Kim, folded into one entity (same full name, days apart).
    ids = each(
        http,
        cbank,
        item(
            "Alex Kim reviewed the Acme budget.",
            "Alex Kim",
            ("Acme", "organization"),
            at="2024-03-01T09:00:00Z",
        ),
        item(
            "Alex Kim shipped the Acme release with Bo Ng.",
            "Alex Kim",
            ("Acme", "organization"),
            "Bo Ng",
            at="2024-03-02T09:00:00Z",
        ),
        item(
            "Alex Kim led the Globex kickoff with Cy Ruiz.",
            "Alex Kim",
            ("Globex", "organization"),
            "Cy Ruiz",
            at="2024-03-03T09:00:00Z",
        ),
        item(
            "Alex and Cy Ruiz closed the Globex deal.",
            "Alex",
            "Cy Ruiz",
            ("Globex", "organization"),
            at="2024-03-04T09:00:00Z",
        ),
    )
    alex = entity_of(http, cbank, ids[0], "Alex Kim")
    folded = {entity_of(http, cbank, m, "Alex Kim") for m in ids[1:3]}
    assert folded | {entity_of(http, cbank, ids[3], "Alex")} == {alex}, (
        "the story needs one entity that folded two people"
    )
    before = entity_side(graph_probe, cbank)

    bad = post_json(
        http,
        entities_url(cbank, f"/{alex}/split"),
        {"memory_ids": [ids[2], "not-a-fact"], "reason": "two people"},
        expect=400,
    )
    assert "not-a-fact" in bad["detail"] and bad["extra"]["memory_ids"] == ["not-a-fact"]
    everything = post_json(
        http, entities_url(cbank, f"/{alex}/split"), {"memory_ids": ids, "reason": "x"}, expect=400
    )
    assert "nothing would remain" in everything["detail"]

    change = post_json(
        http,
        entities_url(cbank, f"/{alex}/split"),
        {"memory_ids": [ids[2], ids[3]], "name": "Alex Moreno", "reason": "two people"},
        expect=201,
    )
    record = change["record"]
    assert record["kind"] == "split" and record["source"] == alex
    assert sorted(record["memory_ids"]) == sorted(ids[2:])
    source, created = change["entities"]
    assert created["name"] == "Alex Moreno" and created["mention_count"] == 2
    assert source["mention_count"] == 2
    created_names = {n["name"]: n for n in created["names"]}
    assert created_names["Alex Kim"]["memory_ids"] == [ids[2]]  # copied, with its own facts
    assert created_names["Alex"]["memory_ids"] == [ids[3]]  # made only there: moved
    assert created_names["Alex Moreno"]["source"] == "curator"
    assert created_names["Alex Moreno"]["stated"] is True
    assert created["names"][0]["name"] == "Alex Moreno"  # the canonical name first
    source_names = {n["name"]: n for n in source["names"]}
    assert set(source_names) == {"Alex Kim"}
    assert source_names["Alex Kim"]["memory_ids"] == [ids[0], ids[1]]  # trimmed
    assert {n["name"] for n in created["neighbours"]} == {"Cy Ruiz", "Globex"}
    assert {n["name"] for n in source["neighbours"]} == {"Acme", "Bo Ng"}
    assert entity_of(http, cbank, ids[3], "Alex") == created["id"]
    assert [e["id"] for e in get_json(http, entities_url(cbank), name="Alex Moreno")["items"]] == [
        created["id"]
    ]

    undone = revert(http, cbank, record["id"])
    assert [e["id"] for e in undone["entities"]] == [alex]
    assert entity_side(graph_probe, cbank) == before
    get_json(http, entities_url(cbank, f"/{created['id']}"), expect=404)


def test_a_split_entity_mentioned_since_cannot_be_reverted(http: httpx.Client, cbank: str) -> None:
    ids = each(
        http,
        cbank,
        item("Sam Reyes met Io at Acme.", "Sam Reyes", "Io", at="2024-04-01T00:00:00Z"),
        item("Sam Reyes met Io again.", "Sam Reyes", "Io", at="2024-04-02T00:00:00Z"),
    )
    sam = entity_of(http, cbank, ids[0], "Sam Reyes")
    change = post_json(
        http,
        entities_url(cbank, f"/{sam}/split"),
        {"memory_ids": [ids[1]], "reason": "other Sam"},
        expect=201,
    )
    created = change["entities"][1]["id"]
    # A curator also merges the new entity elsewhere: the split is blocked by that merge.
    io = entity_of(http, cbank, ids[0], "Io")
    later = merge(http, cbank, created, io)["record"]
    assert later["id"] in revert(http, cbank, change["record"]["id"], expect=409)["detail"]


def test_a_merge_and_its_revert_leave_each_entity_with_the_type_most_of_its_mentions_give(
    http: httpx.Client, cbank: str
) -> None:
    ids = each(
        http,
        cbank,
        item(
            "Juniper opened a second office.",
            ("Juniper", "organization"),
            at="2024-05-01T09:00:00Z",
        ),
        item(
            "Juniper hired two engineers.", ("Juniper", "organization"), at="2024-05-02T09:00:00Z"
        ),
        item("Juniper waved at the team.", ("Juniper", "person"), at="2024-05-03T09:00:00Z"),
    )
    company = entity_of(http, cbank, ids[0], "Juniper")
    person = entity_of(http, cbank, ids[2], "Juniper")
    assert company != person, "the story needs two entities: the stated types conflict"

    # The person absorbs two facts that call Juniper an organisation: two votes to one.
    change = merge(http, cbank, company, person)
    [kept] = change["entities"]
    assert (kept["id"], kept["type"]) == (person, "organization")

    undone = revert(http, cbank, change["record"]["id"])
    assert {e["id"]: e["type"] for e in undone["entities"]} == {
        person: "person",
        company: "organization",
    }
