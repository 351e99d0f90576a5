from collections import Counter
from datetime import UTC, datetime

from app.resolve.scoring import DEFAULT_POLICY, hub_degree, neighbour_weight
from app.resolve.working_set import NeighbourInfo, WorkingEntity, WorkingSet

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_neighbour_mass_follows_the_hub_degree_as_the_bank_grows():
    # Sarah's neighbours: a popular one (degree 12) and a quiet one (degree 3). With 20
    # entities the hub degree is 10, so the popular one weighs nothing; as entities are
    # created the hub degree rises past 12 and it counts again.
    ws = WorkingSet(bank_entities=20)
    ws.neighbour_info["popular"] = NeighbourInfo(degree=12)
    ws.neighbour_info["quiet"] = NeighbourInfo(degree=3)
    ws.load(WorkingEntity(id="sarah", canonical="Sarah Chen", type="person", first=NOW,
                          last=NOW, names={"sarah chen": False}, mentions=4,
                          neighbours=Counter({"popular": 2, "quiet": 1})))
    masses = []
    for _ in range(12):
        hub = hub_degree(ws.bank_entities, DEFAULT_POLICY)
        mass = ws.candidate("sarah", focus=frozenset()).neighbour_mass
        assert mass == sum(neighbour_weight(d, DEFAULT_POLICY, hub) for d in (12, 3))
        masses.append(mass)
        ws.create("Someone New", "person", NOW, is_label=False)
    assert masses[0] == 3 ** -0.5
    assert masses[-1] == 12 ** -0.5 + 3 ** -0.5


def test_a_neighbour_meeting_new_entities_changes_the_mass():
    ws = WorkingSet(bank_entities=20)
    for eid in ("sarah", "alex"):
        ws.load(WorkingEntity(id=eid, canonical=eid, type="person", first=NOW, last=NOW,
                              names={eid: False}, mentions=1))
    ws.cooccur(["sarah", "alex"])
    assert ws.candidate("sarah", focus=frozenset()).neighbour_mass == 1.0
    for i in range(10):  # alex meets ten others: its weight for Sarah falls to 1/sqrt(11)
        other = ws.create(f"Person {i}", "person", NOW, is_label=False)
        ws.cooccur(["alex", other])
    hub = hub_degree(ws.bank_entities, DEFAULT_POLICY)
    assert ws.degree_of("alex") == 11 and hub == 12.0
    assert ws.candidate("sarah", focus=frozenset()).neighbour_mass == 11 ** -0.5
