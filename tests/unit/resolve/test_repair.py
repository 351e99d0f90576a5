from datetime import UTC, datetime, timedelta

import pytest

from app.resolve.repair import (
    MAX_NAME_MEMORY_IDS,
    EntityBrief,
    MentionUse,
    StoredClaim,
    TrimRecord,
    keep_and_gone,
    merge_refusal,
    most_used_surface,
    name_filter,
    names_of,
    plan_split,
    restore_trims,
    trim_records,
)
from app.store.search_keys import bank_key

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def claim(ref: str, key: str, *memory_ids: str, **kw: object) -> StoredClaim:
    return StoredClaim(
        ref=ref,
        key=key,
        text=str(kw.pop("text", key.title())),
        memory_ids=memory_ids,
        first_memory_id=memory_ids[0] if memory_ids else None,
        **kw,  # type: ignore[arg-type]
    )


# -- names_of -----------------------------------------------------------------------------------


def test_claims_on_one_name_show_as_one_name_with_everything_joined():
    names = names_of(
        [
            claim(
                "r2",
                "alex",
                "m3",
                at=T0 + timedelta(days=2),
                surfaces=("ALEX",),
                merge_id="g1",
                source="mention",
            ),
            claim("r1", "alex", "m1", "m3", at=T0, surfaces=("Alex",), source="alias", stated=True),
        ],
        canonical_key="alex",
    )
    [alex] = names
    assert alex.source == "alias"  # the oldest claim's
    assert alex.stated is True
    assert alex.surfaces == ["Alex", "ALEX"]
    assert alex.memory_ids == ["m1", "m3"] and alex.memory_count == 2
    assert alex.first_seen_at == T0


def test_the_canonical_name_comes_first_then_oldest_first():
    names = names_of(
        [
            claim("a", "ak", "m1", at=T0),
            claim("b", "alex kim", "m2", at=T0 + timedelta(days=1)),
            claim("c", "curated", at=None),
        ],
        canonical_key="alex kim",
    )
    assert [n.key for n in names] == ["alex kim", "ak", "curated"]


def test_memory_ids_are_capped_but_counted_in_full():
    ids = [f"m{i}" for i in range(MAX_NAME_MEMORY_IDS + 5)]
    [name] = names_of([claim("r", "hub", *ids, at=T0)], canonical_key="hub")
    assert len(name.memory_ids) == MAX_NAME_MEMORY_IDS
    assert name.memory_count == MAX_NAME_MEMORY_IDS + 5


# -- merge checks --------------------------------------------------------------------------------


def brief(eid: str, *, label: str | None = None, kind: str = "person", n: int = 1) -> EntityBrief:
    return EntityBrief(
        id=eid, canonical_name=eid, type=label or kind, is_label=label is not None, mention_count=n
    )


def test_merging_an_entity_into_itself_is_refused():
    assert "itself" in (merge_refusal(brief("a"), brief("a")) or "")


def test_labels_merge_only_with_labels_of_the_same_vocabulary():
    assert merge_refusal(brief("a", label="pedagogy"), brief("b", label="Pedagogy")) is None
    assert "vocabulary" in (
        merge_refusal(brief("a", label="pedagogy"), brief("b", label="level")) or ""
    )
    assert "vocabulary" in (merge_refusal(brief("a"), brief("b", label="pedagogy")) or "")
    assert "vocabulary" in (merge_refusal(brief("a", label="pedagogy"), brief("b")) or "")
    assert merge_refusal(brief("a", kind="organization"), brief("b", kind="product")) is None


def test_the_entity_with_more_mentions_survives_ties_to_the_smaller_id():
    assert [e.id for e in keep_and_gone(brief("a", n=1), brief("b", n=3))] == ["b", "a"]
    assert [e.id for e in keep_and_gone(brief("b", n=2), brief("a", n=2))] == ["a", "b"]


# -- split ---------------------------------------------------------------------------------------


def test_most_used_surface_counts_facts_then_prefers_the_longer():
    uses = [
        MentionUse("m1", "Alex"),
        MentionUse("m2", "Alex"),
        MentionUse("m2", "Alex"),
        MentionUse("m3", "Alex M."),
    ]
    assert most_used_surface(uses) == "Alex"
    assert most_used_surface([MentionUse("m1", "Al"), MentionUse("m2", "Alex")]) == "Alex"
    with pytest.raises(ValueError):
        most_used_surface([])


