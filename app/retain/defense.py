"""Memory defense at the door of retain: items are screened before anything is stored.

Each item's content, context, metadata values and entity hints go through the bank's
detectors (``app.domain.defense``). Redacted text replaces the original in the item, so the
graph, the vectors, the document's original text, an async operation's stored request and any
log line only ever see ``[REDACTED:TYPE]``. An item with a blocked finding is dropped whole;
when every item is dropped the request is a 422 listing the violations. What was found is kept
as ``:SecurityEvent`` nodes of the bank (detector, field, count — never the text).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec

from app.domain.defense import (
    DefenseConfig,
    SecurityEvent,
    events_for,
    screen,
    violation_of,
)
from app.errors import Blocked
from app.retain.schemas import EntityHint, RetainItem, RetainResponse
from app.store.graph import Graph


class ScreenedItems(msgspec.Struct, frozen=True, kw_only=True):
    """The items to store (redacted) with their original indexes, and what was found."""

    items: list[RetainItem]
    indexes: list[int]
    events: list[SecurityEvent]

    def answer(self, response: RetainResponse) -> RetainResponse:
        """``response`` of the kept items, with original item indexes and the events."""
        if not self.events:
            return response
        outcomes = [
            msgspec.structs.replace(o, index=self.indexes[o.index])
            if o.index < len(self.indexes)
            else o
            for o in response.items
        ]
        return msgspec.structs.replace(response, items=outcomes, security_events=self.events)


def screen_items(
    items: Sequence[RetainItem], config: DefenseConfig, now: datetime | None = None
) -> ScreenedItems:
    """Apply the bank's defense to every item (pure; see the module docstring)."""
    now = now or datetime.now(UTC)
    kept: list[RetainItem] = []
    indexes: list[int] = []
    events: list[SecurityEvent] = []
    for index, item in enumerate(items):
        screened_item, item_events = _screen_item(index, item, config, now)
        events.extend(item_events)
        if any(e.action == "blocked" for e in item_events):
            continue
        kept.append(screened_item)
        indexes.append(index)
    return ScreenedItems(items=kept, indexes=indexes, events=events)


def refuse_if_all_blocked(screened: ScreenedItems) -> None:
    """422 with the violations when no item is left to store."""
    if screened.items:
        return
    violations = [violation_of(e) for e in screened.events if e.action == "blocked"]
    raise Blocked(
        f"every item was blocked by the bank's memory defense ({len(violations)} violations)",
        extra={"violations": msgspec.to_builtins(violations)},
    )


async def record_events(graph: Graph, bank_id: str, events: Sequence[SecurityEvent]) -> None:
    """Keep the events as nodes of the bank."""
    if events:
        await graph.run(
            "security/record_events",
            {"bank_id": bank_id, "events": msgspec.to_builtins(list(events))},
        )


def _screen_item(
    index: int, item: RetainItem, config: DefenseConfig, now: datetime
) -> tuple[RetainItem, list[SecurityEvent]]:
    events: list[SecurityEvent] = []

    def clean(text: str, field: str) -> str:
        screened = screen(text, config)
        events.extend(
            events_for(
                screened,
                field=field,
                index=index,
                at=now,
                source="retain",
                new_id=lambda: str(uuid.uuid4()),
                document_id=item.document_id,
            )
        )
        return screened.text

    changes: dict[str, object] = {"content": clean(item.content, "content")}
    if item.context:
        changes["context"] = clean(item.context, "context")
    if item.metadata:
        changes["metadata"] = {k: clean(v, f"metadata.{k}") for k, v in item.metadata.items()}
    if item.entities:
        changes["entities"] = [
            EntityHint(text=clean(e.text, f"entities[{i}].text"), type=e.type)
            for i, e in enumerate(item.entities)
        ]
    if not events:
        return item, events
    return msgspec.structs.replace(item, **changes), events
