"""Async work: ``/v1/default/banks/{bank_id}/operations``."""

from __future__ import annotations

from litestar import Controller, get

from app.api.deps import BankId, Banks, ItemId, Limit, Offset, Operations
from app.retain.schemas import Operation, OperationPage


class OperationController(Controller):
    """Status of async retains."""

    path = "/v1/default/banks/{bank_id:str}/operations"
    tags = ["operations"]

    @get("/", operation_id="list_operations", summary="A bank's operations, newest first")
    async def list_operations(
        self,
        bank_id: BankId,
        banks: Banks,
        operations: Operations,
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> OperationPage:
        """404 when the bank does not exist."""
        await banks.require(bank_id)
        return await operations.page(bank_id, limit=limit, offset=offset)

    @get(
        "/{operation_id:str}",
        operation_id="get_operation_status",
        summary="One operation: status, counts, errors per item",
    )
    async def get_operation(
        self, bank_id: BankId, operation_id: ItemId, operations: Operations
    ) -> Operation:
        """404 when the operation is not in this bank."""
        return await operations.get(bank_id, operation_id)
