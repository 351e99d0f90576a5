import pytest

from app.recall.candidates import QueryEntity
from app.recall.entities import (
    FUZZY_STRENGTH,
    MAX_KEYS,
    best_entities,
    fuzzy_terms,
    name_coverage,
    names_lucene,
    query_name_keys,
)
from app.store.search_keys import bank_key


def test_name_keys_cover_runs_of_one_to_four_words():
    keys = query_name_keys("When did Caroline visit Lake Tahoe?")
    assert keys["caroline"] == "Caroline"
    assert keys["lake tahoe"] == "Lake Tahoe?"
    assert "caroline visit lake tahoe" in keys
    assert "when did caroline visit lake" not in keys  # five words


def test_single_stop_words_are_not_names_but_runs_keep_them():
    keys = query_name_keys("the Bank of England")
    assert "the" not in keys and "of" not in keys
    assert "bank of england" in keys


def test_possessive_is_also_looked_up_without_its_s():
    keys = query_name_keys("Caroline's dog")
    assert "caroline's" in keys and "caroline" in keys


def test_name_keys_are_bounded():
    assert len(query_name_keys(" ".join(f"w{i}" for i in range(1000)))) == MAX_KEYS


def test_fuzzy_terms_are_long_capitalised_words_only():
    assert fuzzy_terms("Did Carolin see Tim at the museum in Zürich?") == ["carolin", "zurich"]
    assert fuzzy_terms("what happened in march with carolin") == []


def test_names_lucene_scopes_the_bank_and_escapes():
    assert names_lucene("b", ["carolin"]) == f"bank_key:{bank_key('b')}^0 AND text:(carolin~1)"
    assert names_lucene("b", []) is None


def test_name_coverage_counts_near_words():
    words = ("did", "carolin", "see", "the", "support", "group")
    assert name_coverage("Caroline", words) == 1.0
    assert name_coverage("LGBTQ support group", words) == pytest.approx(2 / 3)
    assert name_coverage("Oscar", words) == 0.0


def entity(eid: str, strength: float, degree: int = 1) -> QueryEntity:
    return QueryEntity(id=eid, name=eid, degree=degree, matched=eid, strength=strength)


def test_best_entities_keep_the_strongest_match_and_prefer_specific_ones():
    found = [
        entity("a", 0.5),
        entity("a", 1.0),
        entity("hub", 1.0, 900),
        entity("b", FUZZY_STRENGTH),
    ]
    assert [(e.id, e.strength) for e in best_entities(found, 10)] == [
        ("a", 1.0),
        ("hub", 1.0),
        ("b", FUZZY_STRENGTH),
    ]
    assert [e.id for e in best_entities(found, 1)] == ["a"]
