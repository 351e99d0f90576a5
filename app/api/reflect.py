"""Reflect: ``POST /v1/default/banks/{bank_id}/reflect``."""

from __future__ import annotations

from litestar import Controller, post
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK

from app.api.deps import BankId, Reflector
from app.reflect.schemas import ReflectRequest, ReflectResponse


class ReflectController(Controller):
    """An answer drawn from the bank, with the evidence it rests on."""

    path = "/v1/default/banks/{bank_id:str}/reflect"
    tags = ["reflect"]

    @post(
        "/",
        status_code=HTTP_200_OK,
        operation_id="reflect",
        summary="Answer a question from the bank's memories",
    )
    async def reflect(
        self, bank_id: BankId, data: JSONBody[ReflectRequest], reflector: Reflector
    ) -> ReflectResponse:
        """Agent loop with an LLM, extractive offline; ``include.facts`` returns the evidence."""
        return await reflector.reflect(bank_id, data)
