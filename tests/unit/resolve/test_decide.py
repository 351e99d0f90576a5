from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from app.domain.names import name_key
from app.resolve.decide import resolve_fact
from app.resolve.model import (
    Candidate,
    Create,
    CreateAndReview,
    FactMentions,
    GroupDecision,
    Mention,
    Merge,
    Neighbour,
)
from app.resolve.qualifiers import Qualifier

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def cand(
    eid: str,
    *names: str,
    type: str | None = "person",
    days_ago: float = 1,
    n: int = 1,
    neighbours: tuple[Neighbour, ...] = (),
    is_label: bool = False,
) -> Candidate:
    seen = NOW - timedelta(days=days_ago)
    return Candidate(
        entity_id=eid,
        canonical_name=names[0],
        names=tuple(name_key(x) for x in names),
        type=type,
        first_seen=seen,
        last_seen=seen,
        mention_count=n,
        degree=len(neighbours),
        neighbours=neighbours,
        is_label=is_label,
    )


def fact(*mentions: Mention, content: str = "", bank: int = 0) -> FactMentions:
    return FactMentions(mentions=mentions, at=NOW, content=content, bank_entities=bank)


def group_of(decisions: tuple[GroupDecision, ...], mention: int) -> GroupDecision:
    return next(g for g in decisions if mention in g.mentions)


def one(mention: Mention, *candidates: Candidate):
    decisions = resolve_fact(fact(mention), [candidates])
    return group_of(decisions, 0).decision


def test_no_candidate_creates_a_new_entity():
    decision = one(Mention(text="Renata Silva", type="person"))
    assert isinstance(decision, Create)
    assert decision.reason == "no compatible candidate"


def test_exact_full_name_seen_yesterday_merges():
    decision = one(Mention(text="Sarah Chen", type="person"), cand("s1", "Sarah Chen"))
    # 0.5 * 1.0 + 0.3 * 0 + 0.2 * max(0.5 ** (1/7) = 0.906, 1/4)
    assert isinstance(decision, Merge)
    assert decision.entity_id == "s1"
    assert decision.score == 0.68


def test_exact_full_name_joins_a_one_fact_entity_whatever_the_gap():
    decision = one(
        Mention(text="Meridian Health", type="organization"),
        cand("m1", "Meridian Health", type="organization", days_ago=300),
    )
    # 0.5 + 0.2 * full_name_salience 0.65: time apart is no evidence of two things
    assert isinstance(decision, Merge)
    assert decision.score == 0.63


def test_same_full_name_with_another_city_stated_is_another_entity():
    fact = FactMentions(
        mentions=(
            Mention(text="Cedar & Vine", type="organization"),
            Mention(text="Spokane", type="place"),
        ),
        at=NOW,
        content="Cedar & Vine in Spokane asked for a weekly delivery.",
    )
    stored = msgspec.structs.replace(
        cand("c1", "Cedar & Vine", type="organization", days_ago=20),
        qualifiers=(Qualifier("place", "tacoma", "Tacoma"),),
    )
    [group, _] = resolve_fact(fact, [[stored], []])
    assert isinstance(group.decision, Create)
    assert group.decision.rejected[0].reason == "place qualifiers differ: Spokane vs Tacoma"
    assert group.qualifiers == (Qualifier("place", "spokane", "Spokane"),)


def test_exact_full_name_of_a_familiar_entity_merges_without_context():
    decision = one(
        Mention(text="David Park", type="person"), cand("d1", "David Park", days_ago=90, n=3)
    )
    # 0.5 + 0.2 * max(familiarity 3/6, full_name_salience 0.65)
    assert isinstance(decision, Merge)
    assert decision.score == 0.63


def test_incompatible_types_never_merge_even_with_the_same_key():
    decision = one(Mention(text="apple", type="other"), cand("a1", "Apple", type="organization"))
    assert isinstance(decision, Create)
    assert decision.rejected[0].reason == "types differ: other vs organization"


def test_a_place_named_like_a_persons_surname_is_not_the_person():
    teacher = cand("p1", "Ngaire Tautahi", "Ms. Tautahi", n=6)
    for kind in ("place", "organization"):
        decision = one(Mention(text="Tautahi", type=kind, type_guessed=True), teacher)
        assert isinstance(decision, Create), kind
        assert "surname" in decision.rejected[0].reason
    # A given name NER typed a place is still the person's, as is an untyped surname.
    assert isinstance(one(Mention(text="Ngaire", type="place", type_guessed=True), teacher), Merge)
    assert isinstance(one(Mention(text="Ms. Tautahi", type="person"), teacher), Merge)


