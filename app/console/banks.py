"""Console pages for banks: the list with counts, creating one, and a bank's overview."""

from __future__ import annotations

import asyncio
import re
from typing import Any, cast

from litestar import Controller, get, post
from litestar.response import Redirect, Template

from app.api.deps import BankId
from app.console.access import current
from app.console.charts import activity_bars
from app.console.common import (
    AnyRequest,
    choice,
    convert,
    field,
    form,
    offset_of,
    paging,
    redirect,
    render,
    runtime,
)
from app.curate.schemas.banks import Bank, BankPage, BankUpdate
from app.curate.schemas.browse import ActivityBy
from app.domain.banks import BANK_ID_PATTERN
from app.errors import Conflict, InvalidInput, NotFound
from app.runtime import Runtime

_BANK_ID = re.compile(BANK_ID_PATTERN)
OVERVIEW_ROWS = 8


class BankPages(Controller):
    """``/console/``: every bank, and a form to create one."""

    path = "/"

    @get("/", name="console:banks")
    async def banks(self, request: AnyRequest) -> Template:
        """Banks by id, paged, with what each holds."""
        rt = runtime(request)
        principal = current(request)
        offset = offset_of(request)
        if principal is None or principal.admin:
            page = await rt.banks.page(limit=50, offset=offset)
        else:
            # A bank key sees its own banks only (those that exist), paged like the rest.
            mine = sorted(principal.banks)
            found = [await _existing(rt, b) for b in mine[offset : offset + 50]]
            page = BankPage(
                banks=[b for b in found if b is not None], total=len(mine), limit=50, offset=offset
            )
        return render(
            request,
            "banks.html",
            banks=page.banks,
            paging=paging(request, total=page.total, limit=50),
        )

    @post("/banks", name="console:create-bank")
    async def create(self, request: AnyRequest) -> Redirect:
        """Create a bank from the form; an existing id is a 409, a malformed one a 400."""
        data = await form(request)
        bank_id = field(data, "bank_id", required=True) or ""
        if len(bank_id) > 64 or not _BANK_ID.fullmatch(bank_id):
            raise InvalidInput("bank_id: 1-64 letters, digits, '_', '.' or '-'")
        rt = runtime(request)
        try:
            await rt.banks.get(bank_id)
        except NotFound:
            pass
        else:
            raise Conflict(f"bank_id: a bank {bank_id!r} exists already")
        values: dict[str, Any] = {"name": field(data, "name") or bank_id}
        if mode := field(data, "retain_extraction_mode"):
            values["retain_extraction_mode"] = mode
        update = convert(values, BankUpdate)
        await rt.banks.put(bank_id, update)
        return redirect(f"/console/banks/{bank_id}/", "created")


async def _existing(rt: Runtime, bank_id: str) -> Bank | None:
    try:
        return await rt.banks.get(bank_id)
    except NotFound:
        return None


class OverviewPage(Controller):
    """``/console/banks/{bank_id}/``: what a bank holds and what needs a person."""

    path = "/banks/{bank_id:str}"

    @get("/", name="console:overview")
    async def overview(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Counts, growth chart, most mentioned entities, open reviews, recent operations.

        Counts come from indexes (the bank's counts and the backlog), not from the bank's
        stats, which count every link and grow with the bank.
        """
        rt = runtime(request)
        by = choice(request, "by", ("retained", "occurred")) or "retained"
        bank = await rt.banks.get(bank_id)
        # Independent reads, run side by side: the page waits for the slowest, not the sum.
        activity, entities, reviews, operations, backlog = await asyncio.gather(
            rt.browse.chart_activity(
                bank_id, by=cast("ActivityBy", by), memories=bank.counts.memories
            ),
            rt.entities.page(bank_id, name=None, entity_type=None, limit=OVERVIEW_ROWS, offset=0),
            rt.reviews.page(bank_id, status="open", limit=3, offset=0),
            rt.operations.page(bank_id, limit=OVERVIEW_ROWS, offset=0),
            rt.browse.backlog(bank_id),
        )
        return render(
            request,
            "overview.html",
            bank=bank,
            by=by,
            chart=activity_bars(activity.days),
            counted_at=activity.counted_at,
            entities=entities,
            reviews=reviews,
            operations=operations,
            backlog=backlog,
        )
