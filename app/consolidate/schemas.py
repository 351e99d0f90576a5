"""What the consolidation endpoints answer (Hindsight's field names)."""

from __future__ import annotations

import msgspec


class ConsolidationQueued(msgspec.Struct, frozen=True, kw_only=True):
    """A consolidation run was queued; ``deduplicated`` when it is the one already queued."""

    operation_id: str
    deduplicated: bool = False


class ObservationsDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """How many observations derived from a fact were deleted."""

    deleted_count: int


class BankObservationsCleared(msgspec.Struct, frozen=True, kw_only=True):
    """``DELETE .../banks/{id}/observations`` (Hindsight's ``DeleteResponse``)."""

    success: bool = True
    message: str | None = None
    deleted_count: int = 0
