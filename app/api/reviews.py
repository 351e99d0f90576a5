"""Reviews: ``/v1/default/banks/{bank_id}/reviews``."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, post
from litestar.params import JSONBody, QueryParameter
from litestar.status_codes import HTTP_200_OK

from app.api.deps import BankId, ItemId, Limit, Offset, Reviews
from app.curate.schemas.reviews import (
    Review,
    ReviewDecision,
    ReviewFilter,
    ReviewOutcome,
    ReviewPage,
)

StatusQuery = Annotated[
    ReviewFilter,
    QueryParameter(name="status", description="open (default), same, different or all"),
]


class ReviewController(Controller):
    """Pairs of entities the resolver would not decide alone."""

    path = "/v1/default/banks/{bank_id:str}/reviews"
    tags = ["entities"]

    @get(
        "/",
        operation_id="list_reviews",
        summary="List reviews (open by default) with both entities and the evidence",
    )
    async def list_reviews(
        self,
        bank_id: BankId,
        reviews: Reviews,
        review_status: StatusQuery = "open",
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> ReviewPage:
        """Newest first; 404 when the bank does not exist."""
        return await reviews.page(bank_id, status=review_status, limit=limit, offset=offset)

    @get("/{review_id:str}", operation_id="get_review", summary="One review")
    async def get_review(self, bank_id: BankId, review_id: ItemId, reviews: Reviews) -> Review:
        """404 when the review is not in this bank."""
        return await reviews.get(bank_id, review_id)

    @post(
        "/{review_id:str}",
        status_code=HTTP_200_OK,
        operation_id="decide_review",
        summary="Decide a review: same or different",
    )
    async def decide_review(
        self, bank_id: BankId, review_id: ItemId, reviews: Reviews, data: JSONBody[ReviewDecision]
    ) -> ReviewOutcome:
        """Same → merge (audited); different → never proposed again; 409 once decided."""
        return await reviews.decide(bank_id, review_id, data)
