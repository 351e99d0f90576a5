from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from app.domain.names import name_key
from app.resolve.evidence import ViewCache
from app.resolve.model import Candidate, KeepApart, Merge, Neighbour, Review
from app.resolve.qualifiers import Qualifier
from app.resolve.reconsider import may_merge, reconsider

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def ent(
    eid: str,
    *names: str,
    type: str | None = "person",
    n: int = 1,
    first_days_ago: float = 60,
    last_days_ago: float = 1,
    neighbours: tuple[Neighbour, ...] = (),
    decided_apart: tuple[str, ...] = (),
    is_label: bool = False,
) -> Candidate:
    return Candidate(
        entity_id=eid,
        canonical_name=names[0],
        names=tuple(name_key(x) for x in names),
        type=type,
        first_seen=NOW - timedelta(days=first_days_ago),
        last_seen=NOW - timedelta(days=last_days_ago),
        mention_count=n,
        degree=len(neighbours),
        neighbours=neighbours,
        decided_apart=decided_apart,
        is_label=is_label,
    )


def orbit_and_fragment() -> tuple[Candidate, Candidate]:
    """A project and a one-fact fragment of its short name that share a neighbour."""
    sarah = Neighbour("sarah", 3)
    main = ent(
        "orbit",
        "Project Orbit",
        "Orbit",
        type="project",
        n=6,
        neighbours=(sarah, Neighbour("alex", 4)),
    )
    fragment = ent(
        "frag", "Orbit", type="project", first_days_ago=90, last_days_ago=90, neighbours=(sarah,)
    )
    return main, fragment


def test_fragment_merges_once_it_shares_a_neighbour():
    main, fragment = orbit_and_fragment()
    result = reconsider(main, [fragment], changed_at=NOW)
    # exact "orbit" 0.5 + 0.3 * (1/sqrt(3) shared / 1/sqrt(3) of the thinner side)
    # + 0.2 * familiarity 6/9 = 0.933
    assert isinstance(result, Merge)
    assert (result.entity_id, result.score, result.evidence.shared) == ("frag", 0.93, ("sarah",))


def test_one_fact_fragment_joins_a_familiar_entity_of_the_same_full_name():
    main = ent("d1", "David Park", n=3)
    fragment = ent("d2", "David Park", first_days_ago=120, last_days_ago=120)
    result = reconsider(main, [fragment], changed_at=NOW)
    # 0.5 + 0.2 * full_name_salience 0.65 (above familiarity 3/6): a repeated full name
    assert isinstance(result, Merge)
    assert result.score == 0.63


def test_established_namesakes_stay_apart():
    boston = ent(
        "mb",
        "Meridian Health",
        type="organization",
        n=3,
        neighbours=(Neighbour("renata", 2, count=2), Neighbour("boston", 1)),
    )
    denver = ent(
        "md",
        "Meridian Health",
        type="organization",
        n=3,
        neighbours=(Neighbour("daniel", 2, count=2), Neighbour("denver", 1)),
    )
    result = reconsider(boston, [denver], changed_at=NOW)
    # each has recurring company the other lacks: familiarity 3/6 * (1 - 2/5) = 0.3,
    # no recency: 0.5 + 0.06 = 0.56, a grey zone, never a merge
    assert isinstance(result, Review)
    assert result.reason == "grey zone"
    assert result.evidence[0].score == 0.56


def test_recent_bare_name_fragment_joins_when_its_context_is_silent():
    lily = ent("l1", "Lily", n=6, neighbours=(Neighbour("aunt", 3, count=3),))
    fragment = ent(
        "l2", "Lily", first_days_ago=2, last_days_ago=2, neighbours=(Neighbour("duomo", 1),)
    )
    result = reconsider(lily, [fragment], changed_at=NOW)
    # only holder of the name: 1.0; recency of 2 days 0.5 ** (2/7) = 0.82: 0.5 + 0.16
    assert isinstance(result, Merge)
    assert result.score == 0.66


def test_bare_name_fragment_whose_context_points_to_another_holder_is_reviewed():
    quillon_alex = ent("a1", "Alex", n=2, neighbours=(Neighbour("quillon", 1, count=1),))
    fragment = ent(
        "a2", "Alex", first_days_ago=-1, last_days_ago=-1, neighbours=(Neighbour("orbit", 16),)
    )
    kim = ent("kim", "Alex Kim", n=4, last_days_ago=40, neighbours=(Neighbour("orbit", 16),))
    result = reconsider(quillon_alex, [fragment, kim], changed_at=NOW)
    assert isinstance(result, Review)
    assert result.reason == "bare name: context points elsewhere"


def test_a_spouse_is_not_joined_to_a_name_stated_with_a_nickname_in_either_direction():
    # "Tadeusz Wróbel, whom everyone calls Tadek": both names are stated; his wife's full name
    # and her title share only the surname, which the statement does not explain.
    lake = Neighbour("lake", 2, count=2)
    husband = msgspec.structs.replace(
        ent("t", "Tadeusz Wróbel", "Tadek", n=3, neighbours=(lake,)),
        stated_names=(name_key("Tadeusz Wróbel"), name_key("Tadek")),
    )
    wife = ent("a", "Agnieszka Wróbel", "Mrs. Wróbel", n=2, neighbours=(lake,))
    assert not isinstance(reconsider(wife, [husband], changed_at=NOW), Merge)
    assert not isinstance(reconsider(husband, [wife], changed_at=NOW), Merge)


def test_a_full_name_built_from_a_stated_nickname_still_joins_its_person():
    lake = Neighbour("lake", 2, count=2)
    robert = msgspec.structs.replace(
        ent("r", "Robert Smith", "Bob", n=3, neighbours=(lake,)),
        stated_names=(name_key("Robert Smith"), name_key("Bob")),
    )
    bob_smith = ent("b", "Bob Smith", n=1, last_days_ago=0, neighbours=(lake,))
    assert isinstance(reconsider(bob_smith, [robert], changed_at=NOW), Merge)