def test_version_never_merges_into_the_base_name():
    decision = one(Mention(text="Claude 4", type="product"), cand("c1", "Claude", type="product"))
    assert isinstance(decision, Create)


def test_bare_first_name_without_context_creates_when_namesakes_exist():
    kim = cand("kim", "Alex Kim", "Alex", days_ago=30, n=2)
    moreno = cand("moreno", "Alex Moreno", days_ago=30, n=2)
    decision = one(Mention(text="Alex", type="person"), kim, moreno)
    # each 0.5 * 0.85 + 0.2 * max(0.051, 2/14) = 0.45: below the review threshold
    assert isinstance(decision, Create)


def test_context_separates_namesakes():
    quillon = cand(
        "q1", "Quillon", type="organization", days_ago=30, n=2, neighbours=(Neighbour("moreno", 1),)
    )
    kim = cand("kim", "Alex Kim", days_ago=30, n=2)
    moreno = cand("moreno", "Alex Moreno", days_ago=30, n=2, neighbours=(Neighbour("q1", 1),))
    decisions = resolve_fact(
        fact(Mention(text="Alex", type="person"), Mention(text="Quillon", type="organization")),
        [(kim, moreno), (quillon,)],
    )
    alex = group_of(decisions, 0).decision
    # 0.425 + 0.3 * 1.0 (Quillon, degree 1, is all of both contexts) + 0.2 * 2/14
    assert isinstance(alex, Merge)
    assert (alex.entity_id, alex.score, alex.evidence.shared) == ("moreno", 0.75, ("q1",))
    assert isinstance(group_of(decisions, 1).decision, Merge)


def test_namesake_tie_creates_a_new_entity_and_files_a_review_with_both_sides():
    orbit = cand(
        "o1", "Orbit", type="project", n=3, neighbours=(Neighbour("kim", 1), Neighbour("moreno", 1))
    )
    kim = cand("kim", "Alex Kim", days_ago=30, n=2, neighbours=(Neighbour("o1", 2),))
    moreno = cand("moreno", "Alex Moreno", days_ago=30, n=2, neighbours=(Neighbour("o1", 2),))
    decisions = resolve_fact(
        fact(Mention(text="Alex", type="person"), Mention(text="Orbit", type="project")),
        [(kim, moreno), (orbit,)],
    )
    alex = group_of(decisions, 0).decision
    assert isinstance(alex, CreateAndReview)
    assert alex.reason == "namesake tie"
    assert {e.entity_id for e in alex.evidence} == {"kim", "moreno"}
    assert alex.evidence[0].score == alex.evidence[1].score == 0.75
    assert alex.subject.names == ("alex",)


def test_a_resolved_mention_is_context_for_an_ambiguous_one():
    sarah = cand("s1", "Sarah Chen", n=5, neighbours=(Neighbour("kim", 1),))
    kim = cand("kim", "Alex Kim", days_ago=30, n=2, neighbours=(Neighbour("s1", 1),))
    moreno = cand("moreno", "Alex Moreno", days_ago=30, n=2)
    decisions = resolve_fact(
        fact(Mention(text="Sarah Chen", type="person"), Mention(text="Alex", type="person")),
        [(sarah,), (kim, moreno)],
    )
    alex = group_of(decisions, 1).decision
    assert isinstance(alex, Merge)
    assert alex.entity_id == "kim"


def test_hub_neighbour_carries_no_merge_where_an_ordinary_neighbour_does():
    def gustavo_with_user(user_degree: int):
        user = msgspec.structs.replace(
            cand("u1", "user", n=30, neighbours=(Neighbour("g1", 1),)), degree=user_degree
        )
        gustavo = cand(
            "g1", "Gustavo Lima", days_ago=200, n=1, neighbours=(Neighbour("u1", user_degree),)
        )
        # A namesake in sight, so the bare name is not its sole holder's whatever the context.
        namesake = cand("g2", "Gustavo Reyes", days_ago=200, n=1)
        decisions = resolve_fact(
            fact(
                Mention(text="Gustavo", type="person"), Mention(text="user", type="person"), bank=60
            ),
            [(gustavo, namesake), (user,)],
        )
        return group_of(decisions, 0).decision

    # hub: degree 40 >= 0.4 * 60 entities; 0.5 * 0.85 + 0.2 * max(~0, 1/13) = 0.44
    assert isinstance(gustavo_with_user(40), Create)
    # an ordinary neighbour of degree 4: full overlap, 0.44 + 0.3
    merged = gustavo_with_user(4)
    assert isinstance(merged, Merge)
    assert merged.score == 0.74


