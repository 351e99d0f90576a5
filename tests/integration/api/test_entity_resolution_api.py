"""Entity resolution end to end over real HTTP against the real Neo4j: aliases, labels,
concurrency, ``resolve_entities: false``, normalisation and the guards."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import httpx
import pytest

from tests.support.entity_helpers import (
    each,
    entities_url,
    entity_count,
    entity_of,
    get_json,
    item,
    make_bank,
    memory,
    one,
)
from tests.support.helpers import GraphProbe
from tests.support.namesakes import CHOIR_FACTS, ENGINE_FACTS


@pytest.fixture
def cbank(http: httpx.Client, bank_id: str) -> str:
    return make_bank(http, bank_id)


def names_of(http: httpx.Client, bank: str, entity_id: str) -> dict[str, dict[str, Any]]:
    detail = get_json(http, entities_url(bank, f"/{entity_id}"))
    return {n["name"]: n for n in detail["names"]}


# -- types ---------------------------------------------------------------------------------------


def _untyped(texts: list[str], stamp: str, *, start: int) -> list[dict[str, str]]:
    """Items with no entities supplied, the n-th dated by ``stamp`` (n counted from ``start``)."""
    return [{"content": t, "timestamp": stamp.format(n=n)} for n, t in enumerate(texts, start)]


def test_an_extracted_type_is_the_majority_of_the_mentions_not_the_first(
    http: httpx.Client, bank: str
) -> None:
    """Local extraction guesses a type per sentence; the entity ends with what most say."""
    [first] = one(
        http,
        bank,
        {"content": "Caroline announced record profits.", "timestamp": "2024-07-01T10:00:00Z"},
    )
    caroline = entity_of(http, bank, first, "Caroline")
    # The local model calls her an organisation in this sentence (the case this test is about).
    assert get_json(http, entities_url(bank, f"/{caroline}"))["type"] == "organization"
    later = [
        "I had lunch with Caroline on Friday.",
        "My friend Caroline loves painting.",
        "We visited Caroline at her new house.",
    ]
    ids = each(http, bank, *_untyped(later, "2024-07-0{n}T10:00:00Z", start=2))
    assert {entity_of(http, bank, mid, "Caroline") for mid in ids} == {caroline}
    assert get_json(http, entities_url(bank, f"/{caroline}"))["type"] == "person"


def test_a_mention_without_a_type_stays_with_its_person_when_guesses_outvote_her(
    http: httpx.Client, bank: str
) -> None:
    """A mention the local model gave no type is replayed without one by the settle.

    Read back with the entity's majority type instead, it becomes a firm vote for whatever
    the guesses say that day, conflicts with the person's full name and splits her.
    """
    texts = [
        "Margot Lindqvist opened a pottery studio near the harbour.",
        "Margot fired a new batch of bowls on Tuesday.",
        "Margot sold every mug at the craft fair.",
        "Margot is learning to throw larger vases.",
        "After the fair, Margot went swimming with her brother.",
        "Margot repaired the kiln herself.",
    ]
    ids = each(http, bank, *_untyped(texts, "2024-0{n}-03T10:00:00Z", start=1))
    margot = entity_of(http, bank, ids[0], "Margot Lindqvist")
    assert {entity_of(http, bank, mid, "Margot") for mid in ids[1:]} == {margot}
    # The local model calls her a place in three sentences and gives no type in two: its
    # guesses outvote "person" (the case this test is about).
    assert get_json(http, entities_url(bank, f"/{margot}"))["type"] == "place"


def test_a_supplied_type_is_exact_whatever_extraction_guesses(
    http: httpx.Client, bank: str
) -> None:
    """A type the caller states outranks any number of a local model's guesses."""
    [first] = one(
        http,
        bank,
        item(
            "Caroline announced record profits.",
            ("Caroline", "organization"),
            at="2024-07-01T10:00:00Z",
        ),
    )
    caroline = entity_of(http, bank, first, "Caroline")
    ids = each(
        http,
        bank,
        {"content": "I had lunch with Caroline on Friday.", "timestamp": "2024-07-02T10:00:00Z"},
        {"content": "My friend Caroline loves painting.", "timestamp": "2024-07-03T10:00:00Z"},
    )
    joined = [mid for mid in ids if entity_of(http, bank, mid, "Caroline") == caroline]
    assert joined, "no guessed mention joined the supplied entity: nothing was tested"
    assert get_json(http, entities_url(bank, f"/{caroline}"))["type"] == "organization"


