"""The pure parts of the vector-store port: ids, stored payloads, the filter plan."""

from __future__ import annotations

import uuid

import pytest

from app.store.vectors import (
    CountAtMost,
    IsEmpty,
    Match,
    MatchAny,
    VectorFilter,
    VectorPayload,
    canonical_id,
    filter_plan,
    payload_dict,
)


def test_canonical_id_lowercases_and_hyphenates_uuids() -> None:
    memory_id = uuid.uuid4()

    assert canonical_id(memory_id.hex.upper()) == str(memory_id)


def test_canonical_id_refuses_what_qdrant_cannot_store() -> None:
    with pytest.raises(ValueError, match="'fact-1'"):
        canonical_id("fact-1")


def test_payload_leaves_out_unknown_times_and_repeated_tags() -> None:
    payload = VectorPayload(bank_id="b", fact_type="world", tags=("x", "y", "x"), occurred_start=5)

    assert payload_dict(payload) == {
        "bank_id": "b",
        "fact_type": "world",
        "state": "valid",
        "tags": ["x", "y"],
        "occurred_start": 5.0,
    }


def test_every_plan_starts_with_the_bank_and_the_default_valid_state() -> None:
    assert filter_plan(VectorFilter(bank_id="b")) == (
        Match("bank_id", "b"),
        Match("state", "valid"),
    )


def test_exact_tags_count_distinct_query_tags() -> None:
    plan = filter_plan(VectorFilter(bank_id="b", tags=("x", "y", "x"), tags_match="exact"))

    assert plan is not None
    assert plan[2:] == (Match("tags", "x"), Match("tags", "y"), CountAtMost("tags", 2))


def test_no_query_tags_means_no_tag_condition() -> None:
    for tags in (None, ()):
        plan = filter_plan(VectorFilter(bank_id="b", tags=tags, tags_match="exact"))
        assert plan is not None
        assert all(getattr(c, "key", None) != "tags" for c in plan)


def test_any_keeps_untagged_points() -> None:
    plan = filter_plan(VectorFilter(bank_id="b", tags=("x", "y")))

    assert plan is not None
    (tag_condition,) = plan[2:]
    assert tag_condition.conditions == (MatchAny("tags", ("x", "y")), IsEmpty("tags"))  # type: ignore[union-attr]


def test_empty_type_or_state_lists_match_nothing() -> None:
    assert filter_plan(VectorFilter(bank_id="b", fact_types=())) is None
    assert filter_plan(VectorFilter(bank_id="b", states=())) is None
