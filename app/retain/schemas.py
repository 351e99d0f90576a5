"""What a client sends to retain, what it gets back, and how it follows async work (no I/O)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from app.domain.tags import Tag

DocumentId = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class EntityHint(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An entity the caller knows the item names; added to every fact of the item."""

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=512)]
    type: Annotated[str, msgspec.Meta(max_length=64)] | None = None


class RetainItem(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One conversation, message or document to remember."""

    content: str
    timestamp: datetime | None = None
    context: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    document_id: DocumentId | None = None
    metadata: dict[str, str] | None = None
    tags: list[Tag] | None = None
    entities: list[EntityHint] | None = None
    resolve_entities: bool = True


class RetainRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A batch of items; ``async`` returns an operation id at once and works in the background."""

    items: list[RetainItem]
    async_: bool = msgspec.field(default=False, name="async")


class Usage(msgspec.Struct, frozen=True):
    """LLM tokens spent (zero for the offline modes)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ItemOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What happened to one item."""

    index: int
    document_id: str
    status: str  # created | updated | unchanged
    memory_ids: list[str] = msgspec.field(default_factory=list)
    retired_memory_ids: list[str] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class RetainResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a retain request."""

    success: bool
    bank_id: str
    items_count: int
    memory_ids: list[str]
    items: list[ItemOutcome] = msgspec.field(default_factory=list)
    usage: Usage | None = None
    operation_id: str | None = None


OperationStatus = Literal["pending", "running", "completed", "failed"]


class ItemError(msgspec.Struct, frozen=True):
    """Why one item of an operation failed."""

    index: int
    error: str


class Operation(msgspec.Struct, frozen=True, kw_only=True):
    """An async retain as the API shows it."""

    id: str
    bank_id: str
    type: str
    status: OperationStatus
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    items_count: int = 0
    items_done: int = 0
    memories_count: int = 0
    attempts: int = 0
    errors: list[ItemError] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class OperationPage(msgspec.Struct, frozen=True):
    """One page of a bank's operations."""

    items: list[Operation]
    limit: int
    offset: int
