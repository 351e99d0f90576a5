"""What memory defense did in a bank: the events it kept (never the text it found)."""

from __future__ import annotations

import msgspec

from app.curate.schemas.security import SecurityEventPage
from app.domain.banks import BankDirectory
from app.domain.defense import SecurityEvent
from app.store.graph import Graph


class _PageRow(msgspec.Struct):
    total: int
    items: list[SecurityEvent]


class SecurityEventService:
    """Lists a bank's security events."""

    def __init__(self, graph: Graph, banks: BankDirectory) -> None:
        self._graph = graph
        self._banks = banks

    async def page(self, bank_id: str, *, limit: int, offset: int) -> SecurityEventPage:
        """Newest first, one page, with the total; NotFound for an unknown bank."""
        await self._banks.require(bank_id)
        row = await self._graph.row(
            "security/list_events",
            {"bank_id": bank_id, "limit": limit, "offset": offset},
            _PageRow,
        )
        total, items = (row.total, row.items) if row else (0, [])
        return SecurityEventPage(items=items, total=total, limit=limit, offset=offset)
