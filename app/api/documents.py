"""Documents: ``/v1/default/banks/{bank_id}/documents``.

Document ids may contain slashes (``conv/session_1/D1:3``), so the id is the rest of the path
(percent-encoding is optional); ``POST .../documents/{id}/reprocess`` is recognised by its
last segment.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, get, post
from litestar.params import QueryParameter
from litestar.status_codes import HTTP_200_OK

from app.api.deps import BankId, Documents, ItemId, Limit, Offset
from app.curate.schemas.documents import (
    Document,
    DocumentDeleted,
    DocumentPage,
    DocumentReprocessed,
)
from app.errors import NotFound

REPROCESS = "/reprocess"

EmptyFilter = Annotated[
    bool | None,
    QueryParameter(description="true: only documents that produced no memory; false: the others"),
]


def _document_id(path: str) -> str:
    return path.lstrip("/")


class DocumentController(Controller):
    """Inspect, delete and reprocess the documents a bank retained."""

    path = "/v1/default/banks/{bank_id:str}/documents"
    tags = ["documents"]

    @get("/", summary="List documents (paged, newest first, with memory counts)")
    async def list_documents(
        self,
        bank_id: BankId,
        documents: Documents,
        empty: EmptyFilter = None,
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> DocumentPage:
        """404 when the bank does not exist."""
        return await documents.page(bank_id, limit=limit, offset=offset, empty=empty)

    @get("/{document_id:path}", summary="One document: original text, chunks, memory count")
    async def get_document(
        self, bank_id: BankId, document_id: ItemId, documents: Documents
    ) -> Document:
        """404 when the document is not in this bank."""
        return await documents.get(bank_id, _document_id(document_id))

    @delete(
        "/{document_id:path}",
        status_code=HTTP_200_OK,
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