# -- aliases -------------------------------------------------------------------------------------


def test_a_stated_alias_of_a_supplied_entity_is_a_name_that_later_resolves(
    http: httpx.Client, cbank: str
) -> None:
    ids = each(
        http,
        cbank,
        item(
            "Ocean Probe 1 (OP-1) reached 3,000 m off Halifax.",
            ("Ocean Probe 1", "product"),
            at="2024-07-01T00:00:00Z",
        ),
        item("OP-1 surfaced with new samples.", ("OP-1", "product"), at="2024-07-02T00:00:00Z"),
    )
    probe = entity_of(http, cbank, ids[0], "Ocean Probe 1")
    assert entity_of(http, cbank, ids[1], "OP-1") == probe
    names = names_of(http, cbank, probe)
    assert names["OP-1"]["stated"] is True and names["OP-1"]["memory_ids"][0] == ids[0]
    listed = get_json(http, entities_url(cbank), name="op-1")["items"]
    assert [e["id"] for e in listed] == [probe]


def test_a_bracket_that_does_not_abbreviate_the_name_is_no_alias(
    http: httpx.Client, cbank: str
) -> None:
    [fact] = each(
        http,
        cbank,
        item(
            "Meridian Health (Boston) signed.",
            ("Meridian Health", "organization"),
            at="2024-07-01T00:00:00Z",
        ),
    )
    meridian = entity_of(http, cbank, fact, "Meridian Health")
    assert set(names_of(http, cbank, meridian)) == {"Meridian Health"}


def test_local_extraction_states_aliases_that_later_resolve(http: httpx.Client, bank: str) -> None:
    [first] = one(
        http,
        bank,
        {
            "content": "The Ocean Probe 1 (OP-1) launched from Halifax harbour on Monday.",
            "timestamp": "2024-07-01T10:00:00Z",
        },
    )
    [second] = one(
        http,
        bank,
        {
            "content": "Yesterday OP-1 sent its first depth readings back to Halifax.",
            "timestamp": "2024-07-02T10:00:00Z",
        },
    )
    probe = entity_of(http, bank, first, "Ocean Probe 1")
    assert entity_of(http, bank, second, "OP-1") == probe
    assert names_of(http, bank, probe)["OP-1"]["stated"] is True


def test_a_given_name_after_the_full_name_with_shared_context_is_the_same_person(
    http: httpx.Client, cbank: str
) -> None:
    ids = each(
        http,
        cbank,
        item(
            "Sarah Chen presented the Orbit roadmap with Lee Park.",
            "Sarah Chen",
            ("Orbit", "product"),
            "Lee Park",
            at="2024-08-01T09:00:00Z",
        ),
        item(
            "Sarah and Lee Park reviewed the Orbit launch.",
            "Sarah",
            "Lee Park",
            ("Orbit", "product"),
            at="2024-08-02T09:00:00Z",
        ),
    )
    sarah = entity_of(http, cbank, ids[0], "Sarah Chen")
    assert entity_of(http, cbank, ids[1], "Sarah") == sarah
    assert {"Sarah", "Sarah Chen"} <= set(names_of(http, cbank, sarah))


# -- controlled vocabularies ---------------------------------------------------------------------


def test_label_values_match_exactly_and_never_fuzzily(http: httpx.Client, bank_id: str) -> None:
    bank = make_bank(
        http,
        bank_id,
        entity_labels=[
            {"name": "pedagogy", "values": ["scaffolding", "scaffold", "modelling"]},
            {"name": "topic"},  # free text, still exact
        ],
    )
    ids = each(
        http,
        bank,
        item(
            "Scaffolding helped Ana Lima's class.",
            ("scaffolding", "pedagogy"),
            "Ana Lima",
            ("photosynthesis", "topic"),
            at="2024-09-01T09:00:00Z",
        ),
        item(
            "A scaffold for Ana Lima's class.",
            ("scaffold", "pedagogy"),
            "Ana Lima",
            ("photosynthesis process", "topic"),
            at="2024-09-01T10:00:00Z",
        ),
        item(
            "More Scaffolding with Ana Lima.",
            ("Scaffolding", "pedagogy"),
            "Ana Lima",
            ("Photosynthesis!", "topic"),
            at="2024-09-01T11:00:00Z",
        ),
    )
    scaffolding = entity_of(http, bank, ids[0], "scaffolding")
    assert entity_of(http, bank, ids[1], "scaffold") != scaffolding
    assert entity_of(http, bank, ids[2], "Scaffolding") == scaffolding
    topic = entity_of(http, bank, ids[0], "photosynthesis")
    assert entity_of(http, bank, ids[1], "photosynthesis process") != topic
    assert entity_of(http, bank, ids[2], "Photosynthesis!") == topic
    detail = get_json(http, entities_url(bank, f"/{scaffolding}"))
    assert detail["is_label"] is True and detail["type"] == "pedagogy"


