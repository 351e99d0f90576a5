from collections import Counter
from datetime import UTC, datetime

from app.resolve.model import Evidence, NameMatch
from app.resolve.scoring import DEFAULT_POLICY, hub_degree, neighbour_weight
from app.resolve.working_set import NeighbourInfo, ReviewRecord, WorkingEntity, WorkingSet

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def person(eid: str, **neighbours: int) -> WorkingEntity:
    """A person named by its id, with one mention and the given neighbours (id: facts)."""
    return WorkingEntity(
        id=eid,
        canonical=eid,
        type="person",
        first=NOW,
        last=NOW,
        names={eid: False},
        mentions=1,
        neighbours=Counter(neighbours),
    )


def test_neighbour_mass_follows_the_hub_degree_as_the_bank_grows():
    # Sarah's neighbours: a popular one (degree 12) and a quiet one (degree 3). With 20
    # entities the hub degree is 10, so the popular one weighs nothing; as entities are
    # created the hub degree rises past 12 and it counts again.
    ws = WorkingSet(bank_entities=20)
    ws.neighbour_info["popular"] = NeighbourInfo(degree=12)
    ws.neighbour_info["quiet"] = NeighbourInfo(degree=3)
    ws.load(
        WorkingEntity(
            id="sarah",
            canonical="Sarah Chen",
            type="person",
            first=NOW,
            last=NOW,
            names={"sarah chen": False},
            mentions=4,
            neighbours=Counter({"popular": 2, "quiet": 1}),
        )
    )
    masses = []
    for _ in range(12):
        hub = hub_degree(ws.bank_entities, DEFAULT_POLICY)
        mass = ws.candidate("sarah", focus=frozenset()).neighbour_mass
        assert mass == sum(neighbour_weight(d, DEFAULT_POLICY, hub) for d in (12, 3))
        masses.append(mass)
        ws.create("Someone New", "person", NOW, is_label=False)
    assert masses[0] == 3**-0.5
    assert masses[-1] == 12**-0.5 + 3**-0.5


def test_a_neighbour_meeting_new_entities_changes_the_mass():
    ws = WorkingSet(bank_entities=20)
    for eid in ("sarah", "alex"):
        ws.load(person(eid))
    ws.cooccur(["sarah", "alex"])
    assert ws.candidate("sarah", focus=frozenset()).neighbour_mass == 1.0
    for i in range(10):  # alex meets ten others: its weight for Sarah falls to 1/sqrt(11)
        other = ws.create(f"Person {i}", "person", NOW, is_label=False)
        ws.cooccur(["alex", other])
    hub = hub_degree(ws.bank_entities, DEFAULT_POLICY)
    assert ws.degree_of("alex") == 11 and hub == 12.0
    assert ws.candidate("sarah", focus=frozenset()).neighbour_mass == 11**-0.5


def _person(ws: WorkingSet, eid: str, name: str) -> None:
    ws.load(
        WorkingEntity(
            id=eid,
            canonical=name,
            type="person",
            first=NOW,
            last=NOW,
            names={name.lower(): False},
            mentions=1,
        )
    )


def test_lookup_sees_names_added_after_an_earlier_lookup():
    ws = WorkingSet()
    _person(ws, "sarah", "Sarah Chen")
    assert ws.lookup("sarah kim", "person") == ("sarah",)  # shares a word
    kim = ws.create("Sarah Kim", "person", NOW, is_label=False)
    ws.add_name(kim, "sarah kim", "Sarah Kim", stated=False, memory_id="m1")
    assert ws.lookup("sarah kim", "person")[0] == kim  # the exact key comes first
    ws.merge("sarah", kim, None)
    assert ws.lookup("sarah kim", "person") == ("sarah",)


def test_lookup_finds_a_marked_name_by_its_ascii_spelling():
    ws = WorkingSet()
    _person(ws, "bjorn", "Björn")
    assert ws.lookup("bjoern lindahl", "person") == ("bjorn",)


