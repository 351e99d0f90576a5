"""An entity's type from its mentions' types: exact types win, guesses go by majority."""

from __future__ import annotations

import itertools

from app.domain.names import type_class
from app.resolve.entity_types import may_change_type, settled_type

G, X = True, False  # guessed by a local model / stated exactly


def test_majority_of_guesses_replaces_the_first_type() -> None:
    votes = [("organization", G), ("person", G), ("person", G)]
    assert settled_type("organization", is_label=False, votes=votes) == "person"


def test_order_of_the_votes_does_not_matter() -> None:
    votes = [("organization", G), ("place", G), ("person", G), ("ORG", G), ("gpe", G)]
    results = {
        settled_type(first, is_label=False, votes=list(perm))
        for perm in itertools.permutations(votes)
        for first in ("organization", "place")
    }
    # organization 2 (organization, ORG) vs place 2 (place, gpe): the fixed order decides.
    assert {type_class(r) for r in results} == {"organization"}


def test_tie_is_broken_by_a_fixed_order_not_by_the_current_type() -> None:
    votes = [("organization", G), ("person", G)]
    assert settled_type("organization", is_label=False, votes=votes) == "person"
    assert settled_type("person", is_label=False, votes=list(reversed(votes))) == "person"


def test_an_exact_type_outranks_any_number_of_guesses() -> None:
    votes = [("person", G), ("person", G), ("person", G), ("organization", X)]
    assert settled_type("person", is_label=False, votes=votes) == "organization"


def test_a_label_keeps_its_type() -> None:
    votes = [("person", X), ("person", X)]
    assert settled_type("topic", is_label=True, votes=votes) == "topic"


def test_no_typed_vote_keeps_the_current_type() -> None:
    assert settled_type("person", is_label=False, votes=[(None, G), ("", X), ("unknown", G)]) == (
        "person"
    )
    assert settled_type(None, is_label=False, votes=[]) is None


def test_current_spelling_stays_when_its_class_wins() -> None:
    votes = [("person", G), ("PER", G)]
    assert settled_type("Person", is_label=False, votes=votes) == "Person"


def test_most_frequent_spelling_of_the_winning_class() -> None:
    votes = [("place", G), ("gpe", G), ("gpe", G), ("person", G)]
    assert settled_type("person", is_label=False, votes=votes) == "gpe"


def test_only_a_vote_for_another_class_can_change_a_settled_type() -> None:
    assert not may_change_type("person", ["person", "PERSON", None, ""])
    assert may_change_type("person", ["person", "organization"])
    assert may_change_type(None, ["place"])
    assert not may_change_type(None, [None])
    # What it promises: votes for the winner's class never change what settled_type says.
    for earlier in itertools.product([("person", G), ("organization", G), ("place", X)], repeat=3):
        current = settled_type(None, is_label=False, votes=earlier)
        for added in [("person", G), ("organization", X), ("place", G)]:
            if not may_change_type(current, [added[0]]):
                assert settled_type(current, is_label=False, votes=[*earlier, added]) == current
