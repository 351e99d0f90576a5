"""Topic words: what a fact says besides its names, as evidence between namesakes."""

from __future__ import annotations

from app.resolve.batch import resolve_one
from app.resolve.memory_bank import MemoryBank
from app.resolve.scoring import DEFAULT_POLICY
from app.resolve.topics import support, title_word, topic_words
from app.resolve.working_set import WorkingSet
from tests.unit.resolve.test_settle import fact, partition


def test_topic_words_are_the_lower_case_content_words_outside_the_names() -> None:
    words = topic_words(
        "Daniel Osei intubated the patient on Ward 12 within minutes.", ["Daniel Osei", "Ward 12"]
    )
    assert words == {"intubated", "patient"}


def test_two_shared_topic_words_are_full_context_and_one_is_part_of_it() -> None:
    one, shared = support({"patient", "coffee"}, {"patient", "kiln"}, DEFAULT_POLICY)
    two, _ = support({"patient", "theatre", "coffee"}, {"patient", "theatre"}, DEFAULT_POLICY)
    none, nothing = support({"coffee"}, {"kiln"}, DEFAULT_POLICY)
    assert shared == ("patient",)
    assert (none, nothing) == (0.0, ())
    assert 0 < one < 1.0 == two


def test_what_a_plain_mention_is_about_tells_two_namesakes_apart() -> None:
    facts = [
        fact(
            1,
            "Daniel Osei, the anaesthetist, intubated a patient in theatre.",
            ("Daniel Osei", "person"),
        ),
        fact(
            2,
            "Daniel Osei, the potter, glazed a platter at the studio.",
            ("Daniel Osei", "person"),
        ),
        fact(30, "Daniel Osei's platter cracked in the kiln.", ("Daniel Osei", "person")),
        fact(31, "Daniel Osei sang at the pub quiz.", ("Daniel Osei", "person")),
    ]
    for order in (facts, facts[::-1]):
        bank = MemoryBank()
        for f in order:
            bank.retain(f)
        identities = partition(bank)
        assert frozenset({"m002:Daniel Osei", "m030:Daniel Osei"}) in identities
        # Nothing it says is said of either: no guess.
        assert frozenset({"m031:Daniel Osei"}) in identities


def test_numbers_and_ordinals_say_how_many_not_what_about() -> None:
    words = topic_words("Bo asked for a second van; half the hampers went in it.", ["Bo"])
    assert words == {"hamper"}


def test_times_say_when_not_what_about() -> None:
    words = topic_words("Bo fished all weekend, two hours a night, every summer.", ["Bo"])
    assert words == {"fished"}


def test_a_title_says_what_its_person_is_and_nothing_of_another() -> None:
    words = topic_words("Coach Varga moved the drills to Friday.", ["Coach Varga", "Friday"])
    assert words == {"moved", "drill"}
    assert title_word("Coach Varga") == "coach"
    assert title_word("Varga") is None
    assert title_word("Dr. Varga") is None  # too short to say what someone does
    ws = WorkingSet()
    ws.read_topics = True  # as in a settle
    resolve_one(
        ws,
        fact(
            1,
            "Captain Lind thanked her brother, Ole Lind, for the new jetty.",
            ("Captain Lind", "person"),
            ("Ole Lind", "person"),
        ),
    )
    topics = {sorted(e.names)[0]: e.topics for e in ws.entities.values()}
    assert topics["captain lind"] == {"thanked", "brother", "jetty", "captain"}
    assert topics["ole lind"] == {"thanked", "brother", "jetty"}


def test_an_initialism_no_mention_claims_is_a_topic_word() -> None:
    words = topic_words("Dr. Varga led the ICU ward round with Ana.", ["Dr. Varga", "Ana"])
    assert words == {"icu", "ward", "round"}
