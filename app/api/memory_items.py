"""Memories: ``/v1/default/banks/{bank_id}/memories/list``, ``.../memories/{id}`` and its history.

Retain (``POST .../memories``) lives in app/api/memories.py and recall (``POST
.../memories/recall``) in app/api/recall.py; the paths here never collide with them.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, delete, get, patch
from litestar.params import JSONBody, QueryParameter

from app.api.compat import not_honoured
from app.api.deps import (
    BankId,
    Consolidation,
    Cursor,
    ItemId,
    Limit,
    Memories,
    Offset,
    RuntimeDep,
)
from app.consolidate.schemas import ObservationsDeleted
from app.curate.schemas.memories import (
    Memory,
    MemoryFilter,
    MemoryHistory,
    MemoryPage,
    MemoryUpdate,
    TagPage,
)
from app.domain.facts import ConsolidationState, FactType, MemoryState
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
ConsolidationStateQuery = Annotated[
    ConsolidationState | None,
    QueryParameter(
        name="consolidation_state",
        description="facts pending, done or failed in consolidation (observations have none)",
    ),
]
TagsMatchQuery = Annotated[
    TagsMatch, QueryParameter(description="any, all, any_strict, all_strict or exact")
]
# Hindsight's listing filters Mnemo does not apply yet (named in the answer's warnings).
HindsightFilter = Annotated[
    str | None, QueryParameter(description="Hindsight filter: accepted, not applied (warned)")
]


class MemoryItemController(Controller):
    """Inspect and curate a bank's facts."""

    path = "/v1/default/banks/{bank_id:str}/memories"
    tags = ["memories"]

    @get(
        "/list",
        operation_id="list_memories",
        summary="List memories: filters, paging, newest first, with total",
    )
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
        consolidation_state: ConsolidationStateQuery = None,
        limit: Limit = 100,
        offset: Offset = 0,
        cursor: Cursor = None,
        time_field: HindsightFilter = None,
        start_date: HindsightFilter = None,
        end_date: HindsightFilter = None,
    ) -> MemoryPage:
        """Every filter applies; ``cursor`` (a ``next_cursor``) continues where a page ended."""
        sent = {
            "time_field": time_field,
            "start_date": start_date,
            "end_date": end_date,
        }
        warnings = [
            not_honoured(k, "not a Mnemo listing filter") for k, v in sent.items() if v is not None
        ]
        where = MemoryFilter(
            types=tuple(fact_type) if fact_type else None,
            q=q,
            states=(memory_state,) if memory_state else None,
            document_id=document_id,
            entity_id=entity_id,
            tags=tuple(tags) if tags else None,
            tags_match=tags_match,
            consolidation_states=(consolidation_state,) if consolidation_state else None,
        )
        page = await memories.page(bank_id, where, limit=limit, offset=offset, cursor=cursor)
        return msgspec.structs.replace(page, warnings=warnings) if warnings else page

    @get("/{memory_id:str}", operation_id="get_memory", summary="One memory, valid or invalidated")
    async def get_memory(self, bank_id: BankId, memory_id: ItemId, memories: Memories) -> Memory:
        """404 when the memory is not in this bank."""
        return await memories.get(bank_id, memory_id)

    @patch(
        "/{memory_id:str}",
        operation_id="update_memory",
        summary="Edit a memory, or invalidate / restore it (an observation: state only)",
    )
    async def patch_memory(
        self,
        bank_id: BankId,
        memory_id: ItemId,
        memories: Memories,
        data: JSONBody[MemoryUpdate],
    ) -> Memory:
        """At least one field; text edits re-embed and relink; the change is recorded."""
        return await memories.update(bank_id, memory_id, data)

    @get(
        "/{memory_id:str}/history",
        operation_id="get_observation_history",
        summary="Every edit and state change of a memory",
    )
    async def memory_history(
        self, bank_id: BankId, memory_id: ItemId, memories: Memories
    ) -> MemoryHistory:
        """Oldest first, each with its reason, time and previous values."""
        return await memories.history(bank_id, memory_id)

    @delete(
        "/{memory_id:str}/observations",
        status_code=200,
        operation_id="clear_memory_observations",
        summary="Delete the observations derived from a memory (it is consolidated again)",
    )
    async def clear_observations(
        self, bank_id: BankId, memory_id: ItemId, consolidation: Consolidation, runtime: RuntimeDep
    ) -> ObservationsDeleted:
        """404 when the memory is not in this bank."""
        cleared = await consolidation.clear_observations(bank_id, memory_id)
        runtime.worker.nudge()
        return cleared


TagQuery = Annotated[
    str | None,
    QueryParameter(name="q", max_length=200, description="tags containing this text"),
]


class TagController(Controller):
    """The tags a bank's memories carry."""

    path = "/v1/default/banks/{bank_id:str}/tags"
    tags = ["memories"]

    @get("/", operation_id="list_tags", summary="A bank's tags with counts, most used first")
    async def list_tags(
        self,
        bank_id: BankId,
        memories: Memories,
        q: TagQuery = None,
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> TagPage:
        """Tags of valid memories; 404 when the bank does not exist."""
        return await memories.tags(
            bank_id, q=(q or "").strip("*") or None, limit=limit, offset=offset
        )
