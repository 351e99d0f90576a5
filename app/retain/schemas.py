"""What a client sends to retain, what it gets back, and how it follows async work (no I/O)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from app.domain.banks import BANK_ID_PATTERN
from app.domain.defense import SecurityEvent
from app.domain.tags import Tag

DocumentId = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
# Metadata is flat text, bounded in keys and size (it is stored with every fact).
MetadataKey = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
MetadataValue = Annotated[str, msgspec.Meta(max_length=10_000)]
Metadata = Annotated[dict[MetadataKey, MetadataValue], msgspec.Meta(max_length=64)]
MAX_ITEM_TAGS = 64
MAX_ITEM_ENTITIES = 256

# Hindsight's request keys that Mnemo accepts (so its clients work unchanged); those Mnemo does
# not honour are named in the response's ``warnings`` (app/api/compat.py decides which).
ObservationScopeMode = Literal["per_tag", "combined", "all_combinations", "shared"]
ObservationScopes = ObservationScopeMode | list[list[str]]
UpdateMode = Literal["replace", "append"]


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
    metadata: Metadata | None = None
    tags: Annotated[list[Tag], msgspec.Meta(max_length=MAX_ITEM_TAGS)] | None = None
    entities: Annotated[list[EntityHint], msgspec.Meta(max_length=MAX_ITEM_ENTITIES)] | None = None
    resolve_entities: bool = True
    # Hindsight keys: how the item's observations are grouped, a named extraction strategy,
    # and whether a re-sent document replaces (Mnemo's way) or appends to the stored one.
    observation_scopes: ObservationScopes | None = None
    strategy: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    update_mode: UpdateMode | None = None


class RetainRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A batch of items; ``async`` returns an operation id at once and works in the background."""

    items: list[RetainItem]
    async_: bool = msgspec.field(default=False, name="async")
    # Hindsight keys: tags added to every item, and a caller-chosen id for an async retain.
    document_tags: list[Tag] | None = None
    operation_id: Annotated[str, msgspec.Meta(min_length=1, max_length=128)] | None = None


class Usage(msgspec.Struct, frozen=True):
    """LLM tokens spent (zero for the offline modes).

    ``input_tokens`` / ``output_tokens`` are Hindsight's names for the prompt and completion
    counts, filled from them.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "input_tokens", self.prompt_tokens)
        msgspec.structs.force_setattr(self, "output_tokens", self.completion_tokens)


class ItemOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What happened to one item."""

    index: int
    document_id: str
    status: str  # created | updated | unchanged
    memory_ids: list[str] = msgspec.field(default_factory=list)
    retired_memory_ids: list[str] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class RetainResponse(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to a retain request.

    ``async`` says whether the work was queued (then ``operation_id`` follows it and
    ``memory_ids`` is empty); ``warnings`` names request keys Mnemo accepted but does not honour.
    """

    success: bool
    bank_id: str
    items_count: int
    memory_ids: list[str]
    async_: bool = msgspec.field(default=False, name="async")
    items: list[ItemOutcome] = msgspec.field(default_factory=list)
    usage: Usage | None = None
    operation_id: str | None = None
    # What memory defense redacted or blocked (item indexes are the request's).
    security_events: list[SecurityEvent] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


# An operation as stored: queued, being worked, or finished either way.
OperationStatus = Literal["pending", "running", "completed", "failed"]
# The same states under Hindsight's names (its clients refuse "running").
OperationStatusView = Literal["pending", "processing", "completed", "failed"]


def status_view(status: OperationStatus) -> OperationStatusView:
    """The status as the API shows it: ``running`` is Hindsight's ``processing``."""
    if status == "running":
        return "processing"
    return status


class ItemError(msgspec.Struct, frozen=True):
    """Why one item of an operation failed."""

    index: int
    error: str


class Operation(msgspec.Struct, frozen=True, kw_only=True):
    """An async retain as the API shows it.

    ``operation_id``, ``task_type``, ``operation_type``, ``updated_at`` and ``error_message``
    are Hindsight's names, derived from Mnemo's fields (``error_message`` joins the item errors).
    """

    id: str
    bank_id: str
    type: str
    status: OperationStatusView
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    items_count: int = 0
    items_done: int = 0
    memories_count: int = 0
    attempts: int = 0
    errors: list[ItemError] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    operation_id: str = ""
    task_type: str = ""
    operation_type: str = ""
    updated_at: datetime | None = None
    completed_at: datetime | None = None
    error_message: str | None = None

    def __post_init__(self) -> None:
        derived = {
            "operation_id": self.id,
            "task_type": self.type,
            "operation_type": self.type,
            "updated_at": self.finished_at or self.started_at or self.created_at,
            "completed_at": self.finished_at,
            "error_message": "; ".join(f"item {e.index}: {e.error}" for e in self.errors) or None,
        }
        for name, value in derived.items():
            msgspec.structs.force_setattr(self, name, value)


class OperationPage(msgspec.Struct, frozen=True, kw_only=True):
    """One page of a bank's operations, newest first (Hindsight's shape)."""

    bank_id: str
    operations: list[Operation]
    total: int
    limit: int
    offset: int


class ReconcileRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Which banks to reconcile: one, or every bank when ``bank_id`` is absent."""

    bank_id: Annotated[str, msgspec.Meta(pattern=BANK_ID_PATTERN)] | None = None