def test_split_moves_claims_made_only_by_its_facts_and_trims_shared_ones():
    claims = [
        claim("k-canonical", "alex kim", "m1", "m2", "m3", at=T0, surfaces=("Alex Kim",)),
        claim("k-alex", "alex", "m2", "m3", "m4", at=T0, surfaces=("Alex",)),
        claim("k-ak", "ak", "m4", at=T0, stated=True, source="alias"),
        claim("k-old", "a. kim", "m1", at=T0),
    ]
    uses = [
        MentionUse("m3", "Alex Kim", T0 + timedelta(days=3)),
        MentionUse("m4", "Alex", T0 + timedelta(days=4)),
    ]
    plan = plan_split(claims, uses, source_key="alex kim", name=None, now=T0)
    assert plan.move == ("k-ak",)  # only m4 made it
    trims = {t.ref: t for t in plan.trims}
    assert set(trims) == {"k-canonical", "k-alex"}
    assert trims["k-canonical"].memory_ids == ("m1", "m2")
    assert trims["k-alex"].memory_ids == ("m2",)
    assert trims["k-alex"].first_memory_id == "m2"
    new = {c.key: c for c in plan.new_claims}
    assert new["alex kim"].memory_ids == ("m3",)
    assert new["alex kim"].at == T0 + timedelta(days=3)
    assert new["alex"].memory_ids == ("m3", "m4") and new["alex"].surfaces == ("Alex",)
    assert "a. kim" not in new  # m1 stays with the source
    # Nobody named it: the most used surface (one fact each; the longer wins).
    assert plan.canonical == "Alex Kim" and plan.canonical_key == "alex kim"
    records = trim_records(plan)
    assert records[0].memory_ids == ("m1", "m2", "m3")


def test_a_claim_wholly_in_the_split_moves_unless_it_is_the_source_canonical_name():
    claims = [claim("k1", "sam", "m2", at=T0), claim("k2", "sam reyes", "m1", "m2", at=T0)]
    plan = plan_split(claims, [MentionUse("m2", "Sam", T0)], source_key="sam", name=None, now=T0)
    assert plan.move == ()
    assert {t.ref for t in plan.trims} == {"k1", "k2"}
    assert {t.ref: t.memory_ids for t in plan.trims} == {"k1": (), "k2": ("m1",)}


def test_a_curator_name_becomes_a_stated_curator_claim_and_the_canonical_name():
    plan = plan_split(
        [claim("k", "alex", "m1", "m2", at=T0)],
        [MentionUse("m2", "Alex", T0)],
        source_key="alex",
        name="  Alex Moreno ",
        now=T0,
    )
    assert plan.canonical == "Alex Moreno"
    curator = {c.key: c for c in plan.new_claims}["alex moreno"]
    assert (curator.source, curator.stated, curator.memory_ids, curator.at) == (
        "curator",
        True,
        (),
        T0,
    )
    with pytest.raises(ValueError):
        plan_split([], [MentionUse("m1", "Alex", T0)], source_key="x", name="!!!", now=T0)


def test_a_surface_without_a_claim_still_becomes_a_name():
    plan = plan_split(
        [],
        [MentionUse("m1", "Kai", T0), MentionUse("m2", "Kai", T0)],
        source_key="x",
        name=None,
        now=T0,
    )
    [kai] = plan.new_claims
    assert (kai.key, kai.memory_ids, kai.source) == ("kai", ("m1", "m2"), "mention")


def test_restoring_trims_brings_back_the_order_and_keeps_later_facts():
    before = claim(
        "old-ref",
        "alex kim",
        "m1",
        "m2",
        "m3",
        merge_id="g",
        moved_from="x",
        merge_stack=("",),
        moved_stack=("",),
    )
    record = TrimRecord(
        identity=before.identity, memory_ids=("m1", "m2", "m3"), first_memory_id="m1"
    )
    now = claim(
        "new-ref",
        "alex kim",
        "m2",
        "m9",
        merge_id="g",
        moved_from="x",
        merge_stack=("",),
        moved_stack=("",),
    )
    other = claim("other", "alex kim", "m5")  # another claim on the same name: untouched
    [update] = restore_trims([now, other], [record])
    assert update.ref == "new-ref"
    assert update.memory_ids == ("m1", "m2", "m3", "m9")
    assert update.first_memory_id == "m1"
    [dropped] = restore_trims([now], [record], gone={"m1"})
    assert dropped.memory_ids == ("m2", "m3", "m9") and dropped.first_memory_id == "m2"
    assert restore_trims([other], [record]) == []


def test_trim_records_survive_a_json_round_trip():
    import msgspec

    record = TrimRecord(
        identity=("k", "", "", ("a",), ("b",)), memory_ids=("m1",), first_memory_id="m1"
    )
    decoded = msgspec.json.decode(msgspec.json.encode([record]), type=list[TrimRecord])
    current = claim("r", "k", "m2", merge_stack=("a",), moved_stack=("b",))
    assert restore_trims([current], decoded)[0].memory_ids == ("m1", "m2")


# -- listing filter ------------------------------------------------------------------------------


def test_name_filter_asks_for_every_word_and_a_prefix_of_the_last():
    key, lucene = name_filter("b1", "Sarah  Ch")
    assert key == "sarah ch"
    assert lucene == f"bank_key:{bank_key('b1')} AND search_text:sarah AND search_text:(ch OR ch*)"


def test_name_filter_escapes_and_folds_user_text():
    _, lucene = name_filter("b1", "İstanbul AND (x)")
    assert lucene is not None and "istanbul" in lucene
    assert " and" in lucene.lower() and "(x)" not in lucene
    assert name_filter("b1", "!!!") == ("", None)
