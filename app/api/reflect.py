"""Reflect and mental models: Hindsight's paths, answered 501 until Mnemo offers them.

Hindsight's clients call ``POST .../reflect`` and ``.../mental-models``; until those features
exist here, each call gets a 501 that says so (after a 404 for a bank that does not exist), so
an agent sees "not available" rather than a missing route or a silent empty answer. The
features replace these handlers with their own controllers.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, route

from app.api.deps import BankId, Banks, ItemId
from app.errors import NotImplementedYet

_METHODS: list[Any] = ["GET", "POST", "PATCH", "PUT", "DELETE"]


class ReflectController(Controller):
    """``POST .../reflect`` (not available yet)."""

    path = "/v1/default/banks/{bank_id:str}/reflect"
    tags = ["reflect"]

    @route("/", http_method=["POST"], status_code=200, operation_id="reflect", summary="Reflect")
    async def reflect(self, bank_id: BankId, banks: Banks) -> None:
        """501 until reflect is available; 404 when the bank does not exist."""
        await banks.require(bank_id)
        raise NotImplementedYet(
            "reflect is not available in this Mnemo yet; use recall for the facts themselves"
        )


class MentalModelController(Controller):
    """``.../mental-models`` (not available yet)."""

    path = "/v1/default/banks/{bank_id:str}/mental-models"
    tags = ["mental-models"]

    @route(
        "/",
        http_method=_METHODS,
        status_code=200,
        operation_id="mental_models",
        summary="Mental models",
        include_in_schema=False,
    )
    async def mental_models(self, bank_id: BankId, banks: Banks) -> None:
        """501 until mental models are available; 404 when the bank does not exist."""
        await _unavailable(banks, bank_id)

    @route(
        "/{rest:path}",
        http_method=_METHODS,
        status_code=200,
        operation_id="mental_model",
        summary="One mental model",
        include_in_schema=False,
    )
    async def mental_model(
        self,
        bank_id: BankId,
        rest: ItemId,
        banks: Banks,
    ) -> None:
        """501 until mental models are available; 404 when the bank does not exist."""
        await _unavailable(banks, bank_id)


async def _unavailable(banks: Banks, bank_id: str) -> None:
    await banks.require(bank_id)
    raise NotImplementedYet("mental models are not available in this Mnemo yet")