def test_a_label_value_outside_its_values_is_400_naming_item_and_entity(
    http: httpx.Client, bank_id: str, graph_probe: GraphProbe
) -> None:
    bank = make_bank(
        http, bank_id, entity_labels=[{"name": "pedagogy", "values": ["scaffolding", "modelling"]}]
    )
    good = item("Fine.", ("scaffolding", "pedagogy"), at="2024-09-01T09:00:00Z")
    bad = item("Typo.", "Ana Lima", ("scafolding", "Pedagogy"), at="2024-09-01T09:00:00Z")
    response = http.post(f"/v1/default/banks/{bank}/memories", json={"items": [good, bad]})
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["extra"]["field"] == "$.items[1].entities[1]"
    assert "scafolding" in body["detail"] and "pedagogy" in body["detail"]
    assert graph_probe.value("MATCH (m:Memory {bank_id: $b}) RETURN count(m) AS n", b=bank) == 0
    two = item(
        "Both.", ("scaffolding", "pedagogy"), ("modelling", "pedagogy"), at="2024-09-01T09:00:00Z"
    )
    response = http.post(f"/v1/default/banks/{bank}/memories", json={"items": [two]})
    assert response.status_code == 400 and "one value per item" in response.text


# -- concurrency ---------------------------------------------------------------------------------


def test_concurrent_retains_of_one_new_name_create_exactly_one_entity(
    base_url: str, cbank: str, graph_probe: GraphProbe
) -> None:
    barrier = threading.Barrier(8)
    results: list[list[str]] = []
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            with httpx.Client(base_url=base_url, timeout=120.0) as client:
                body = item(
                    f"Zephyrine Okonkwo-Bassey filed report {n}.",
                    "Zephyrine Okonkwo-Bassey",
                    at=f"2024-10-01T09:0{n}:00Z",
                )
                barrier.wait()
                response = client.post(
                    f"/v1/default/banks/{cbank}/memories", json={"items": [body]}
                )
                assert response.status_code == 200, response.text
                results.append(response.json()["memory_ids"])
        except BaseException as exc:  # re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 8
    assert entity_count(graph_probe, cbank) == 1
    assert (
        graph_probe.value("MATCH (e:Entity {bank_id: $b}) RETURN e.mention_count AS n", b=cbank)
        == 8
    )


# -- resolve_entities: false ---------------------------------------------------------------------


def test_resolve_entities_false_takes_an_exact_normalised_match_or_creates(
    http: httpx.Client, cbank: str
) -> None:
    [first] = each(
        http,
        cbank,
        item(
            "Sarah Chen joined Orbit with Lee Park.",
            "Sarah Chen",
            ("Orbit", "product"),
            "Lee Park",
            at="2024-08-01T09:00:00Z",
        ),
    )
    sarah = entity_of(http, cbank, first, "Sarah Chen")
    exact, fuzzy = each(
        http,
        cbank,
        item(
            "SARAH  CHEN shipped Orbit.",
            "SARAH  CHEN",
            ("Orbit", "product"),
            at="2024-08-01T10:00:00Z",
            resolve_entities=False,
        ),
        item(
            "Sarah and Lee Park shipped Orbit.",
            "Sarah",
            "Lee Park",
            ("Orbit", "product"),
            at="2024-08-01T11:00:00Z",
            resolve_entities=False,
        ),
    )
    assert entity_of(http, cbank, exact, "SARAH  CHEN") == sarah
    assert entity_of(http, cbank, fuzzy, "Sarah") != sarah  # nothing fuzzy, whatever context


# -- normalisation and guards --------------------------------------------------------------------


@pytest.mark.parametrize(("first", "second"), [("İstanbul", "İstanbul"), ("Istanbul", "ISTANBUL")])
def test_dotted_capital_i_matches_itself_and_case_differences_match(
    http: httpx.Client, cbank: str, graph_probe: GraphProbe, first: str, second: str
) -> None:
    ids = each(
        http,
        cbank,
        item(f"Ayşe flew to {first}.", (first, "place"), at="2024-11-01T09:00:00Z"),
        item(f"Ayşe left {second}.", (second, "place"), at="2024-11-02T09:00:00Z"),
    )
    assert entity_of(http, cbank, ids[0], first) == entity_of(http, cbank, ids[1], second)
    assert entity_count(graph_probe, cbank) == 1