def test_a_title_that_says_woman_is_not_the_one_called_a_husband():
    lake = Neighbour("lake", 2, count=2)
    husband = msgspec.structs.replace(
        ent("t", "Tomasz Nowak", n=3, neighbours=(lake,)),
        qualifiers=(Qualifier("role", "husband", "husband"),),
    )
    mrs = ent("m", "Mrs. Nowak", n=1, last_days_ago=0, neighbours=(lake,))
    assert not isinstance(reconsider(mrs, [husband], changed_at=NOW), Merge)
    mr = ent("r", "Mr. Nowak", n=1, last_days_ago=0, neighbours=(lake,))
    assert isinstance(reconsider(mr, [husband], changed_at=NOW), Merge)


def test_a_pair_decided_different_is_never_proposed_again():
    main = ent("d1", "David Park", n=3)
    other = ent("d2", "David Park", decided_apart=("d1",))
    assert isinstance(reconsider(main, [other], changed_at=NOW), KeepApart)


def test_labels_are_never_merged_by_reconsideration():
    label = ent("l1", "sarah-chen", is_label=True)
    result = reconsider(label, [ent("l2", "sarah-chen", is_label=True)])
    assert isinstance(result, KeepApart)


def test_namesakes_by_full_name_are_ruled_out():
    kim = ent("kim", "Alex Kim", "Alex", n=5)
    moreno = ent("moreno", "Alex Moreno", "Alex", n=5)
    result = reconsider(kim, [moreno], changed_at=NOW)
    assert isinstance(result, KeepApart)
    assert result.reason == "no compatible candidate"


def test_may_merge_is_false_when_every_other_entity_is_ruled_out_on_names():
    sarah_chen = ent("s1", "Sarah Chen", n=5)
    others = [
        ent("s2", "Sarah Kim"),
        ent("c1", "Tomas Chen"),
        ent("o1", "Sarah Chen", type="organization"),
    ]
    assert not may_merge(sarah_chen, others)
    # ... which is what re-evaluation decides too, without reading any neighbour.
    assert isinstance(reconsider(sarah_chen, others, changed_at=NOW), KeepApart)


def test_may_merge_sees_a_name_that_could_be_the_same_entity():
    sarah_chen = ent("s1", "Sarah Chen", n=5)
    assert may_merge(sarah_chen, [ent("s2", "Sarah Kim"), ent("s3", "Sarah")])
    assert may_merge(sarah_chen, [ent("s4", "Sarah Chen", first_days_ago=200)])


def test_may_merge_respects_decisions_and_labels():
    sarah_chen = ent("s1", "Sarah Chen", n=5, decided_apart=("s2",))
    assert not may_merge(sarah_chen, [ent("s2", "Sarah Chen")])
    apart = ent("s4", "Sarah Chen", decided_apart=("s3",))
    assert not may_merge(ent("s3", "Sarah Chen"), [apart])
    label = ent("l1", "Urgent", type=None, is_label=True)
    assert not may_merge(label, [ent("l2", "Urgent", type=None)])


def test_a_view_cache_derives_each_candidate_object_once_and_answers_the_same():
    main, fragment = orbit_and_fragment()
    views = ViewCache()
    first = reconsider(main, [fragment], changed_at=NOW, views=views)
    assert isinstance(first, Merge)
    assert first == reconsider(main, [fragment], changed_at=NOW)
    kept = views.view(fragment)
    assert views.view(fragment) is kept
    # A new candidate object (the working set rebuilt it after a change) is viewed afresh,
    # and so is the same object under another hub degree.
    changed = msgspec.structs.replace(fragment, neighbours=main.neighbours)
    assert views.view(changed) is not kept
    assert views.view(changed).neighbours == {"sarah": 3, "alex": 4}
    assert views.view(changed, hub=2) is not views.view(changed)


def test_two_entities_named_side_by_side_in_a_fact_are_not_merged_on_a_shared_name():
    # The farm's entity took the town's short name before the fact naming both arrived.
    farm = ent(
        "farm",
        "Halden Solar Farm",
        "Halden",
        type="place",
        n=6,
        neighbours=(Neighbour("town", 1), Neighbour("crew", 3)),
    )
    town = ent("town", "Halden", type="place", neighbours=(Neighbour("farm", 6),))
    assert not isinstance(reconsider(farm, [town], changed_at=NOW), Merge)
    # Never named together, the exact short name joins.
    apart_farm = msgspec.structs.replace(farm, neighbours=farm.neighbours[1:], degree=1)
    apart_town = msgspec.structs.replace(town, neighbours=(), degree=0)
    assert isinstance(reconsider(apart_farm, [apart_town], changed_at=NOW), Merge)


@pytest.mark.parametrize(
    "stated", [("Nastya",), ("Anastasia", "Nastya")], ids=["alias alone", "with its partner"]
)
def test_a_stated_nickname_does_not_keep_out_a_title_of_the_persons_surname(
    stated: tuple[str, ...],
) -> None:
    # "Anastasia (Nastya to her friends)": without the nickname "Mrs. Volkova" would join.
    shop = Neighbour("shop", 2, count=2)
    anastasia = msgspec.structs.replace(
        ent("a", "Anastasia Volkova", "Anastasia", "Nastya", n=3, neighbours=(shop,)),
        stated_names=tuple(name_key(s) for s in stated),
    )
    mrs = ent("m", "Mrs. Volkova", n=1, last_days_ago=0, neighbours=(shop,))
    assert isinstance(reconsider(mrs, [anastasia], changed_at=NOW), Merge)
