"""Console pages for documents: the list, chunks beside their facts, delete and reprocess."""

from __future__ import annotations

from collections import defaultdict

from litestar import Controller, get, post
from litestar.response import Redirect, Template

from app.api.deps import BankId, ItemId
from app.console.common import (
    PAGE_SIZE,
    AnyRequest,
    cursor_of,
    cursor_paging,
    offset_of,
    paging,
    redirect,
    render,
    runtime,
)
from app.curate.schemas.memories import Memory, MemoryFilter

# Chunks per page of a document, and the facts read for them (a cap: a note says when a
# document holds more).
CHUNKS_PER_PAGE = 10
FACTS_PER_DOCUMENT = 1000


class DocumentPages(Controller):
    """``/console/banks/{bank_id}/documents``."""

    path = "/banks/{bank_id:str}/documents"

    @get("/", name="console:documents")
    async def documents(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Documents newest first, paged, with what each produced."""
        page = await runtime(request).documents.page(
            bank_id, limit=PAGE_SIZE, offset=offset_of(request), cursor=cursor_of(request)
        )
        pager = cursor_paging(
            request, shown=len(page.items), total=page.total, next_cursor=page.next_cursor
        )
        return render(request, "documents.html", page=page, paging=pager)

    @get("/{document_id:path}", name="console:document")
    async def document(self, request: AnyRequest, bank_id: BankId, document_id: ItemId) -> Template:
        """The document's chunks, each beside the facts drawn from it."""
        rt = runtime(request)
        document_id = document_id.lstrip("/")
        document = await rt.documents.get(bank_id, document_id)
        facts = await rt.memories.window(
            bank_id, MemoryFilter(document_id=document_id), limit=FACTS_PER_DOCUMENT
        )
        by_chunk: dict[str | None, list[Memory]] = defaultdict(list)
        for memory in facts.items:
            by_chunk[memory.chunk_id].append(memory)
        offset = offset_of(request)
        chunks = document.chunks[offset : offset + CHUNKS_PER_PAGE]
        return render(
            request,
            "document.html",
            document=document,
            chunks=chunks,
            by_chunk=by_chunk,
            facts_total=document.memory_count,
            facts_shown=len(facts.items),
            unplaced=[m for m in facts.items if m.chunk_id not in {c.id for c in document.chunks}],
            paging=paging(request, total=len(document.chunks), limit=CHUNKS_PER_PAGE),
        )

    @post("/{document_id:path}", name="console:document-action")
    async def act(self, request: AnyRequest, bank_id: BankId, document_id: ItemId) -> Redirect:
        """``.../delete`` removes the document and its facts; ``.../reprocess`` redoes them."""
        rt = runtime(request)
        document_id = document_id.lstrip("/")
        action = document_id.rsplit("/", 1)[-1]
        document_id = document_id.rsplit("/", 1)[0] if "/" in document_id else ""
        if action == "delete" and document_id:
            await rt.documents.delete(bank_id, document_id)
            return redirect(f"/console/banks/{bank_id}/documents/", "deleted")
        if action == "reprocess" and document_id:
            await rt.documents.reprocess(bank_id, document_id)
            return redirect(f"/console/banks/{bank_id}/documents/{document_id}", "reprocessed")
        return redirect(f"/console/banks/{bank_id}/documents/")
