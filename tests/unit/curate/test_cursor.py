"""Keyset cursors: a row's sort key round-trips exactly; anything else is a 400 naming it."""

from __future__ import annotations

import pytest

from app.curate.cursor import decode_cursor, encode_cursor
from app.errors import InvalidInput


def test_a_key_round_trips_exactly_nanoseconds_and_all() -> None:
    key = ["2026-12-01T20:56:36.123456789Z", "0001-01-01T00:00:00Z", "a/b c?d=é"]
    cursor = encode_cursor(key)
    assert decode_cursor(cursor, 3) == key
    assert all(c.isalnum() or c in "-_" for c in cursor)  # safe in a URL as it is


@pytest.mark.parametrize(
    "cursor",
    ["", "nope", "!!!", encode_cursor(["only", "two"]), encode_cursor(["a", "", "c"]), "x" * 1001],
)
def test_a_cursor_the_listing_never_gave_is_invalid_input_naming_it(cursor: str) -> None:
    with pytest.raises(InvalidInput, match="cursor"):
        decode_cursor(cursor, 3)
