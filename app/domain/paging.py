"""Paging bounds shared by every listing (pure)."""

from __future__ import annotations

# Offsets stay far below 2**31 - 1000, which Neo4j's list and paging arithmetic must not pass.
MAX_OFFSET = 1_000_000_000


def offset_of_cursor(cursor: str) -> int | None:
    """The offset a numeric cursor carries, or None when it is not one this service gives.

    ``str.isdigit`` would pass superscripts and other digits ``int`` refuses; only ASCII
    decimals within the bound are cursors.
    """
    if not (cursor.isascii() and cursor.isdecimal()) or len(cursor) > 10:
        return None
    value = int(cursor)
    return value if value <= MAX_OFFSET else None
