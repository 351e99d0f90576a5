"""Maintenance: ``/v1/admin`` (admin keys only)."""

from __future__ import annotations

from litestar import Controller, post
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK

from app.api.deps import RuntimeDep
from app.retain.reconcile import ReconcileReport
from app.retain.schemas import ReconcileRequest


class AdminController(Controller):
    """Work that needs the service's own stores (the embedded vector shard has one owner)."""

    path = "/v1/admin"
    tags = ["admin"]
    opt = {"access": "admin"}

    @post("/reconcile", status_code=HTTP_200_OK, summary="Repair Neo4j and vector differences")
    async def reconcile(
        self, runtime: RuntimeDep, data: JSONBody[ReconcileRequest]
    ) -> ReconcileReport:
        """What ``mnemo reconcile`` asks a running service to do instead of opening its shard."""
        if data.bank_id is not None:
            await runtime.banks.require(data.bank_id)
            return await runtime.reconciler.reconcile_bank(data.bank_id)
        return await runtime.reconciler.reconcile_all()
