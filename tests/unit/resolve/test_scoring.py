import math
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from app.domain.names import name_form, name_key, type_class
from app.resolve.scoring import (
    DEFAULT_POLICY,
    combine,
    context_overlap,
    familiarity,
    hub_degree,
    maximal_names,
    name_relation,
    neighbour_weight,
    recency,
)

P = DEFAULT_POLICY
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def form(text: str, entity_type: str | None = None):
    return name_form(name_key(text), type_class(entity_type))


def rel(a: str, b: str, entity_type: str | None = None, **kw):
    match = name_relation(form(a, entity_type), form(b, entity_type), P, **kw)
    assert match is not None
    return match


def test_weights_sum_to_one_so_a_score_stays_in_0_1():
    assert P.name_weight + P.context_weight + P.salience_weight == pytest.approx(1.0)


def test_exact_key_scores_one():
    assert rel("Greenlake Clinic", "greenlake clinic").score == 1.0


def test_legal_suffix_and_punctuation_variants_are_the_same_form():
    match = rel("Quillon, Inc.", "QUILLON INC", "organization")
    assert (match.kind, match.score) == ("same_form", 0.95)


def test_dotted_istanbul_is_the_same_form_as_istanbul():
    assert rel("İstanbul", "Istanbul", "place").kind == "same_form"


def test_middle_initial_scores_as_initials():
    match = rel("Sarah J. Chen", "Sarah Chen", "person")
    assert (match.kind, match.score) == ("initials", 0.9)


def test_a_one_letter_word_in_the_name_of_a_thing_is_a_word_not_an_initial():
    # Portuguese "e" is "and": a pharmacy whose name holds "Farmácia" is not the committee.
    committee = form("Comissão de Farmácia e Terapêutica", "organization")
    assert name_relation(committee, form("Farmácia Estrela", "organization"), P) is None
    assert rel("Farmácia e Terapêutica", "Comissão de Farmácia e Terapêutica").kind == "contained"
    assert rel("Pont y Felin", "Pont-y-Felin", "place").kind == "same_form"
    # In a person's name the letter is still an initial.
    assert rel("Robert E. Lee", "Robert Edward Lee", "person").kind == "initials"


def test_contained_name_scores_base_plus_share_of_the_longer_name():
    # 0.55 + 0.35 * 1/2
    assert rel("Jira", "Atlassian Jira", "product").score == pytest.approx(0.725)
    # 0.55 + 0.35 * 1/3
    assert rel("Seattle", "Town Hall Seattle", "place").score == pytest.approx(0.55 + 0.35 / 3)


def test_a_name_without_its_type_head_is_not_contained_in_another_thing():
    # Untyped, "Project Atlas" is "Atlas" (its head dropped): the same thing as a bare
    # "Atlas", but not a part of "Atlas Health", which grows the word another way.
    assert rel("Project Atlas", "Atlas").kind == "same_form"
    assert name_relation(form("Project Atlas"), form("Atlas Health"), P) is None
    assert name_relation(form("Atlas Health"), form("Project Atlas"), P) is None
    # Both with their head, or neither: containment as usual.
    assert rel("Project Atlas", "Project Atlas Phase Two").kind == "contained"
    assert rel("Atlas", "Atlas Health").kind == "contained"


def test_a_place_without_the_word_that_makes_it_another_place_is_that_other_place():
    # The lake is not the town named after it, nor "New Kelby" the town it was named after.
    for short, long_ in (
        ("Tarrow", "Lake Tarrow"),
        ("Kelby", "New Kelby"),
        ("Tarrow", "Tarrow Bay"),
    ):
        assert name_relation(form(short, "place"), form(long_, "place"), P) is None
        assert name_relation(form(long_, "place"), form(short, "place"), P) is None
    # Other words left out still make a short form, and other things keep theirs.
    assert rel("Lookout", "Anvil Lookout", "place").kind == "contained"
    assert rel("Tarrow", "Tarrow Bay Outfitters", "organization").kind == "contained"


def test_acronym_scores_0_7():
    assert rel("UW", "University of Washington", "organization").score == 0.7


def test_a_bare_given_name_scores_flat_whether_exact_or_contained():
    assert rel("Alex", "Alex Kim", "person").score == 0.85
    assert rel("Alex", "Alex", "person").score == 0.85
    assert rel("Dr. Okafor", "Prof. Okafor", "person").kind == "given_name"


