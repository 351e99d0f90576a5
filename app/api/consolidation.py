"""Consolidation: ``POST .../banks/{id}/consolidate`` and ``DELETE .../banks/{id}/observations``.

Kept apart from the memory and bank controllers; the paths never collide with theirs.
"""

from __future__ import annotations

from litestar import Controller, delete, post
from litestar.status_codes import HTTP_200_OK

from app.api.deps import BankId, Consolidation, RuntimeDep
from app.consolidate.schemas import BankObservationsCleared, ConsolidationQueued


class ConsolidationController(Controller):
    """Queue consolidation runs; clear a bank's observations."""

    path = "/v1/default/banks/{bank_id:str}"
    tags = ["observations"]

    @post(
        "/consolidate",
        status_code=HTTP_200_OK,
        operation_id="trigger_consolidation",
        summary="Queue a consolidation run",
    )
    async def consolidate(
        self, bank_id: BankId, consolidation: Consolidation, runtime: RuntimeDep
    ) -> ConsolidationQueued:
        """Answers the queued (or already queued) operation; failed facts are retried now."""
        queued = await consolidation.queue(bank_id)
        runtime.worker.nudge()
        return queued

    @delete(
        "/observations",
        status_code=HTTP_200_OK,
        operation_id="clear_observations",
        summary="Delete all the bank's observations (its facts are consolidated again)",
    )
    async def clear_bank(
        self, bank_id: BankId, consolidation: Consolidation, runtime: RuntimeDep
    ) -> BankObservationsCleared:
        """404 when the bank does not exist."""
        cleared = await consolidation.clear_bank(bank_id)
        runtime.worker.nudge()
        return cleared