def test_sibling_of_a_series_counts_as_context():
    kim = cand(
        "kim", "Alex Kim", days_ago=30, n=2, neighbours=(Neighbour("sp14", 1, series="sprint #"),)
    )
    moreno = cand("moreno", "Alex Moreno", days_ago=30, n=2)
    decisions = resolve_fact(
        fact(Mention(text="Alex", type="person"), Mention(text="Sprint 16", type="event")),
        [(kim, moreno), ()],
    )
    alex = group_of(decisions, 0).decision
    # sibling mass 0.5 * 1/sqrt(1) against the floor 0.5: full overlap
    assert isinstance(alex, Merge)
    assert (alex.entity_id, alex.evidence.siblings, alex.score) == ("kim", ("sp14",), 0.75)


def test_controlled_vocabulary_labels_match_by_exact_key_only():
    label = Mention(text="sarah-chen", type="person", is_label=True)
    merged = one(label, cand("l1", "sarah-chen", is_label=True, days_ago=400))
    assert isinstance(merged, Merge)
    assert merged.score == 1.0
    assert isinstance(one(label, cand("l2", "sarah-chen-2", is_label=True)), Create)
    not_a_label = one(label, cand("e1", "sarah-chen"))
    assert isinstance(not_a_label, Create)
    assert not_a_label.rejected[0].reason == "controlled vocabulary: exact label match only"
    free_text = one(
        Mention(text="sarah-chen", type="person"), cand("l1", "sarah-chen", is_label=True)
    )
    assert isinstance(free_text, Create)


def test_resolve_entities_false_merges_exact_keys_only():
    exact_only = Mention(text="Sarah", type="person", resolve=False)
    assert isinstance(one(exact_only, cand("s1", "Sarah Chen")), Create)
    decision = one(exact_only, cand("s1", "Sarah Chen", "Sarah", days_ago=200))
    assert isinstance(decision, Merge)
    assert decision.entity_id == "s1"


def test_stated_alias_puts_both_names_in_one_group():
    decisions = resolve_fact(
        fact(
            Mention(text="海蓝科技", type="organization"),
            Mention(text="海洋探测器1号", type="product"),
            Mention(text="海探1", type="product"),
            content="海蓝科技 sent the spec sheet for 海洋探测器1号（简称海探1）.",
        ),
        [(), (), ()],
    )
    assert [g.mentions for g in decisions] == [(0,), (1, 2)]
    assert decisions[1].names == ("海洋探测器1号", "海探1")
    assert decisions[1].stated_names == ("海探1", "海洋探测器1号")


def test_a_former_name_in_brackets_is_the_same_persons_and_a_birth_place_is_not():
    katrin, maiden = Mention(text="Katrin Aas", type="person"), Mention(text="Katrin Müller")
    renamed = fact(katrin, maiden, content="Katrin Aas (born Katrin Müller) renewed her passport.")
    assert [g.mentions for g in resolve_fact(renamed, [(), ()])] == [(0, 1)]
    berlin = Mention(text="Berlin", type="place")
    born_in = fact(katrin, berlin, content="Katrin Aas (born in Berlin) renewed her passport.")
    assert [g.mentions for g in resolve_fact(born_in, [(), ()])] == [(0,), (1,)]


@pytest.mark.parametrize(
    ("texts", "groups"),
    [
        ((("Priya Raman", "person"), ("Priya", "person")), [(0, 1)]),
        ((("Claude", "product"), ("Claude 4", "product")), [(0,), (1,)]),
        ((("Florence", "place"), ("Aunt Florence", "person")), [(0,), (1,)]),
        ((("Room 4B", "place"), ("Room 4A", "place")), [(0,), (1,)]),
    ],
)
def test_surface_variants_in_one_fact_form_one_group_and_near_misses_do_not(texts, groups):
    mentions = tuple(Mention(text=t, type=ty) for t, ty in texts)
    decisions = resolve_fact(fact(*mentions), [() for _ in mentions])
    assert [g.mentions for g in decisions] == groups


def test_mention_with_an_empty_name_is_left_out():
    decisions = resolve_fact(
        fact(Mention(text="…"), Mention(text="Okta", type="product")), [(), ()]
    )
    assert [g.mentions for g in decisions] == [(1,)]


