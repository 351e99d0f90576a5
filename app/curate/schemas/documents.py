"""Documents as the API lists and shows them, and what deleting or reprocessing one did."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec


class DocumentSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A document as listed: its item fields and what it produced.

    ``memory_unit_count`` (= ``memory_count``) and ``document_metadata`` (= ``metadata``) are
    Hindsight's names.
    """

    id: str
    bank_id: str = ""
    content_hash: str | None = None
    tags: list[str] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] | None = None
    context: str | None = None
    timestamp: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    # Facts it produced, in any state, and the valid ones among them.
    memory_count: int = 0
    valid_memory_count: int = 0
    chunk_count: int = 0
    text_length: int = 0
    memory_unit_count: int = 0
    document_metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "memory_unit_count", self.memory_count)
        msgspec.structs.force_setattr(self, "document_metadata", self.metadata)


class DocumentChunk(msgspec.Struct, frozen=True, kw_only=True):
    """One active chunk of a document."""

    id: str
    index: int
    text: str
    memory_count: int = 0
    created_at: datetime | None = None


class Document(DocumentSummary, frozen=True, kw_only=True):
    """A document with its original text and active chunks, in order."""

    original_text: str = ""
    chunks: list[DocumentChunk] = msgspec.field(default_factory=list)


class DocumentPage(msgspec.Struct, frozen=True):
    """One page of documents, newest first.

    ``next_cursor``, when more documents follow, asks for the next page as ``cursor``.
    """

    items: list[DocumentSummary]
    total: int
    limit: int
    offset: int
    next_cursor: str | None = None


class ChunkView(msgspec.Struct, frozen=True, kw_only=True):
    """One active chunk of a document, in Hindsight's shape (``.../documents/{id}/chunks``)."""

    chunk_id: str
    document_id: str
    bank_id: str
    chunk_index: int
    chunk_text: str
    created_at: str
    memory_count: int = 0


class ChunkPage(msgspec.Struct, frozen=True):
    """One page of a document's chunks, in order."""

    items: list[ChunkView]
    total: int
    limit: int
    offset: int


class DocumentDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """What deleting a document removed.

    ``success``, ``message`` and ``memory_units_deleted`` (= ``deleted_memories``) are
    Hindsight's names.
    """

    bank_id: str
    document_id: str
    deleted_memories: int
    deleted_entities: int
    success: bool = True
    message: str = ""
    memory_units_deleted: int = 0

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "memory_units_deleted", self.deleted_memories)
        msgspec.structs.force_setattr(
            self,
            "message",
            f"document {self.document_id!r} deleted with {self.deleted_memories} memories",
        )


class DocumentReprocessed(msgspec.Struct, frozen=True, kw_only=True):
    """What reprocessing a document did."""

    bank_id: str
    document_id: str
    extraction_mode: str
    deleted_memories: int
    memory_ids: list[str]
    warnings: list[str] = msgspec.field(default_factory=list)
    # Hindsight's names: reprocessing runs synchronously in Mnemo, so there is no operation to
    # follow (``operation_id`` is empty) and ``items_count`` is the one document.
    success: bool = True
    operation_id: str = ""
    items_count: int = 1
