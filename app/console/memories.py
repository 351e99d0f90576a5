"""Console pages for facts: the timeline with filters, one fact's page, editing and state."""

from __future__ import annotations

from typing import Any

from litestar import Controller, get, post
from litestar.response import Redirect, Template

from app.api.deps import BankId, ItemId
from app.console.common import (
    PAGE_SIZE,
    AnyRequest,
    choice,
    convert,
    cursor_of,
    cursor_paging,
    field,
    form,
    offset_of,
    query,
    redirect,
    render,
    runtime,
)
from app.curate.schemas.entities import EntityDetail
from app.curate.schemas.memories import MemoryEntity, MemoryFilter, MemoryUpdate
from app.errors import InvalidInput, NotFound

FACT_TYPES = ("world", "experience", "observation")
STATES = ("valid", "invalidated")
TAGS_MATCH = ("any", "all", "any_strict", "all_strict", "exact")


def memory_filter(request: AnyRequest) -> MemoryFilter:
    """The timeline's filters from the query string, checked as the API checks them."""
    fact_type = choice(request, "type", FACT_TYPES)
    state = choice(request, "state", STATES)
    tag = query(request, "tag", max_length=200)
    values: dict[str, Any] = {
        "types": [fact_type] if fact_type else None,
        "q": query(request, "q"),
        "states": [state] if state else None,
        "document_id": query(request, "document", max_length=512),
        "entity_id": query(request, "entity", max_length=256),
        "tags": [tag] if tag else None,
        "tags_match": choice(request, "tags_match", TAGS_MATCH) or "any_strict",
    }
    return convert(values, MemoryFilter)


def _unfiltered(where: MemoryFilter) -> bool:
    """Whether the timeline shows the whole bank (then its count comes from the index)."""
    return where == MemoryFilter(tags_match=where.tags_match)


class MemoryPages(Controller):
    """``/console/banks/{bank_id}/memories``."""

    path = "/banks/{bank_id:str}/memories"

    @get("/", name="console:memories")
    async def timeline(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Facts newest first, filtered, paged by cursor."""
        rt = runtime(request)
        where = memory_filter(request)
        page = await rt.memories.window(
            bank_id, where, limit=PAGE_SIZE, offset=offset_of(request), cursor=cursor_of(request)
        )
        # An exact total only where the index gives it; a filtered listing says "more".
        total = await rt.memories.count(bank_id, where) if _unfiltered(where) else None
        entity: MemoryEntity | EntityDetail | None = None
        if where.entity_id:
            # The page's facts name the entity (id and name): reading the entity itself would
            # gather its latest facts, which costs a hub's size.
            entity = next(
                (e for m in page.items for e in m.mentions if e.id == where.entity_id), None
            )
            if entity is None:
                try:
                    entity = await rt.entities.get(bank_id, where.entity_id, neighbours=0)
                except NotFound:
                    entity = None
        return render(
            request,
            "memories.html",
            page=page,
            where=where,
            entity=entity,
            paging=cursor_paging(
                request, shown=len(page.items), total=total, next_cursor=page.next_cursor
            ),
            fact_types=FACT_TYPES,
            states=STATES,
        )

    @get("/{memory_id:str}", name="console:memory")
    async def memory(self, request: AnyRequest, bank_id: BankId, memory_id: ItemId) -> Template:
        """A fact with its dates, entities, source, links and history."""
        rt = runtime(request)
        memory = await rt.memories.get(bank_id, memory_id)
        history = await rt.memories.history(bank_id, memory_id)
        links = await rt.browse.memory_links(bank_id, memory_id)
        chunk = None
        document = None
        if memory.document_id:
            try:
                document = await rt.documents.get(bank_id, memory.document_id)
            except NotFound:
                document = None
            if document is not None:
                chunk = next((c for c in document.chunks if c.id == memory.chunk_id), None)
        return render(
            request,
            "memory.html",
            memory=memory,
            history=history,
            links=links,
            document=document,
            chunk=chunk,
        )

    @post("/{memory_id:str}/edit", name="console:memory-edit")
    async def edit(self, request: AnyRequest, bank_id: BankId, memory_id: ItemId) -> Redirect:
        """Change the text (and context) with a reason; the fact is re-embedded and relinked."""
        data = await form(request)
        values: dict[str, Any] = {
            "text": field(data, "text", required=True),
            "reason": field(data, "reason", required=True),
        }
        if "context" in data:
            values["context"] = field(data, "context")
        patch = convert(values, MemoryUpdate)
        rt = runtime(request)
        before = await rt.memories.get(bank_id, memory_id)
        after = await rt.memories.update(bank_id, memory_id, patch)
        changed = (after.text, after.context) != (before.text, before.context)
        return redirect(
            f"/console/banks/{bank_id}/memories/{memory_id}", "edited" if changed else "unchanged"
        )

    @post("/{memory_id:str}/state", name="console:memory-state")
    async def state(self, request: AnyRequest, bank_id: BankId, memory_id: ItemId) -> Redirect:
        """Invalidate or restore a fact; the reason is required and recorded."""
        data = await form(request)
        state = field(data, "state", required=True)
        if state not in STATES:
            raise InvalidInput("state: valid or invalidated")
        reason = field(data, "reason", required=True)
        patch = convert({"state": state, "reason": reason}, MemoryUpdate)
        await runtime(request).memories.update(bank_id, memory_id, patch)
        notice = "invalidated" if state == "invalidated" else "restored"
        return redirect(f"/console/banks/{bank_id}/memories/{memory_id}", notice)