def test_candidates_must_come_one_sequence_per_mention():
    with pytest.raises(ValueError, match="one sequence per mention"):
        resolve_fact(fact(Mention(text="Okta")), [])


def test_supplied_alias_is_recorded_as_stated_and_matches_the_entity_named_by_it():
    probe = Mention(text="Ocean Probe 1", type="product", aliases=("OP-1", "OP-2"))
    op1 = cand("p1", "OP-1", type="product")
    decisions = resolve_fact(fact(probe), [(op1,)])
    assert decisions[0].names == ("ocean probe 1", "op-1")  # "OP-2": numbers differ, refused
    assert decisions[0].stated_names == ("ocean probe 1", "op-1")
    assert isinstance(decisions[0].decision, Merge)
    assert decisions[0].decision.entity_id == "p1"


def test_expand_builds_only_name_compatible_candidates_and_decides_the_same():
    # Index hits share a word with a mention ("Kim", "Chen") and most are ruled out on names
    # alone: only the compatible ones need their neighbours built.
    alex = cand("alex", "Alex Kim", n=3, neighbours=(Neighbour("sarah", 2, count=2),))
    tomas = cand("tomas", "Tomas Kim", n=5, neighbours=(Neighbour("ines", 2),))
    sarah = cand("sarah", "Sarah Chen", n=4, neighbours=(Neighbour("alex", 2, count=2),))
    ines = cand("ines", "Ines Chen", n=2, neighbours=(Neighbour("tomas", 2),))
    full = {c.entity_id: c for c in (alex, tomas, sarah, ines)}
    bare = {eid: msgspec.structs.replace(c, neighbours=()) for eid, c in full.items()}
    f = fact(Mention(text="Alex Kim", type="person"), Mention(text="Sarah Chen", type="person"))
    expanded: list[str] = []

    def expand(entity_id: str) -> Candidate:
        expanded.append(entity_id)
        return full[entity_id]

    lazy = resolve_fact(
        f, [[bare["alex"], bare["tomas"]], [bare["sarah"], bare["ines"]]], expand=expand
    )
    eager = resolve_fact(f, [[alex, tomas], [sarah, ines]])
    assert lazy == eager
    assert sorted(expanded) == ["alex", "sarah"]
    merged = group_of(lazy, 0).decision
    assert isinstance(merged, Merge)
    assert (merged.entity_id, merged.evidence.shared) == ("alex", ("sarah",))


def test_a_more_familiar_namesake_is_no_evidence_for_a_plain_full_name() -> None:
    # Two people called Daniel Osei, told apart by what was said next to the name; the one
    # named more often, and more recently, used to take a mention that says nothing.
    potter = msgspec.structs.replace(
        cand("potter", "Daniel Osei", days_ago=2, n=6),
        qualifiers=(Qualifier("description", "pottery studio", "pottery studio"),),
    )
    doctor = msgspec.structs.replace(
        cand("doctor", "Daniel Osei", days_ago=40, n=1),
        qualifiers=(Qualifier("role", "anaesthetist", "anaesthetist"),),
    )
    decision = one(Mention(text="Daniel Osei", type="person"), potter, doctor)
    assert isinstance(decision, CreateAndReview)
    assert {e.entity_id for e in decision.evidence} == {"potter", "doctor"}
    said = resolve_fact(
        fact(
            Mention(text="Daniel Osei", type="person"),
            content="Daniel Osei, the anaesthetist, came by.",
        ),
        [(potter, doctor)],
    )
    chosen = group_of(said, 0).decision
    assert isinstance(chosen, Merge)
    assert chosen.entity_id == "doctor"


