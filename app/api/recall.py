"""Recall: ``POST /v1/default/banks/{bank_id}/memories/recall``."""

from __future__ import annotations

import msgspec
from litestar import Controller, post
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK

from app.api.compat import recall_warnings
from app.api.deps import BankId, Recaller
from app.recall.schemas import RecallRequest, RecallResponse


class RecallController(Controller):
    """Find the facts relevant to a question: vector, keyword, graph and time, fused."""

    path = "/v1/default/banks/{bank_id:str}/memories/recall"
    tags = ["memories"]

    # A POST that only reads: read-only keys may recall.
    @post(
        "/",
        status_code=HTTP_200_OK,
        operation_id="recall_memories",
        summary="Recall the facts relevant to a query",
        opt={"access": "read"},
    )
    async def recall(
        self, bank_id: BankId, data: JSONBody[RecallRequest], recaller: Recaller
    ) -> RecallResponse:
        """Results best first within ``max_tokens``; ``trace: true`` explains the order."""
        answer = await recaller.recall(bank_id, data)
        warnings = recall_warnings(data)
        return msgspec.structs.replace(answer, warnings=warnings) if warnings else answer