GUARDED = [
    (("Room 101", "place"), ("Room 102", "place")),
    (("UA123", "flight"), ("UA124", "flight")),
    (("Claude", "product"), ("Claude 4", "product")),
    (("John Smith", "person"), ("Jane Smith", "person")),
    (("Iran", None), ("Tigran", None)),
    (("Apple", "organization"), ("apple", "product")),
]


@pytest.mark.parametrize(("first", "second"), GUARDED, ids=lambda p: p[0])
def test_guards_keep_near_misses_apart_even_in_shared_company(
    http: httpx.Client,
    cbank: str,
    first: tuple[str, str | None],
    second: tuple[str, str | None],
) -> None:
    ids = each(
        http,
        cbank,
        item(
            f"{first[0]} came up with Noor Haddad at Helios.",
            first,
            "Noor Haddad",
            ("Helios", "organization"),
            at="2024-12-01T09:00:00Z",
        ),
        item(
            f"{second[0]} came up with Noor Haddad at Helios.",
            second,
            "Noor Haddad",
            ("Helios", "organization"),
            at="2024-12-01T09:05:00Z",
        ),
    )
    assert entity_of(http, cbank, ids[0], first[0]) != entity_of(http, cbank, ids[1], second[0])


def test_the_qualifiers_stated_with_a_name_are_shown_with_the_facts_that_state_them(
    http: httpx.Client, cbank: str
) -> None:
    ids = each(
        http,
        cbank,
        item(
            "Cedar & Vine in Tacoma baked the sourdough.",
            ("Cedar & Vine", "organization"),
            ("Tacoma", "place"),
            at="2027-01-20T09:00:00Z",
        ),
        item(
            "Cedar & Vine in Tacoma doubled the order.",
            ("Cedar & Vine", "organization"),
            ("Tacoma", "place"),
            at="2027-02-20T09:00:00Z",
        ),
        item(
            "Tobias Lindqvist, the landlord, fixed the radiator.",
            "Tobias Lindqvist",
            at="2027-01-21T09:00:00Z",
        ),
    )
    bakery = entity_of(http, cbank, ids[0], "Cedar & Vine")
    assert entity_of(http, cbank, ids[1], "Cedar & Vine") == bakery
    detail = get_json(http, entities_url(cbank, f"/{bakery}"))
    [place] = detail["qualifiers"]
    assert (place["kind"], place["value"], place["said_with"]) == (
        "place",
        "Tacoma",
        "Cedar & Vine",
    )
    assert place["memory_ids"] == [ids[1], ids[0]]
    landlord = get_json(
        http, entities_url(cbank, f"/{entity_of(http, cbank, ids[2], 'Tobias Lindqvist')}")
    )
    assert [(q["kind"], q["value"]) for q in landlord["qualifiers"]] == [("role", "landlord")]
    tacoma = get_json(http, entities_url(cbank, f"/{entity_of(http, cbank, ids[0], 'Tacoma')}"))
    assert tacoma["qualifiers"] == []


def test_two_namesakes_known_only_by_what_their_facts_say_are_two_entities(
    http: httpx.Client, cbank: str
) -> None:
    """Nothing next to the name tells them apart; what each one's facts are about does."""
    texts = [t for pair in zip(CHOIR_FACTS, ENGINE_FACTS, strict=True) for t in pair]
    ids = each(
        http,
        cbank,
        *(item(t, "Wen Harlow", at=f"2027-{1 + n // 4:02d}-{1 + 7 * (n % 4):02d}T09:00:00Z")
          for n, t in enumerate(texts)),
    )  # fmt: skip
    holder = {
        text: entity_of(http, cbank, mid, "Wen Harlow")
        for text, mid in zip(texts, ids, strict=True)
    }
    choir = Counter(holder[t] for t in CHOIR_FACTS).most_common(1)[0]
    engine = Counter(holder[t] for t in ENGINE_FACTS).most_common(1)[0]
    assert choir[0] != engine[0]
    assert choir[1] >= 4 and engine[1] >= 4
    assert not {holder[t] for t in CHOIR_FACTS} & {holder[t] for t in ENGINE_FACTS}
    # The told-apart namesakes show their own facts' qualifiers only, none of the grouping.
    detail = get_json(http, entities_url(cbank, f"/{choir[0]}"))
    assert detail["name"] == "Wen Harlow"
    assert all(q["kind"] != "company" for q in detail["qualifiers"])
    # The parting is put to a person; "same" merges them, and later settles keep that.
    reviews = get_json(http, f"/v1/default/banks/{cbank}/reviews")["items"]
    (review,) = [
        r for r in reviews if {r["entity_a"]["id"], r["entity_b"]["id"]} == {choir[0], engine[0]}
    ]
    assert "told apart by what their facts are about" in review["reason"]
    decided = http.post(
        f"/v1/default/banks/{cbank}/reviews/{review['id']}", json={"decision": "same"}
    )
    assert decided.status_code == 200, decided.text
    each(http, cbank, item(ENGINE_FACTS[0], "Wen Harlow", at="2027-09-01T09:00:00Z"))
    merged = {
        entity_of(http, cbank, mid, "Wen Harlow")
        for text, mid in zip(texts, ids, strict=True)
        if holder[text] in (choir[0], engine[0])
    }
    assert len(merged) == 1


