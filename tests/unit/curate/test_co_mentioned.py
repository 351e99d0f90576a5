"""Merging each entity's newest facts into a fact's co-mentioned list (pure, no database)."""

from __future__ import annotations

from datetime import UTC, datetime

from app.curate.browse import CoRow, merge_co_mentioned


def row(id_: str, day: int, name: str) -> CoRow:
    return CoRow(
        id=id_, text=f"fact {id_}", created_at=datetime(2024, 1, day, tzinfo=UTC), name=name
    )


def test_most_shared_first_then_newest_then_id_and_each_name_once() -> None:
    rows = [
        row("a", 1, "Paris"),
        row("b", 3, "Paris"),
        row("c", 3, "Paris"),
        row("a", 1, "Bob"),
        row("a", 1, "Bob"),  # the same entity reached twice counts once
        row("d", 2, "Bob"),
    ]
    merged = merge_co_mentioned(rows, 3)
    assert [(m.id, m.shared) for m in merged] == [
        ("a", ["Paris", "Bob"]),
        ("b", ["Paris"]),
        ("c", ["Paris"]),
    ]
    assert merge_co_mentioned([], 3) == []
