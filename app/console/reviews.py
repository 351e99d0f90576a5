"""Console page for the review queue: each open question side by side, decided in one click."""

from __future__ import annotations

from typing import cast

from litestar import Controller, get, post
from litestar.response import Redirect, Template

from app.api.deps import BankId, ItemId
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
from app.curate.schemas.memories import Memory, MemoryFilter
from app.curate.schemas.reviews import ReviewDecision, ReviewFilter
from app.errors import NotFound

REVIEWS_PER_PAGE = 5
FACTS_PER_SIDE = 3
STATUSES = ("open", "same", "different", "all")


class ReviewPages(Controller):
    """``/console/banks/{bank_id}/reviews``."""

    path = "/banks/{bank_id:str}/reviews"

    @get("/", name="console:reviews")
    async def reviews(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Reviews (open first by default), a few per page, each with both sides' facts."""
        rt = runtime(request)
        status = choice(request, "status", STATUSES) or "open"
        page = await rt.reviews.page(
            bank_id,
            status=cast("ReviewFilter", status),
            limit=REVIEWS_PER_PAGE,
            offset=offset_of(request),
        )
        facts: dict[str, list[Memory]] = {}
        for review in page.items:
            for side in (review.entity_a, review.entity_b):
                if side is None or side.id in facts:
                    continue
                try:
                    found = await rt.memories.window(
                        bank_id, MemoryFilter(entity_id=side.id), limit=FACTS_PER_SIDE
                    )
                    facts[side.id] = found.items
                except NotFound:
                    facts[side.id] = []
        return render(
            request,
            "reviews.html",
            page=page,
            facts=facts,
            status=status,
            statuses=STATUSES,
            paging=paging(request, total=page.total, limit=REVIEWS_PER_PAGE),
        )

    @post("/{review_id:str}", name="console:decide")
    async def decide(self, request: AnyRequest, bank_id: BankId, review_id: ItemId) -> Redirect:
        """Same (merge) or different (never asked again); the reason is optional."""
        data = await form(request)
        decision = convert(
            {"decision": field(data, "decision", required=True), "reason": field(data, "reason")},
            ReviewDecision,
        )
        await runtime(request).reviews.decide(bank_id, review_id, decision)
        return redirect(f"/console/banks/{bank_id}/reviews/", decision.decision)
