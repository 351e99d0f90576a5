"""Banks: ``/v1/default/banks``."""

from __future__ import annotations

from litestar import Controller, Response, delete, get, patch, put
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK, HTTP_201_CREATED

from app.api.deps import BankId, Banks, Limit, Offset
from app.curate.schemas.banks import Bank, BankDeleted, BankPage, BankUpdate


class BankController(Controller):
    """Create, configure, list, inspect and delete memory banks."""

    path = "/v1/default/banks"
    tags = ["banks"]

    @get("/", summary="List banks (paged, with counts)")
    async def list_banks(self, banks: Banks, limit: Limit = 100, offset: Offset = 0) -> BankPage:
        """Banks ordered by id."""
        return await banks.page(limit=limit, offset=offset)

    @put("/{bank_id:str}", summary="Create a bank or update the fields sent")
    async def put_bank(
        self, banks: Banks, bank_id: BankId, data: JSONBody[BankUpdate]
    ) -> Response[Bank]:
        """201 when the bank is new, 200 when it existed."""
        bank, created = await banks.put(bank_id, data)
        return Response(bank, status_code=HTTP_201_CREATED if created else HTTP_200_OK)

    @get("/{bank_id:str}", summary="One bank with its configuration and counts")
    async def get_bank(self, banks: Banks, bank_id: BankId) -> Bank:
        """404 when the bank does not exist."""
        return await banks.get(bank_id)

    @patch("/{bank_id:str}", summary="Update some fields of an existing bank")
    async def patch_bank(self, banks: Banks, bank_id: BankId, data: JSONBody[BankUpdate]) -> Bank:
        """404 when the bank does not exist."""
        return await banks.patch(bank_id, data)

    @delete("/{bank_id:str}", status_code=HTTP_200_OK, summary="Delete a bank and all it holds")
    async def delete_bank(self, banks: Banks, bank_id: BankId) -> BankDeleted:
        """Removes the bank's nodes and vectors and nothing else."""
        return await banks.delete(bank_id)
