"""Bank events: their names, their envelope, and where features send them.

A feature that finishes something a subscriber may wait for (a retain, a consolidation, a
mental model refresh) hands an event to an :class:`EventSink`; the webhooks feature is the
sink that delivers them. Emitting never waits for a delivery.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Protocol, get_args

import msgspec

EventType = Literal["retain.completed", "consolidation.completed", "mental_model.refreshed"]
EVENT_TYPES: tuple[EventType, ...] = get_args(EventType)


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """What a subscriber receives: the event's id, type, bank, time and its data."""

    id: str
    type: EventType
    bank_id: str
    created_at: datetime
    data: dict[str, Any]


class EventSink(Protocol):
    """Where features send bank events (``app.webhooks.dispatch.Dispatcher``)."""

    def emit(self, bank_id: str, event_type: EventType, data: dict[str, Any]) -> None:
        """Queue the event and return at once."""
        ...


class NoEvents:
    """A sink that drops events (one-shot commands that serve no subscriber)."""

    def emit(self, bank_id: str, event_type: EventType, data: dict[str, Any]) -> None:
        """Drop the event."""
