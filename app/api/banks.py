"""Banks: ``/v1/default/banks``, with Hindsight's profile, config and stats beside them."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, delete, get, patch, put
from litestar.params import JSONBody

from app.api.compat import bank_warnings, config_update, config_view
from app.api.deps import BankId, Banks, Limit, Offset
from app.api.security import require_admin
from app.curate.schemas.banks import (
    Bank,
    BankConfigUpdate,
    BankConfigView,
    BankDeleted,
    BankPage,
    BankStats,
    BankUpdate,
    DispositionUpdate,
)


def _warned(bank: Bank, warnings: list[str]) -> Bank:
    return msgspec.structs.replace(bank, warnings=warnings) if warnings else bank


class BankController(Controller):
    """Create, configure, list, inspect and delete memory banks."""

    path = "/v1/default/banks"
    tags = ["banks"]

    @get("/", operation_id="list_banks", summary="List banks (paged, with counts)")
    async def list_banks(self, banks: Banks, limit: Limit = 100, offset: Offset = 0) -> BankPage:
        """Banks ordered by id, under ``banks``."""
        return await banks.page(limit=limit, offset=offset)

    # Creating, configuring and deleting banks is an admin's job; bank keys use them.
    @put(
        "/{bank_id:str}",
        operation_id="create_or_update_bank",
        summary="Create a bank or update the fields sent (200 either way)",
        opt={"access": "admin"},
    )
    async def put_bank(self, banks: Banks, bank_id: BankId, data: JSONBody[BankUpdate]) -> Bank:
        """Fields not sent keep their value (defaults on create); ``counts`` says what it holds."""
        bank, _ = await banks.put(bank_id, data)
        return _warned(bank, bank_warnings(data))

    @get("/{bank_id:str}", operation_id="get_bank", summary="One bank with its configuration")
    async def get_bank(self, banks: Banks, bank_id: BankId) -> Bank:
        """404 when the bank does not exist."""
        return await banks.get(bank_id)

    @patch(
        "/{bank_id:str}",
        operation_id="update_bank",
        summary="Update an existing bank",
        opt={"access": "admin"},
    )
    async def patch_bank(self, banks: Banks, bank_id: BankId, data: JSONBody[BankUpdate]) -> Bank:
        """404 when the bank does not exist."""
        return _warned(await banks.patch(bank_id, data), bank_warnings(data))

    @delete(
        "/{bank_id:str}",
        status_code=200,
        operation_id="delete_bank",
        summary="Delete a bank",
        opt={"access": "admin"},
    )
    async def delete_bank(self, banks: Banks, bank_id: BankId) -> BankDeleted:
        """Removes the bank's nodes and vectors and nothing else; 404 when absent."""
        return await banks.delete(bank_id)

    @get(
        "/{bank_id:str}/profile",
        operation_id="get_bank_profile",
        summary="The bank's profile: name, mission, disposition, background",
    )
    async def get_profile(self, banks: Banks, bank_id: BankId) -> Bank:
        """The same bank document as ``GET .../banks/{id}``; 404 when absent."""
        return await banks.get(bank_id)

    @put(
        "/{bank_id:str}/profile",
        operation_id="update_bank_disposition",
        summary="Set the bank's disposition traits",
    )
    async def put_profile(
        self, banks: Banks, bank_id: BankId, data: JSONBody[DispositionUpdate]
    ) -> Bank:
        """404 when the bank does not exist."""
        return await banks.patch(bank_id, BankUpdate(disposition=data.disposition))

    @patch(
        "/{bank_id:str}/profile",
        operation_id="patch_bank_disposition",
        summary="Set the bank's disposition traits",
    )
    async def patch_profile(
        self, banks: Banks, bank_id: BankId, data: JSONBody[DispositionUpdate]
    ) -> Bank:
        """404 when the bank does not exist."""
        return await banks.patch(bank_id, BankUpdate(disposition=data.disposition))

    @get(
        "/{bank_id:str}/config",
        operation_id="get_bank_config",
        summary="Every setting with its value, and those set on this bank",
    )
    async def get_config(self, banks: Banks, bank_id: BankId) -> BankConfigView:
        """404 when the bank does not exist."""
        config, overrides = config_view(await banks.get(bank_id), banks.default_mode)
        return BankConfigView(bank_id=bank_id, config=config, overrides=overrides)

    @patch(
        "/{bank_id:str}/config",
        operation_id="update_bank_config",
        summary="Change settings by name",
    )
    async def patch_config(
        self,
        request: Request[Any, Any, Any],
        banks: Banks,
        bank_id: BankId,
        data: JSONBody[BankConfigUpdate],
    ) -> BankConfigView:
        """Hindsight-only settings are accepted and warned about; unknown ones are a 400.

        A bank's read-write key changes its settings, but memory defense is the operator's
        policy: changing ``defense`` takes an admin key, as on ``PATCH .../banks/{id}``.
        """
        if "defense" in data.updates:
            require_admin(request.user, "memory defense is set with an admin key")
        update, warnings = config_update(data.updates)
        config, overrides = config_view(await banks.patch(bank_id, update), banks.default_mode)
        return BankConfigView(
            bank_id=bank_id, config=config, overrides=overrides, warnings=warnings
        )

    @delete(
        "/{bank_id:str}/config",
        status_code=200,
        operation_id="reset_bank_config",
        summary="Put every setting back to its default",
    )
    async def reset_config(self, banks: Banks, bank_id: BankId) -> BankConfigView:
        """The name and description stay; 404 when the bank does not exist."""
        config, overrides = config_view(await banks.reset(bank_id), banks.default_mode)
        return BankConfigView(bank_id=bank_id, config=config, overrides=overrides)

    @get(
        "/{bank_id:str}/stats",
        operation_id="get_agent_stats",
        summary="What the bank holds: memories, links, documents, operations",
    )
    async def stats(self, banks: Banks, bank_id: BankId) -> BankStats:
        """404 when the bank does not exist."""
        return await banks.stats(bank_id)
