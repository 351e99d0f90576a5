"""Keyset cursors for newest-first listings (pure).

A listing ordered by an indexed time reads the page after a cursor by seeking the index from
the cursor's key, so the page costs the same at any depth; ``offset`` alone would skip rows one
by one. A cursor is the sort key of the last row shown, opaque to clients: URL-safe base64 of a
JSON list of strings. The times stay the strings Neo4j printed, so the key round-trips exactly
(a datetime in Python would lose Neo4j's nanoseconds and break ties).
"""

from __future__ import annotations

import base64
import binascii

import msgspec

from app.errors import InvalidInput

# The seek start when no cursor is given: after every stored time.
LATEST = "9999-12-31T23:59:59.999999999Z"
# Stands for a missing secondary time in a sort key (sorts after every stored time, ascending).
EARLIEST = "0001-01-01T00:00:00Z"


def encode_cursor(key: list[str]) -> str:
    """The opaque cursor of a row's sort key."""
    return base64.urlsafe_b64encode(msgspec.json.encode(key)).decode().rstrip("=")


def decode_cursor(cursor: str, parts: int) -> list[str]:
    """The sort key a cursor carries; a cursor this listing never gave is a 400 naming it."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        key = msgspec.json.decode(raw, type=list[str])
    except (binascii.Error, ValueError, msgspec.DecodeError):
        key = []
    if len(key) != parts or not all(key) or len(cursor) > 1000:
        raise InvalidInput("cursor: not a cursor this listing returned")
    return key
