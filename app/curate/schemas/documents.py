"""Documents as the API lists and shows them, and what deleting or reprocessing one did."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec


class DocumentSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A document as listed: its item fields and what it produced."""

    id: str
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


class DocumentChunk(msgspec.Struct, frozen=True, kw_only=True):
    """One active chunk of a document."""

    id: str
    index: int
    text: str
    memory_count: int = 0


class Document(DocumentSummary, frozen=True, kw_only=True):
    """A document with its original text and active chunks, in order."""

    original_text: str = ""
    chunks: list[DocumentChunk] = msgspec.field(default_factory=list)


class DocumentPage(msgspec.Struct, frozen=True):
    """One page of documents, newest first."""

    items: list[DocumentSummary]
    total: int
    limit: int
    offset: int


class DocumentDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """What deleting a document removed."""

    bank_id: str
    document_id: str
    deleted_memories: int
    deleted_entities: int


class DocumentReprocessed(msgspec.Struct, frozen=True, kw_only=True):
    """What reprocessing a document did."""

    bank_id: str
    document_id: str
    extraction_mode: str
    deleted_memories: int
    memory_ids: list[str]
    warnings: list[str] = msgspec.field(default_factory=list)