def test_a_sentence_retained_again_and_again_is_one_statement_not_a_namesake(
    http: httpx.Client, cbank: str
) -> None:
    """Copies of one sentence are as alike as facts can be, yet say one thing once.

    Counted one by one, four copies would make a group of their own, far from what the choir
    director's other facts are about, and the settle would part it as a namesake.
    """
    repeated = "Wen Harlow asked me to water the tomatoes while she is away."
    texts = [
        t for pair in zip(CHOIR_FACTS, [repeated] * 4 + [None] * 2, strict=True) for t in pair if t
    ]
    ids = each(
        http,
        cbank,
        *(item(t, "Wen Harlow", at=f"2027-{1 + n // 4:02d}-{1 + 7 * (n % 4):02d}T09:00:00Z")
          for n, t in enumerate(texts)),
    )  # fmt: skip
    assert len({entity_of(http, cbank, mid, "Wen Harlow") for mid in ids}) == 1


def test_a_person_written_about_in_set_sentences_with_other_names_is_one_entity(
    http: httpx.Client, cbank: str
) -> None:
    """Notes an agent writes from a few set sentences, each filled with other names.

    One sentence shape filled with other people, places and projects is how the notes are
    written, not who they are about: embedded, such sentences are as alike as copies, so each
    shape made a "namesake" of its own. What the groups write beside the name (the same
    people, places and organisations) says they are one person's.
    """
    shapes = [
        "Wen Harlow met {person} in {place} to discuss {project}.",
        "Wen Harlow flew to {place} for the {org} offsite.",
        "{org} signed a contract with Wen Harlow for {project}.",
        "Wen Harlow presented {project} to the board of {org}.",
        "{person} has lived in {place} for years and works with Wen Harlow.",
        "Wen Harlow and {person} moved {project} to {place}.",
    ]
    people = ["Ada Brenner", "Tomas Lindgren", "Priya Nair", "Oskar Vell", "Mira Castell"]
    places = ["Tallinn", "Dundee", "Graz", "Kobe"]
    orgs = ["Ferrow Logistics", "Calder Bank", "Norrvik Labs"]
    projects = ["Project Kite", "the Larch audit", "the Ember rollout"]
    items = []
    for n in range(18):
        names = {
            "person": (people[n % len(people)], "person"),
            "place": (places[n % len(places)], "location"),
            "org": (orgs[n % len(orgs)], "organization"),
            "project": (projects[n % len(projects)], "project"),
        }
        shape = shapes[n % len(shapes)]
        text = shape.format(**{k: v[0] for k, v in names.items()})
        written = [v for k, v in names.items() if "{" + k + "}" in shape]
        items.append(
            item(text, "Wen Harlow", *written, at=f"2027-{1 + n // 2:02d}-0{1 + n % 2}T09:00:00Z")
        )
    ids = each(http, cbank, *items)
    assert len({entity_of(http, cbank, mid, "Wen Harlow") for mid in ids}) == 1


