"""Retain: ``POST /v1/default/banks/{bank_id}/memories``."""

from __future__ import annotations

import msgspec
from litestar import Controller, post
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK

from app.api.compat import retain_items
from app.api.deps import BankId, Banks, Events, Operations, Retainer
from app.retain.schemas import RetainRequest, RetainResponse
from app.webhooks.rules import retain_completed


class RetainController(Controller):
    """Turn conversations and documents into facts, entities and links."""

    path = "/v1/default/banks/{bank_id:str}/memories"
    tags = ["memories"]

    @post(
        "/",
        status_code=HTTP_200_OK,
        operation_id="retain_memories",
        summary="Retain items (sync, or async with an operation id); creates the bank if new",
    )
    async def retain(
        self,
        bank_id: BankId,
        data: JSONBody[RetainRequest],
        banks: Banks,
        events: Events,
        retainer: Retainer,
        operations: Operations,
    ) -> RetainResponse:
        """200 either way. Sync: the new memory ids. ``async: true``: an operation id to follow.

        A bank that does not exist yet is created with the defaults, as Hindsight does. Either
        way, memory defense screens the items first: ``security_events`` says what it redacted
        or blocked; a 422 with ``violations`` when it blocked every item.
        """
        items, warnings = retain_items(data)
        retainer.check(items)  # a refused request creates no bank
        await banks.ensure(bank_id)
        if data.async_:
            screened = await retainer.screen(bank_id, items)
            operation_id = await operations.submit(bank_id, screened.items)
            return RetainResponse(
                success=True,
                bank_id=bank_id,
                items_count=len(items),
                memory_ids=[],
                async_=True,
                operation_id=operation_id,
                security_events=screened.events,
                warnings=warnings,
            )
        response = await retainer.retain(bank_id, items)
        events.emit(bank_id, "retain.completed", retain_completed(response))
        return msgspec.structs.replace(response, warnings=[*response.warnings, *warnings])
