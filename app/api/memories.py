"""Retain: ``POST /v1/default/banks/{bank_id}/memories``."""

from __future__ import annotations

from litestar import Controller, Response, post
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK, HTTP_202_ACCEPTED

from app.api.deps import BankId, Operations, Retainer
from app.retain.schemas import RetainRequest, RetainResponse


class RetainController(Controller):
    """Turn conversations and documents into facts, entities and links."""

    path = "/v1/default/banks/{bank_id:str}/memories"
    tags = ["memories"]

    @post("/", summary="Retain items (sync, or async with an operation id)")
    async def retain(
        self,
        bank_id: BankId,
        data: JSONBody[RetainRequest],
        retainer: Retainer,
        operations: Operations,
    ) -> Response[RetainResponse]:
        """Sync: 200 with the new memory ids. ``async: true``: 202 with an operation id."""
        if data.async_:
            operation_id = await operations.submit(bank_id, data.items)
            accepted = RetainResponse(
                success=True,
                bank_id=bank_id,
                items_count=len(data.items),
                memory_ids=[],
                operation_id=operation_id,
            )
            return Response(accepted, status_code=HTTP_202_ACCEPTED)
        return Response(await retainer.retain(bank_id, data.items), status_code=HTTP_200_OK)
