"""Documents: ``/v1/default/banks/{bank_id}/documents``.

Document ids may contain slashes (``conv/session_1/D1:3``), so the id is the rest of the path
(percent-encoding is optional). ``GET .../documents/{id}/chunks`` and ``POST
.../documents/{id}/reprocess`` are recognised by their last segment; a document whose own id
ends in ``/chunks`` is still found by ``GET`` (an exact id wins).
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, get, post
from litestar.params import QueryParameter
from litestar.status_codes import HTTP_200_OK

from app.api.deps import BankId, Cursor, Documents, ItemId, Limit, Offset
from app.curate.schemas.documents import (
    ChunkPage,
    ChunkView,
    Document,
    DocumentDeleted,
    DocumentPage,
    DocumentReprocessed,
)
from app.errors import NotFound

REPROCESS = "/reprocess"
CHUNKS = "/chunks"

EmptyFilter = Annotated[
    bool | None,
    QueryParameter(description="true: only documents that produced no memory; false: the others"),
]


def _document_id(path: str) -> str:
    return path.lstrip("/")


def _chunk_page(bank_id: str, document: Document, limit: int, offset: int) -> ChunkPage:
    stamp = (document.created_at.isoformat()) if document.created_at else ""
    views = [
        ChunkView(
            chunk_id=c.id,
            document_id=document.id,
            bank_id=bank_id,
            chunk_index=c.index,
            chunk_text=c.text,
            created_at=c.created_at.isoformat() if c.created_at else stamp,
            memory_count=c.memory_count,
        )
        for c in document.chunks
    ]
    return ChunkPage(
        items=views[offset : offset + limit], total=len(views), limit=limit, offset=offset
    )


class DocumentController(Controller):
    """Inspect, delete and reprocess the documents a bank retained."""

    path = "/v1/default/banks/{bank_id:str}/documents"
    tags = ["documents"]

    @get(
        "/",
        operation_id="list_documents",
        summary="List documents (paged, newest first, with memory counts)",
    )
    async def list_documents(
        self,
        bank_id: BankId,
        documents: Documents,
        empty: EmptyFilter = None,
        limit: Limit = 100,
        offset: Offset = 0,
        cursor: Cursor = None,
    ) -> DocumentPage:
        """404 when the bank does not exist; ``cursor`` continues where a page ended."""
        return await documents.page(bank_id, limit=limit, offset=offset, empty=empty, cursor=cursor)

    @get(
        "/{document_id:path}",
        operation_id="get_document",
        summary="One document (original text, chunks, memory count), or .../{id}/chunks",
    )
    async def get_document(
        self,
        bank_id: BankId,
        document_id: ItemId,
        documents: Documents,
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> Document | ChunkPage:
        """404 when the document is not in this bank; ``limit``/``offset`` page the chunks."""
        target = _document_id(document_id)
        try:
            return await documents.get(bank_id, target)
        except NotFound:
            if not target.endswith(CHUNKS) or target == CHUNKS.lstrip("/"):
                raise
        owner = await documents.get(bank_id, target[: -len(CHUNKS)])
        return _chunk_page(bank_id, owner, limit, offset)

    @delete(
        "/{document_id:path}",
        status_code=HTTP_200_OK,
        operation_id="delete_document",
        summary="Delete a document with its memories, vectors, and entities left unmentioned",
    )
    async def delete_document(
        self, bank_id: BankId, document_id: ItemId, documents: Documents
    ) -> DocumentDeleted:
        """404 when the document is not in this bank."""
        return await documents.delete(bank_id, _document_id(document_id))

    @post(
        "/{document_id:path}",
        status_code=HTTP_200_OK,
        operation_id="reprocess_document",
        summary="POST .../documents/{id}/reprocess: extract again under the current settings",
    )
    async def reprocess_document(
        self, bank_id: BankId, document_id: ItemId, documents: Documents
    ) -> DocumentReprocessed:
        """Replaces the document's memories in one transaction; 404 for unknown documents."""
        target = _document_id(document_id)
        if not target.endswith(REPROCESS) or target == REPROCESS.lstrip("/"):
            raise NotFound("no such action: POST .../documents/{document_id}/reprocess")
        return await documents.reprocess(bank_id, target[: -len(REPROCESS)])
