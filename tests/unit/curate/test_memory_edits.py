"""Pure parts of memory curation: what a PATCH changes, which mentions survive a text edit."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from msgspec import UNSET

from app.curate.memories import _lucene, _MemoryRow, _named_in, _plan, _StoredMemory
from app.curate.schemas.memories import MemoryEntity, MemoryUpdate
from app.errors import InvalidInput
from app.retain.extract.extracted import ExtractedEntity
from app.retain.schemas import EntityHint
from app.store.search_keys import bank_key

ALICE = MemoryEntity(id="e-alice", name="Alice Novak", mention="Alice", type="person")
PARIS = MemoryEntity(id="e-paris", name="Paris", mention="Paris", type="place")


def stored(**overrides: object) -> _MemoryRow:
    memory = _StoredMemory(
        id="m1",
        text="Alice moved to Paris.",
        fact_type="world",
        occurred_start=datetime(2024, 3, 1, tzinfo=UTC),
        occurred_end=datetime(2024, 3, 1, tzinfo=UTC),
        mentioned_at=datetime(2024, 3, 1, tzinfo=UTC),
    )
    for key, value in overrides.items():
        setattr(memory, key, value)
    return _MemoryRow(memory=memory, entities=[ALICE, PARIS])


@pytest.mark.parametrize(
    ("text", "name", "found"),
    [
        ("Alice moved to Berlin.", "Alice", True),
        ("ALICE moved.", "alice", True),
        ("Malice moved.", "Alice", False),  # whole words only
        ("Room 101 is free", "Room 10", False),
        ("海洋探测器1号（简称海探1）发射", "海探1", True),  # no word boundaries in CJK
        ("Ｏｃｅａｎ Probe", "Ocean", True),  # full width folds
        ("anything", "", False),
    ],
)
def test_named_in_matches_whole_names_case_and_width_insensitively(
    text: str, name: str, found: bool
) -> None:
    assert _named_in(text, name) is found


def test_a_new_text_keeps_the_names_it_still_says_and_adds_found_ones() -> None:
    plan = _plan(
        stored(),
        MemoryUpdate(text="Alice moved to Berlin."),
        [ExtractedEntity(text="Alice", type="person"), ExtractedEntity(text="Berlin")],
    )
    assert plan.text_changed and plan.vector_changed
    assert set(plan.kept) == {"e-alice"}
    assert plan.mentions is not None
    assert [m.text for m in plan.mentions] == ["Alice", "Alice", "Berlin"]
    assert plan.before == {"text": "Alice moved to Paris."}
    assert plan.after == {"text": "Alice moved to Berlin."}


def test_sent_entities_replace_mentions_and_keep_known_identities() -> None:
    plan = _plan(stored(), MemoryUpdate(entities=[EntityHint(text="alice novak")]), None)
    assert plan.mentions is not None
    assert [m.text for m in plan.mentions] == ["alice novak"]
    assert plan.kept["e-alice"].mention == "alice novak"
    assert not plan.text_changed and not plan.vector_changed


def test_values_equal_to_the_stored_ones_change_nothing() -> None:
    plan = _plan(stored(), MemoryUpdate(text="Alice moved to Paris.", state="valid"), None)
    assert plan.props == {} and not plan.state_changed and plan.mentions is None


def test_state_change_records_the_reason_and_previous_state() -> None:
    plan = _plan(stored(), MemoryUpdate(state="invalidated", reason="rumour"), None)
    assert plan.state_changed and plan.state == "invalidated" and plan.reason == "rumour"
    assert plan.before == {"state": "valid", "state_reason": None}
    assert plan.after == {"state": "invalidated", "state_reason": "rumour"}
    assert not plan.vector_changed


def test_times_are_utc_and_must_not_run_backwards() -> None:
    naive = datetime(2024, 3, 2, 12, 0)
    plan = _plan(stored(), MemoryUpdate(occurred_end=naive), None)
    assert plan.props["occurred_end"] == naive.replace(tzinfo=UTC)
    with pytest.raises(InvalidInput) as error:
        _plan(stored(), MemoryUpdate(occurred_end=datetime(2024, 2, 1, tzinfo=UTC)), None)
    assert error.value.extra == {
        "field": "occurred_end",
        "occurred_start": "2024-03-01 00:00:00+00:00",
        "occurred_end": "2024-02-01 00:00:00+00:00",
    }


def test_observations_keep_their_type() -> None:
    with pytest.raises(InvalidInput):
        _plan(stored(fact_type="observation"), MemoryUpdate(fact_type="world"), None)
    assert _plan(stored(), MemoryUpdate(fact_type="experience"), None).fact_type == "experience"


def test_text_search_is_scoped_by_bank_and_escaped() -> None:
    assert _lucene("b1", None) is None
    assert _lucene("b1", "   ") is None
    query = _lucene("b1", 'paris" OR bank_key:*')
    assert query is not None
    assert query.startswith(f"bank_key:{bank_key('b1')} AND (")
    # The user's quote, colon and star are escaped: no field or wildcard can be injected.
    assert 'text:(paris\\" or bank_key\\:\\*)' in query


def test_unset_fields_are_not_changes() -> None:
    assert MemoryUpdate().text is UNSET