def test_a_hyphenated_compound_is_one_word_of_a_persons_name():
    assert rel("Prof. Halvorsen-Mbeki", "Ingrid Halvorsen-Mbeki", "person").kind == "given_name"
    assert rel("Jean-Luc", "Jean-Luc Moreau", "person").kind == "given_name"
    assert rel("Mi-rae Seo", "Mi-rae Seo", "person").kind == "exact"


def test_a_bare_given_name_without_namesakes_keeps_its_own_score():
    assert rel("Lily", "Lily", "person", unique_holder=True).score == 1.0
    assert rel("Sarah", "Sarah Chen", "person", unique_holder=True).score == 0.85


def test_two_cjk_characters_are_a_full_name_not_a_bare_one():
    assert rel("张伟", "张伟", "person").score == 1.0


def test_typo_keeps_ninety_percent():
    # exact words but one letter: same form 0.95 * 0.9
    assert rel("Quilon Health", "Quillon Health", "organization").score == pytest.approx(0.855)


def test_stored_short_form_is_not_a_full_name_of_its_entity():
    names = [form("Alex Kim", "person"), form("Alex", "person")]
    assert [f.key for f in maximal_names(names)] == ["alex kim"]
    assert [f.key for f in maximal_names(names, stated=["alex"])] == ["alex kim", "alex"]


def test_recency_halves_every_seven_days_and_is_symmetric_in_time():
    week = T0 + timedelta(days=7)
    assert recency(week, week, T0, T0, P) == pytest.approx(0.5)
    assert recency(T0, T0, week, week, P) == pytest.approx(0.5)
    two_weeks = T0 + timedelta(days=14)
    assert recency(two_weeks, two_weeks, T0, T0, P) == pytest.approx(0.25)


def test_recency_inside_the_candidates_interval_is_one():
    mid = T0 + timedelta(days=3)
    assert recency(mid, mid, T0, T0 + timedelta(days=9), P) == 1.0


def test_familiarity_is_half_at_three_facts_and_twelve_for_a_bare_name():
    assert familiarity(3, P) == pytest.approx(0.5)
    assert familiarity(1, P) == pytest.approx(0.25)
    assert familiarity(12, P, bare_name=True) == pytest.approx(0.5)
    assert familiarity(3, P, bare_name=True) == pytest.approx(0.2)


def test_neighbour_weight_is_one_over_sqrt_degree_and_zero_for_a_hub():
    assert neighbour_weight(4, P) == pytest.approx(0.5)
    assert neighbour_weight(0, P) == 1.0
    assert neighbour_weight(25, P, hub=20) == 0.0


def test_hub_degree_is_forty_percent_of_the_bank_but_at_least_ten():
    assert hub_degree(60, P) == pytest.approx(24)
    assert hub_degree(5, P) == 10
    assert hub_degree(0, P) == math.inf


def test_context_overlap_normalises_by_the_thinner_side_with_a_floor():
    # one shared neighbour of degree 4 (0.5) against a context of mass 0.5: full overlap
    assert context_overlap(0.5, 0.5, 2.0, P) == 1.0
    # half of the thinner side shared
    assert context_overlap(0.5, 1.0, 3.0, P) == pytest.approx(0.5)
    # a thin context (mass 0.2) is floored at 0.5: 0.2 / 0.5
    assert context_overlap(0.2, 0.2, 3.0, P) == pytest.approx(0.4)
    assert context_overlap(0.0, 1.0, 1.0, P) == 0.0


def test_combine_weighs_and_rounds_to_two_decimals():
    # exact name, nothing shared, salience 0.5: 0.5 + 0 + 0.1
    assert combine(1.0, 0.0, 0.5, P) == 0.6
    # bare name + full context + recency of 1 day (0.5 ** (1/7) = 0.9057)
    assert combine(0.85, 1.0, 0.5 ** (1 / 7), P) == 0.91


def test_policy_variants_are_made_by_replace_not_mutation():
    strict = msgspec.structs.replace(P, merge_threshold=0.7)
    assert strict.merge_threshold == 0.7
    assert P.merge_threshold == 0.6
