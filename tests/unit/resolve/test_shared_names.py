"""Names the text says are shared (``app.resolve.shared_names``)."""

from __future__ import annotations

from app.resolve.shared_names import shared_names


def said(content: str, *mentions: tuple[str, str]) -> set[str]:
    found = shared_names(content, [m[0] for m in mentions], [m[1] for m in mentions])
    return {mentions[i][0] for i in found}


def test_a_name_said_to_be_another_ones_is_shared() -> None:
    assert said(
        "Lena told Oskar Brandt that a different Oskar Brandt repairs clocks on Mill Lane.",
        ("Lena", "person"),
        ("Oskar Brandt", "person"),
        ("Oskar Brandt", "person"),
        ("Mill Lane", "place"),
    ) == {"Oskar Brandt"}
    assert said(
        "The new goalkeeper is also called Pia Holm, and she is nineteen.",
        ("Pia Holm", "person"),
    ) == {"Pia Holm"}
    assert said(
        "The dentist was called Pia Holm, same as our goalkeeper.",
        ("Pia Holm", "person"),
    ) == {"Pia Holm"}


def test_a_cue_that_opens_its_sentence_points_to_the_name_before() -> None:
    assert said(
        "Dinner at Café Lumen by the pier in Visby. Same name as the one at home, no relation.",
        ("Café Lumen", "organization"),
        ("Visby", "place"),
    ) == {"Café Lumen"}


def test_a_sentence_that_says_it_of_him_points_to_the_name_before() -> None:
    assert said(
        "Tomas Berg won the club trophy. He shares his full name with the baker in Hove.",
        ("Tomas Berg", "person"),
        ("Hove", "place"),
    ) == {"Tomas Berg"}


def test_the_name_nearest_the_cue_is_the_one_said_to_be_shared() -> None:
    assert said(
        "Ruth Amsel works at Tern Books in Ely, a shop of the same name as the one in York.",
        ("Ruth Amsel", "person"),
        ("Tern Books", "organization"),
        ("Ely", "place"),
        ("York", "place"),
    ) == {"Tern Books"}


def test_no_relation_a_namesake_city_or_a_given_name_said_twice_say_nothing_shared() -> None:
    # Said of a shared surname, not of a shared full name.
    assert (
        said("Ida Mahler joined the choir; no relation to anyone I know.", ("Ida Mahler", "person"))
        == set()
    )
    assert (
        said(
            "Florence laughed when Ivo said he had seen her namesake city.",
            ("Florence", "person"),
            ("Ivo", "person"),
        )
        == set()
    )
    assert (
        said(
            "Chisel told Anselm the footings were too shallow; Anselm agreed to dig again.",
            ("Chisel", "person"),
            ("Anselm", "person"),
            ("Anselm", "person"),
        )
        == set()
    )


def test_a_persons_full_name_written_twice_is_shared_however_often_it_is_listed() -> None:
    twice = (
        "Odd day: Tove Lind rang about the boiler, and an hour later Tove Lind rang about choir."
    )
    assert said(twice, ("Tove Lind", "person")) == {"Tove Lind"}
    assert said(twice, ("Tove Lind", "person"), ("Tove Lind", "person")) == {"Tove Lind"}
    # Listed twice but written once is one mention of one name.
    once = "Tove Lind rang about the boiler."
    assert said(once, ("Tove Lind", "person"), ("Tove Lind", "person")) == set()
    # A place or a product written twice is one thing written twice.
    assert (
        said("Lake Ova froze early; skating on Lake Ova by December.", ("Lake Ova", "place"))
        == set()
    )
