"""Console pages for entities: the list, an entity's page, repairs and the audit list.

An entity's page shows its names with provenance, its facts and its neighbourhood as a graph;
merge, split and revert each take a reason, which goes into the audit record.
"""

from __future__ import annotations

from typing import cast

import msgspec
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
    paging,
    query,
    redirect,
    render,
    runtime,
)
from app.curate.schemas.entities import MergeRequest, RecordKind, RevertRequest, SplitRequest
from app.curate.schemas.memories import MemoryFilter
from app.errors import InvalidInput

# Neighbours drawn on an entity's page, and its facts per page.
GRAPH_NEIGHBOURS = 25
FACTS_PER_PAGE = 20
RECORD_KINDS = ("merge", "split", "revert")


class EntityPages(Controller):
    """``/console/banks/{bank_id}/entities``."""

    path = "/banks/{bank_id:str}/entities"

    @get("/", name="console:entities")
    async def entities(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Entities most mentioned first, filtered by name and type, paged."""
        name = query(request, "name", max_length=512)
        entity_type = query(request, "type", max_length=64)
        page = await runtime(request).entities.page(
            bank_id, name=name, entity_type=entity_type, limit=PAGE_SIZE, offset=offset_of(request)
        )
        return render(
            request,
            "entities.html",
            page=page,
            name=name or "",
            entity_type=entity_type or "",
            paging=paging(request, total=page.total),
        )

    @get("/{entity_id:str}", name="console:entity")
    async def entity(self, request: AnyRequest, bank_id: BankId, entity_id: ItemId) -> Template:
        """Names with provenance, facts (paged), neighbourhood graph, audit records."""
        rt = runtime(request)
        entity = await rt.entities.get(bank_id, entity_id, neighbours=0)
        facts = await rt.memories.window(
            bank_id,
            MemoryFilter(entity_id=entity_id),
            limit=FACTS_PER_PAGE,
            offset=offset_of(request),
            cursor=cursor_of(request),
        )
        graph = await rt.browse.neighbourhood(bank_id, entity_id, limit=GRAPH_NEIGHBOURS)
        records = await rt.entities.history(
            bank_id, kind=None, entity_id=entity_id, limit=10, offset=0
        )
        return render(
            request,
            "entity.html",
            entity=entity,
            facts=facts,
            graph=graph,
            graph_data={
                **msgspec.to_builtins(graph),
                "base": f"/console/banks/{bank_id}/entities/",
            },
            records=records,
            paging=cursor_paging(
                request, shown=len(facts.items), total=None, next_cursor=facts.next_cursor
            ),
        )

    @post("/{entity_id:str}/merge", name="console:entity-merge")
    async def merge(self, request: AnyRequest, bank_id: BankId, entity_id: ItemId) -> Redirect:
        """Fold this entity into another (by id), with a reason."""
        data = await form(request)
        into = field(data, "into", required=True)
        request_ = convert(
            {"into": into, "reason": field(data, "reason", required=True)}, MergeRequest
        )
        await runtime(request).entities.merge(bank_id, entity_id, request_)
        return redirect(f"/console/banks/{bank_id}/entities/{into}", "merged")

    @post("/{entity_id:str}/split", name="console:entity-split")
    async def split(self, request: AnyRequest, bank_id: BankId, entity_id: ItemId) -> Redirect:
        """Move the ticked facts' mentions to a new entity, with a reason."""
        data = await form(request)
        memory_ids = [m for m in data.getall("memory_ids", []) if isinstance(m, str) and m]
        if not memory_ids:
            raise InvalidInput("memory_ids: tick at least one fact to split off")
        request_ = convert(
            {
                "memory_ids": memory_ids,
                "name": field(data, "name"),
                "reason": field(data, "reason", required=True),
            },
            SplitRequest,
        )
        change = await runtime(request).entities.split(bank_id, entity_id, request_)
        target = change.record.created or entity_id
        return redirect(f"/console/banks/{bank_id}/entities/{target}", "split")


class AuditPages(Controller):
    """``/console/banks/{bank_id}/audit``: merges, splits and reverts, newest first."""

    path = "/banks/{bank_id:str}/audit"

    @get("/", name="console:audit")
    async def audit(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Audit records (filter by kind), paged, each active one with a revert form."""
        kind = choice(request, "kind", RECORD_KINDS)
        page = await runtime(request).entities.history(
            bank_id,
            kind=cast("RecordKind | None", kind),
            entity_id=None,
            limit=PAGE_SIZE,
            offset=offset_of(request),
        )
        return render(
            request,
            "audit.html",
            page=page,
            kind=kind or "",
            kinds=RECORD_KINDS,
            paging=paging(request, total=page.total),
        )

    @post("/{record_id:str}/revert", name="console:revert")
    async def revert(self, request: AnyRequest, bank_id: BankId, record_id: ItemId) -> Redirect:
        """Undo a merge or split exactly, with a reason (a 409 explains what blocks it)."""
        data = await form(request)
        request_ = convert({"reason": field(data, "reason", required=True)}, RevertRequest)
        await runtime(request).entities.revert(bank_id, record_id, request_)
        return redirect(f"/console/banks/{bank_id}/audit/", "reverted")