def test_many_entities_of_one_bare_name_do_not_hide_the_full_names_it_may_stand_for():
    # Each "Luka" no one could place is an entity of its own; the full names must stay in
    # sight of the next "Luka", or it is decided among those alone.
    ws = WorkingSet()
    _person(ws, "babic", "Luka Babić")
    for i in range(DEFAULT_POLICY.max_candidates + 2):
        _person(ws, f"luka{i:02d}", "Luka")
    assert "babic" in ws.lookup("luka", "person")


def test_names_memo_is_forgotten_when_names_change_not_when_counts_do():
    ws = WorkingSet()
    _person(ws, "sarah", "Sarah Chen")
    _person(ws, "alex", "Alex Kim")
    calls = []

    def names() -> tuple[str, ...]:
        calls.append(1)
        return tuple(sorted(ws.entities["sarah"].names))

    assert ws.names_memo("sarah", names) == ("sarah chen",)
    ws.touch("sarah", NOW)
    ws.cooccur(["sarah", "alex"])
    assert ws.names_memo("sarah", names) == ("sarah chen",)
    assert len(calls) == 1
    ws.add_name("sarah", "sarah", "Sarah", stated=False, memory_id="m2")
    assert ws.names_memo("sarah", names) == ("sarah", "sarah chen")
    ws.add_name("sarah", "sarah", "Sarah", stated=True, memory_id="m3")  # now stated
    ws.names_memo("sarah", names)
    assert len(calls) == 3


def test_an_entity_kept_at_its_known_degree_weighs_as_the_hub_it_is():
    # A settle replays a hub's facts from the first: its degree counts up from nothing, and
    # until it reached the hub line again its company would weigh as a stranger's.
    ws = WorkingSet(bank_entities=20)
    ws.neighbour_info["quiet"] = NeighbourInfo(degree=3)
    ws.load(person("sarah", hub=1, quiet=1))
    ws.load(person("hub", sarah=1))
    replayed = ws.candidate("sarah", focus=frozenset()).neighbour_mass
    ws.keep_degree("hub", 14)
    assert ws.degree_of("hub") == 14
    kept = ws.candidate("sarah", focus=frozenset()).neighbour_mass
    assert (replayed, kept) == (1.0 + 3**-0.5, 3**-0.5)
    ws.keep_degree("hub", 5)  # a floor, never a cut
    assert ws.degree_of("hub") == 14


def test_a_review_names_the_strongest_rivals_only_and_is_filed_once():
    # A bare name many entities hold: the review shows the best few, not a pair with each.
    ws = WorkingSet()
    rivals = [f"luka{i:02d}" for i in range(12)]
    evidence = tuple(
        Evidence(
            entity_id=eid,
            name=NameMatch(
                kind="given_name", score=0.85, subject_name="luka", candidate_name="luka"
            ),
            context=0.0,
            shared=(),
            recency=1.0,
            familiarity=0.5,
            score=round(0.9 - i / 100, 2),
        )
        for i, eid in enumerate(rivals)
    )
    record = ReviewRecord(
        entity_id="new", others=tuple(rivals), reason="namesake tie", evidence=evidence
    )
    ws.review(record)
    ws.review(record)
    [filed] = ws.reviews
    limit = DEFAULT_POLICY.review_candidates
    assert filed.others == tuple(rivals[:limit])
    assert [e.entity_id for e in filed.evidence] == rivals[:limit]


def test_an_edge_a_load_left_out_is_listed_on_both_sides_and_counted_once():
    # Two popular people, each loaded without its hub neighbours (counted, not listed): the
    # edge between them is listed later, when a merge needs to know it is there.
    ws = WorkingSet(bank_entities=40)
    for eid, unlisted in (("sarah", 30), ("chen", 40)):
        entity = person(eid, quiet=1)
        entity.unloaded_degree = unlisted
        ws.load(entity)
    before = ws.degree_of("sarah"), ws.degree_of("chen")
    ws.list_stored_edge("sarah", "chen", 2)
    assert ws.entities["sarah"].neighbours["chen"] == ws.entities["chen"].neighbours["sarah"] == 2
    assert (ws.degree_of("sarah"), ws.degree_of("chen")) == before == (31, 41)
    assert "chen" in {n.entity_id for n in ws.candidate("sarah").neighbours}
