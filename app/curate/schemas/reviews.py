"""Reviews as the API lists and shows them, and a person's decision on one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from app.curate.schemas.entities import EntityMergeRecord, EntityNeighbour

ReviewStatus = Literal["open", "same", "different"]
# What a person decides about a pair.
ReviewVerdict = Literal["same", "different"]


# A listing filter: one status, or every review.
ReviewFilter = Literal["open", "same", "different", "all"]


class ReviewEntity(msgspec.Struct, frozen=True, kw_only=True):
    """One side of a review: the entity as it is now (or the shell of a merged-away one)."""

    id: str
    name: str
    type: str | None = None
    mention_count: int = 0
    names: list[str] = msgspec.field(default_factory=list)
    neighbours: list[EntityNeighbour] = msgspec.field(default_factory=list)
    # Set when this entity was merged away since the review was filed.
    merged_into: str | None = None


class Review(msgspec.Struct, frozen=True, kw_only=True):
    """A pair of entities to look at, with the resolver's evidence and any decision."""

    id: str
    status: ReviewStatus
    reason: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    entity_a: ReviewEntity | None = None
    entity_b: ReviewEntity | None = None
    # The resolver's evidence, as scored: one entry per candidate it weighed (both rivals of a
    # namesake tie), each with its name match, shared neighbours, recency and score.
    evidence: Any = None
    decided_at: datetime | None = None
    decided_by: str | None = None
    decision_reason: str | None = None
    merge_id: str | None = None


class ReviewPage(msgspec.Struct, frozen=True):
    """One page of reviews, newest first."""

    items: list[Review]
    total: int
    limit: int
    offset: int


class ReviewDecision(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``same``: merge the pair. ``different``: keep them apart for good."""

    decision: ReviewVerdict
    reason: Annotated[str, msgspec.Meta(max_length=2000)] | None = None


class ReviewOutcome(msgspec.Struct, frozen=True):
    """The decided review and, for "same", the merge it made."""

    review: Review
    merge: EntityMergeRecord | None = None