def test_a_namesake_ruled_out_by_a_qualifier_does_not_hand_the_mention_to_the_other() -> None:
    ivana = cand("ivana", "Dr. Ivana Novak", days_ago=1, n=5)
    peter = msgspec.structs.replace(
        cand("peter", "Dr. Peter Novak", days_ago=30, n=2),
        qualifiers=(Qualifier("organization", "riverside general", "Riverside General"),),
    )
    said = resolve_fact(
        fact(
            Mention(text="Dr. Novak", type="person"),
            Mention(text="Hillside Surgery", type="organization"),
            content="Dr. Novak at Hillside Surgery referred her to physio.",
        ),
        [(ivana, peter), ()],
    )
    decision = group_of(said, 0).decision
    assert isinstance(decision, CreateAndReview)
    assert [e.entity_id for e in decision.evidence] == ["ivana"]
    # With no namesake in sight the same mention joins its only holder, as before.
    alone = resolve_fact(
        fact(
            Mention(text="Dr. Novak", type="person"),
            Mention(text="Hillside Surgery", type="organization"),
            content="Dr. Novak at Hillside Surgery referred her to physio.",
        ),
        [(ivana,), ()],
    )
    assert isinstance(group_of(alone, 0).decision, Merge)
    # What the fact is about, shared with the one left, tells it as a qualifier would.
    physio = resolve_fact(
        msgspec.structs.replace(
            fact(
                Mention(text="Dr. Novak", type="person"),
                Mention(text="Hillside Surgery", type="organization"),
                content="Dr. Novak at Hillside Surgery referred her to physio.",
            ),
            topics=frozenset({"physio"}),
        ),
        [(msgspec.structs.replace(ivana, topics=frozenset({"physio"})), peter), ()],
    )
    assert isinstance(group_of(physio, 0).decision, Merge)


def test_a_title_and_surname_joins_the_namesake_its_words_point_to_however_familiar_the_other():
    familiar = cand("tamas", "Tamas Varga", n=12, days_ago=1)
    doctor = msgspec.structs.replace(
        cand("ilse", "Dr. Ilse Varga", days_ago=17), topics=frozenset({"hearing", "clinic"})
    )
    mention = FactMentions(
        mentions=(Mention(text="Dr. Varga", type="person"),),
        at=NOW,
        content="Dr. Varga retested my hearing.",
        topics=frozenset({"hearing"}),
    )
    decision = group_of(resolve_fact(mention, [(familiar, doctor)]), 0).decision
    assert isinstance(decision, Merge)
    assert decision.entity_id == "ilse"
    # Nothing said of either: the familiar one is no more this Dr. Varga than the other.
    silent = msgspec.structs.replace(mention, topics=frozenset())
    assert isinstance(
        group_of(resolve_fact(silent, [(familiar, doctor)]), 0).decision, CreateAndReview
    )


def test_a_relative_named_beside_a_title_of_the_same_surname_is_another_person():
    content = "Captain Lund thanked her brother, Nils Lund, for the new jetty."
    decisions = resolve_fact(
        fact(
            Mention(text="Captain Lund", type="person"),
            Mention(text="Nils Lund", type="person"),
            content=content,
        ),
        [(), ()],
    )
    assert group_of(decisions, 0) is not group_of(decisions, 1)


def spouses() -> tuple[Candidate, Candidate]:
    """A wife the text gave a title of office ("the girls call her Coach Ngata"), her husband."""
    coach = msgspec.structs.replace(
        cand("hine", "Hine Ngata", "Coach Ngata", n=3, days_ago=5),
        stated_names=(name_key("Hine Ngata"), name_key("Coach Ngata")),
    )
    return coach, cand("tama", "Tama Ngata", "Tama", n=3, days_ago=5)


def test_a_title_and_surname_is_no_guess_between_spouses_though_one_was_stated_with_a_title():
    # Her names are stated; the surname is all that her husband's full name shares with
    # them, so he is still a holder of another name.
    decision = one(Mention(text="Mr. Ngata", type="person"), *spouses())
    assert isinstance(decision, CreateAndReview)
    assert {e.entity_id for e in decision.evidence} == {"hine", "tama"}


def test_a_title_and_surname_stated_for_one_spouse_joins_her_though_both_bear_the_surname():
    # The text gave that form to her, not to her husband.
    decision = one(Mention(text="Coach Ngata", type="person"), *spouses())
    assert isinstance(decision, Merge)
    assert decision.entity_id == "hine"


def test_a_titled_surname_the_bank_knows_goes_to_its_bearer_beside_an_untitled_namesake():
    doctor = cand("doc", "Dr. Miriam Haldane", "Dr. Haldane", n=6)
    piet = cand("piet", "Piet Haldane", n=5)
    decisions = resolve_fact(
        fact(
            Mention(text="Piet Haldane", type="person"),
            Mention(text="Dr. Haldane", type="person"),
            content="Piet Haldane found me an ice pack, and Dr. Haldane cleared me for work.",
        ),
        [(piet,), (doctor, piet)],
    )
    piet_group, doctor_group = group_of(decisions, 0), group_of(decisions, 1)
    assert piet_group.mentions == (0,)
    assert isinstance(piet_group.decision, Merge) and piet_group.decision.entity_id == "piet"
    assert isinstance(doctor_group.decision, Merge) and doctor_group.decision.entity_id == "doc"
