"""Security events: ``/v1/default/banks/{bank_id}/security-events``."""

from __future__ import annotations

from litestar import Controller, get

from app.api.deps import BankId, Limit, Offset, SecurityEvents
from app.curate.schemas.security import SecurityEventPage


class SecurityEventController(Controller):
    """What memory defense redacted or blocked in a bank."""

    path = "/v1/default/banks/{bank_id:str}/security-events"
    tags = ["banks"]

    @get("/", summary="What memory defense redacted or blocked, newest first (never the text)")
    async def list_security_events(
        self,
        bank_id: BankId,
        security_events: SecurityEvents,
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> SecurityEventPage:
        """404 when the bank does not exist."""
        return await security_events.page(bank_id, limit=limit, offset=offset)
