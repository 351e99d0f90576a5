"""Reading claims: what makes two facts different claims, and what a paraphrase may change.

Tokens are written by hand (as the tagger would give them), so these tests need no model.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from app.consolidate.claims import Claim, NamedEntity, Token, conflict, read_claim

# word, coarse and fine part of speech, lemma: what spaCy's English tagger says of them.
_TAGGED = """
has VERB VBZ have
owns VERB VBZ own
is AUX VBZ be
the DET DT the
a DET DT a
an DET DT an
owner NOUN NN owner
of ADP IN of
dogs NOUN NNS dog
dog NOUN NN dog
two NUM CD two
three NUM CD three
2 NUM CD 2
not PART RB not
allergic ADJ JJ allergic
to ADP IN to
peanuts NOUN NNS peanut
allergy NOUN NN allergy
peanut NOUN NN peanut
mentors VERB VBZ mentor
mentored VERB VBN mentor
by ADP IN by
moved VERB VBD move
relocated VERB VBD relocate
in ADP IN in
keeps VERB VBZ keep
her PRON PRP$ her
passport NOUN NN passport
desk NOUN NN desk
drawer NOUN NN drawer
hotel NOUN NN hotel
safe NOUN NN safe
never ADV RB never
eats VERB VBZ eat
does AUX VBZ do
n't PART RB not
eat VERB VB eat
meat NOUN NN meat
cannot AUX MD can
digest VERB VB digest
lactose NOUN NN lactose
intolerant ADJ JJ intolerant
and CCONJ CC and
met VERB VBD meet
every DET DT every
saturday PROPN NNP Saturday
volunteers VERB VBZ volunteer
at ADP IN at
food NOUN NN food
bank NOUN NN bank
visited VERB VBD visit
yesterday NOUN NN yesterday
on ADP IN on
march PROPN NNP March
10 NUM CD 10
12 NUM CD 12
2024 NUM CD 2024
sister NOUN NN sister
car NOUN NN car
drives VERB VBZ drive
blue ADJ JJ blue
's PART POS 's
one NUM CD one
more ADJ JJR more
named VERB VBN name
got VERB VBD get
"""
POS = {
    w: (pos, tag, lemma)
    for w, pos, tag, lemma in (line.split() for line in _TAGGED.strip().splitlines())
}
NOW = datetime(2024, 3, 11, 20, 0, tzinfo=UTC)


def claim(text: str, *entities: str, at: datetime = NOW) -> Claim:
    """A claim read from ``text`` whose entities are the names given (proper nouns)."""
    tokens = []
    for match in re.finditer(r"n't|'s|\w+", text):
        word = match.group()
        if word[0].isupper() and word.lower() not in POS:
            pos, tag, lemma = "PROPN", "NNP", word
        else:
            pos, tag, lemma = POS[word.lower()]
        tokens.append(Token(word, lemma, pos, tag, match.start()))
    return read_claim(text, tokens, [NamedEntity(e, e) for e in entities], at)


def test_restatements_of_one_claim_conflict_in_nothing() -> None:
    for a, b in [
        ("Ana has two dogs.", "Ana owns 2 dogs."),
        ("Ana has two dogs.", "Ana is the owner of two dogs."),
        ("Ben is allergic to peanuts.", "Ben has a peanut allergy."),
        ("Ana moved to Lisbon.", "Ana relocated to Lisbon."),
        ("Felix never eats meat.", "Felix does n't eat meat."),
    ]:
        names = [w for w in ("Ana", "Ben", "Lisbon", "Felix") if w in a]
        assert conflict(claim(a, *names), claim(b, *names)) is None, (a, b)


@pytest.mark.parametrize(
    ("a", "b", "names", "kind"),
    [
        ("Ana has two dogs.", "Ana has three dogs.", ["Ana"], "number"),
        ("Ana has two dogs.", "Ana got one more dog named Rex.", ["Ana"], "number"),
        ("Ben is allergic to peanuts.", "Ben is not allergic to peanuts.", ["Ben"], "negation"),
        ("Felix eats meat.", "Felix never eats meat.", ["Felix"], "negation"),
        ("Ana moved to Lisbon.", "Ana moved to Madrid.", ["Ana"], "entity"),
        ("Farid mentors Grace.", "Grace mentors Farid.", ["Farid", "Grace"], "direction"),
        (
            "Hana keeps her passport in the desk drawer.",
            "Hana keeps her passport in the hotel safe.",
            ["Hana"],
            "thing",
        ),
    ],
)
def test_a_single_difference_makes_two_claims(a: str, b: str, names: list[str], kind: str) -> None:
    extra = {"Madrid", "Lisbon", "Rex"}
    ea = [*names, *(w for w in extra if w in a)]
    eb = [*names, *(w for w in extra if w in b)]
    assert conflict(claim(a, *ea), claim(b, *eb)) == kind


def test_two_negations_of_different_things_are_different_claims() -> None:
    a = claim("Bruno cannot digest lactose.", "Bruno")
    b = claim("Bruno is not lactose intolerant.", "Bruno")
    assert conflict(a, b) == "negation"


def test_the_agent_of_a_passive_is_its_subject() -> None:
    active = claim("Farid mentors Grace.", "Farid", "Grace")
    passive = claim("Grace is mentored by Farid.", "Grace", "Farid")
    reversed_ = claim("Grace mentors Farid.", "Grace", "Farid")
    assert active.subjects == passive.subjects == {"farid"}
    assert conflict(active, passive) is None
    assert conflict(passive, reversed_) == "direction"


def test_entities_joined_by_and_share_the_subject() -> None:
    a = claim("Ana and Ben met in Lisbon.", "Ana", "Ben", "Lisbon")
    b = claim("Ben and Ana met in Lisbon.", "Ben", "Ana", "Lisbon")
    assert a.subjects == b.subjects == {"ana", "ben"}
    assert conflict(a, b) is None


def test_a_place_governed_by_a_preposition_is_not_the_subject() -> None:
    fronted = claim("In Lisbon Ana met Ben.", "Lisbon", "Ana", "Ben")
    assert fronted.subjects == {"ana"}


def test_times_compare_as_the_days_they_resolve_to() -> None:
    said_yesterday = claim("Carla visited her sister yesterday.", "Carla")
    said_dated = claim(
        "Carla visited her sister on March 10 2024.", "Carla", at=datetime(2024, 4, 2, tzinfo=UTC)
    )
    other_day = claim("Carla visited her sister on March 12 2024.", "Carla")
    assert conflict(said_yesterday, said_dated) is None
    assert conflict(said_dated, other_day) == "date"
    # Numbers inside a time expression are the date's, not counts.
    assert said_dated.numbers == frozenset()


def test_a_recurring_time_compares_by_its_words_not_a_day() -> None:
    a = claim("Omar volunteers at the food bank every Saturday.", "Omar")
    b = claim(
        "Every Saturday Omar volunteers at the food bank.",
        "Omar",
        at=datetime(2024, 6, 1, tzinfo=UTC),
    )
    assert conflict(a, b) is None


def test_a_thing_named_on_one_side_only_is_a_more_complete_wording() -> None:
    a = claim("Jonas drives a blue Volvo.", "Jonas", "Volvo")
    b = claim("Jonas 's car is a blue Volvo.", "Jonas", "Volvo")
    assert conflict(a, b) is None


def test_a_word_negated_by_its_prefix_is_a_negation() -> None:
    a = read_claim("Ana likes jazz.", [Token("Ana", "Ana", "PROPN", "NNP", 0),
                                       Token("likes", "like", "VERB", "VBZ", 4),
                                       Token("jazz", "jazz", "NOUN", "NN", 10)],
                   [NamedEntity("Ana", "Ana")], NOW)  # fmt: skip
    b = read_claim("Ana dislikes jazz.", [Token("Ana", "Ana", "PROPN", "NNP", 0),
                                          Token("dislikes", "dislike", "VERB", "VBZ", 4),
                                          Token("jazz", "jazz", "NOUN", "NN", 13)],
                   [NamedEntity("Ana", "Ana")], NOW)  # fmt: skip
    assert conflict(a, b) == "negation"
