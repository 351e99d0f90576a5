"""Reading the recall statements' answers: one row holding a list, times as epoch milliseconds.

Every ``cypher/recall`` statement returns a single row with one collected list (the Python
driver spends ~50 µs per record but little per list item) and its times as ``epochMillis``
(hydrating a Neo4j ``DateTime`` costs ~45 µs, several times what a number costs).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any


def listed(rows: Sequence[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The list under ``key`` in the first (only) row; empty when there is no row."""
    if not rows:
        return []
    found: list[dict[str, Any]] = rows[0].get(key) or []
    return found


def from_epoch_ms(value: float | None) -> datetime | None:
    """A UTC datetime from epoch milliseconds (None stays None)."""
    if value is None:
        return None
    return datetime.fromtimestamp(value / 1000.0, UTC)
