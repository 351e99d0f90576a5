"""Memories: ``/v1/default/banks/{bank_id}/memories/list``, ``.../memories/{id}`` and its history.

Retain (``POST .../memories``) lives in app/api/memories.py and recall (``POST
.../memories/recall``) in app/api/recall.py; the paths here never collide with them.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, patch
from litestar.params import JSONBody, QueryParameter

from app.api.deps import BankId, ItemId, Limit, Memories, Offset
from app.curate.schemas.memories import (
    Memory,
    MemoryFilter,
    MemoryHistory,
    MemoryPage,
    MemoryUpdate,
)
from app.domain.facts import FactType, MemoryState
from app.domain.tags import TagsMatch

FactTypes = Annotated[
    list[FactType] | None,
    QueryParameter(name="type", description="fact types to keep (repeat for several)"),
]
TextQuery = Annotated[
    str | None,
    QueryParameter(max_length=2000, description="full-text search over text and entity names"),
]
# ``state`` is a name Litestar reserves for the app state, hence the alias.
StateQuery = Annotated[
    MemoryState | None,
    QueryParameter(name="state", description="valid or invalidated (both when absent)"),
]
Tags = Annotated[list[str] | None, QueryParameter(description="tags (repeat for several)")]
DocumentQuery = Annotated[str | None, QueryParameter(description="facts of this document")]
EntityQuery = Annotated[str | None, QueryParameter(description="facts that mention this entity")]
TagsMatchQuery = Annotated[
    TagsMatch, QueryParameter(description="any, all, any_strict, all_strict or exact")
]


class MemoryItemController(Controller):
    """Inspect and curate a bank's facts."""

    path = "/v1/default/banks/{bank_id:str}/memories"
    tags = ["memories"]

    @get("/list", summary="List memories: filters, paging, newest first, with total")
    async def list_memories(
        self,
        bank_id: BankId,
        memories: Memories,
        fact_type: FactTypes = None,
        q: TextQuery = None,
        memory_state: StateQuery = None,
        document_id: DocumentQuery = None,
        entity_id: EntityQuery = None,
        tags: Tags = None,
        tags_match: TagsMatchQuery = "any",
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> MemoryPage:
        """Every filter applies; 404 when the bank does not exist."""
        where = MemoryFilter(
            types=tuple(fact_type) if fact_type else None,
            q=q,
            states=(memory_state,) if memory_state else None,
            document_id=document_id,
            entity_id=entity_id,
            tags=tuple(tags) if tags else None,
            tags_match=tags_match,
        )
        return await memories.page(bank_id, where, limit=limit, offset=offset)

    @get("/{memory_id:str}", summary="One memory, valid or invalidated")
    async def get_memory(self, bank_id: BankId, memory_id: ItemId, memories: Memories) -> Memory:
        """404 when the memory is not in this bank."""
        return await memories.get(bank_id, memory_id)

    @patch("/{memory_id:str}", summary="Edit a memory, or invalidate / restore it with a reason")
    async def patch_memory(
        self,
        bank_id: BankId,
        memory_id: ItemId,
        memories: Memories,
        data: JSONBody[MemoryUpdate],
    ) -> Memory:
        """At least one field; text edits re-embed and relink; the change is recorded."""
        return await memories.update(bank_id, memory_id, data)

    @get("/{memory_id:str}/history", summary="Every edit and state change of a memory")
    async def memory_history(
        self, bank_id: BankId, memory_id: ItemId, memories: Memories
    ) -> MemoryHistory:
        """Oldest first, each with its reason, time and previous values."""
        return await memories.history(bank_id, memory_id)