def test_a_supplied_person_is_not_parted_by_the_facts_of_her_items_that_do_not_name_her(
    http: httpx.Client, bank: str
) -> None:
    """A caller's entity joins every fact of its item, those about other things too.

    Each note names the choir director in one sentence and tells of a mechanic's work in the
    next. The mechanic's sentences carry her name without writing it; read as her company,
    they would make a second "Wen Harlow", as far from the choir as a namesake.
    """
    notes = [
        f"{choir} {engine.replace('Wen Harlow', 'Piet Oosting')}"
        for choir, engine in zip(CHOIR_FACTS, ENGINE_FACTS, strict=True)
    ]
    ids = each(
        http,
        bank,
        *(item(t, "Wen Harlow", at=f"2027-0{1 + n}-01T09:00:00Z") for n, t in enumerate(notes)),
    )
    assert len(ids) > len(notes)  # each note's sentences are facts of their own
    assert len({entity_of(http, bank, mid, "Wen Harlow") for mid in ids}) == 1


def test_a_bare_name_of_two_namesakes_joins_the_one_its_fact_is_about(
    http: httpx.Client, cbank: str
) -> None:
    """Nothing next to "Oren" says which; what the fact is about does, in either order."""
    pupil = [
        "Oren Amsel, twelve, joined the junior chess club and trains on Wednesday evenings.",
        "Oren Amsel drew his first tournament game of chess against a rated adult.",
    ]
    chef = [
        "Oren Ferrand runs the pastry kitchen of the hotel in Corvo.",
        "Oren Ferrand baked three hundred croissants for the hotel breakfast in Corvo.",
    ]
    lesson = "In Corvo, Oren finally understood rook endgames and won with the black pieces."
    for order, bank in ((1, cbank), (-1, make_bank(http, f"{cbank}-reversed"))):
        texts = [pupil[0], chef[0], pupil[1], chef[1], lesson]
        names = ["Oren Amsel", "Oren Ferrand", "Oren Amsel", "Oren Ferrand", "Oren"]
        stamps = [f"2027-0{1 + n}-01T09:00:00Z" for n in range(5)]
        pairs = list(zip(texts, names, stamps, strict=True))[::order]
        ids = each(http, bank, *(item(t, n, at=s) for t, n, s in pairs))
        by_text = {t: mid for (t, _, _), mid in zip(pairs, ids, strict=True)}
        assert entity_of(http, bank, by_text[lesson], "Oren") == entity_of(
            http, bank, by_text[pupil[0]], "Oren Amsel"
        )
        assert entity_of(http, bank, by_text[chef[0]], "Oren Ferrand") != entity_of(
            http, bank, by_text[pupil[0]], "Oren Amsel"
        )


def test_a_person_and_a_city_named_alike_in_one_fact_keep_their_own_entities(
    http: httpx.Client, cbank: str
) -> None:
    """One fact names the cousin Adelaide and the city of Adelaide by the same surface.

    Each mention stays with the entity the bank knows for its type, the settle behind the
    write included: the cousin's is not moved onto the city for sharing its text.
    """
    ids = each(
        http,
        cbank,
        item(
            "Kwame heard from his cousin Adelaide Mensah in London.",
            "Kwame",
            "Adelaide Mensah",
            ("London", "place"),
            at="2043-01-27T09:00:00Z",
        ),
        item(
            "Adelaide called Kwame from London; she got a job offer in Manchester.",
            "Adelaide",
            "Kwame",
            ("London", "place"),
            ("Manchester", "place"),
            at="2043-06-20T09:00:00Z",
        ),
        item(
            "The user had a talk accepted at the Southern Hydrology Symposium in Adelaide, "
            "Australia, in October.",
            ("Southern Hydrology Symposium", "event"),
            ("Adelaide", "place"),
            ("Australia", "place"),
            at="2043-07-15T09:00:00Z",
        ),
        item(
            "The user flew from Bergen to Adelaide for the Southern Hydrology Symposium.",
            ("Bergen", "place"),
            ("Adelaide", "place"),
            ("Southern Hydrology Symposium", "event"),
            at="2043-10-09T09:00:00Z",
        ),
        item(
            "Adelaide arrived for New Year and asked the user for photos of Adelaide from the "
            "October symposium.",
            ("Adelaide", "person"),
            ("Adelaide", "place"),
            at="2043-12-28T09:00:00Z",
        ),
    )
    cousin = entity_of(http, cbank, ids[0], "Adelaide Mensah")
    city = entity_of(http, cbank, ids[2], "Adelaide")
    assert entity_of(http, cbank, ids[1], "Adelaide") == cousin
    assert entity_of(http, cbank, ids[3], "Adelaide") == city
    assert cousin != city
    both = [m for m in memory(http, cbank, ids[4])["mentions"] if m["mention"] == "Adelaide"]
    assert sorted((m["type"], m["id"]) for m in both) == sorted(
        [("person", cousin), ("place", city)]
    ), both
