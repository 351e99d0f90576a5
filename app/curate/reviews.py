"""Reviews: pairs of entities the resolver would not decide alone, listed and decided by people.

Entity resolution files one review per pair, ever (cypher/resolve/file_reviews.cypher: the id
is derived from the pair), with the evidence on both sides. A decision is final: "same" merges
the pair (the entity with fewer mentions into the other, as re-evaluation would; the review id
is recorded on the merge), "different" records ``DIFFERENT_FROM``, which resolution reads as
``decided_apart`` and never proposes again. Deciding a decided review is a 409.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from app.curate.entities import EntityService, StoredEntity, decode_json
from app.curate.schemas.entities import EntityNeighbour
from app.curate.schemas.reviews import (
    Review,
    ReviewDecision,
    ReviewEntity,
    ReviewFilter,
    ReviewOutcome,
    ReviewPage,
    ReviewStatus,
)
from app.domain.banks import BankDirectory
from app.errors import Conflict, InvalidInput, NotFound
from app.resolve.repair import keep_and_gone, merge_refusal
from app.store.graph import Graph, Tx

# Neighbours shown per side of a review, and names.
REVIEW_NEIGHBOURS = 5
REVIEW_NAMES = 20


class _ReviewProps(msgspec.Struct):
    id: str
    status: ReviewStatus = "open"
    entity_a: str | None = None
    entity_b: str | None = None
    reason: str | None = None
    evidence_json: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    decided_at: datetime | None = None
    decided_by: str | None = None
    decision_reason: str | None = None
    merge_id: str | None = None


class _Side(msgspec.Struct):
    id: str
    canonical_name: str | None = None
    type: str | None = None
    mention_count: int | None = None
    merged_into: str | None = None
    names: list[str] = msgspec.field(default_factory=list)
    neighbours: list[EntityNeighbour] = msgspec.field(default_factory=list)


class _ReviewRow(msgspec.Struct):
    review: _ReviewProps
    sides: list[_Side]


class _IdsRow(msgspec.Struct):
    total: int
    ids: list[str]


class ReviewService:
    """List and decide reviews."""

    def __init__(self, graph: Graph, banks: BankDirectory, entities: EntityService) -> None:
        self._graph = graph
        self._banks = banks
        self._entities = entities

    async def page(
        self, bank_id: str, *, status: ReviewFilter = "open", limit: int, offset: int
    ) -> ReviewPage:
        """Reviews newest first, open ones unless ``status`` says otherwise."""
        await self._banks.require(bank_id)
        await self._entities.settled(bank_id)
        row = await self._graph.row(
            "reviews/list",
            {
                "bank_id": bank_id,
                "status": None if status == "all" else status,
                "offset": offset,
                "limit": limit,
            },
            _IdsRow,
        )
        assert row is not None
        return ReviewPage(
            items=await self._shape(self._graph, bank_id, row.ids),
            total=row.total,
            limit=limit,
            offset=offset,
        )

    async def get(self, bank_id: str, review_id: str) -> Review:
        """One review; NotFound when it is not in this bank."""
        await self._banks.require(bank_id)
        await self._entities.settled(bank_id)
        found = await self._shape(self._graph, bank_id, [review_id])
        if not found:
            raise NotFound(f"review {review_id!r} not found in bank {bank_id!r}")
        return found[0]

    async def decide(self, bank_id: str, review_id: str, decision: ReviewDecision) -> ReviewOutcome:
        """Decide an open review: "same" merges the pair, "different" keeps it apart for good."""
        reason = (decision.reason or "").strip() or None

        async def work(tx: Tx) -> str | None:
            merge_id: str | None = None
            rows = await self._shape(tx, bank_id, [review_id])
            if not rows:
                raise NotFound(f"review {review_id!r} not found in bank {bank_id!r}")
            review = rows[0]
            if review.status != "open":
                raise Conflict(
                    f"review {review_id!r} was already decided: {review.status}",
                    extra={"status": review.status, "decided_at": review.decided_at},
                )
            a, b = await self._current_pair(tx, bank_id, review)
            if decision.decision == "same":
                keep, gone = keep_and_gone(a.brief(), b.brief())
                refusal = merge_refusal(gone, keep)
                if refusal is not None:
                    raise InvalidInput(refusal, extra={"review_id": review_id})
                merge_id = await self._entities.merge_in(
                    tx,
                    bank_id,
                    keep=keep.id,
                    gone=gone.id,
                    reason=reason or f"review {review_id} decided same",
                    by="review",
                    pair_review=review_id,
                    evidence_json=await self._evidence_json(tx, bank_id, review_id),
                )
            else:
                await tx.run(
                    "reviews/different",
                    {
                        "bank_id": bank_id,
                        "id": review_id,
                        "a": a.id,
                        "b": b.id,
                        "reason": reason,
                        "by": "api",
                    },
                )
            return merge_id

        await self._entities.settled(bank_id)
        merge_id = await self._graph.write(bank_id, work)
        return ReviewOutcome(
            review=await self.get(bank_id, review_id),
            merge=await self._entities.record(bank_id, merge_id) if merge_id else None,
        )

    async def _current_pair(
        self, tx: Tx, bank_id: str, review: Review
    ) -> tuple[StoredEntity, StoredEntity]:
        """Both entities as they are now (merged-away ones followed); 409 when now one."""
        ids = [s.id for s in (review.entity_a, review.entity_b) if s is not None]
        current = [await self._entities.current_entity(tx, bank_id, i) for i in ids]
        if len(current) != 2 or current[0] is None or current[1] is None:
            raise Conflict(
                f"review {review.id!r} is about an entity that no longer exists",
                extra={"review_id": review.id},
            )
        a, b = current[0], current[1]
        if a.id == b.id:
            raise Conflict(
                f"both entities of review {review.id!r} are already one entity ({a.id!r}): "
                "revert that merge to keep them apart",
                extra={"entity_id": a.id},
            )
        return a, b

    async def _evidence_json(self, tx: Tx, bank_id: str, review_id: str) -> str | None:
        rows = await tx.rows(
            "reviews/by_ids",
            {"bank_id": bank_id, "ids": [review_id], "neighbours": 0},
            _ReviewRow,
        )
        return rows[0].review.evidence_json if rows else None

    async def _shape(self, runner: Graph | Tx, bank_id: str, ids: list[str]) -> list[Review]:
        if not ids:
            return []
        rows = await runner.rows(
            "reviews/by_ids",
            {"bank_id": bank_id, "ids": ids, "neighbours": REVIEW_NEIGHBOURS},
            _ReviewRow,
        )
        return [_review(row) for row in rows]


def _review(row: _ReviewRow) -> Review:
    r = row.review
    sides = {s.id: s for s in row.sides}
    return Review(
        id=r.id,
        status=r.status,
        reason=r.reason,
        created_at=r.created_at,
        updated_at=r.updated_at,
        entity_a=_side(r.entity_a, sides),
        entity_b=_side(r.entity_b, sides),
        evidence=decode_json(r.evidence_json),
        decided_at=r.decided_at,
        decided_by=r.decided_by,
        decision_reason=r.decision_reason,
        merge_id=r.merge_id,
    )


def _side(entity_id: str | None, sides: dict[str, _Side]) -> ReviewEntity | None:
    if entity_id is None:
        return None
    side = sides.get(entity_id)
    if side is None:  # the node is gone (deleted with its facts): the id is all there is
        return ReviewEntity(id=entity_id, name=entity_id)
    return ReviewEntity(
        id=side.id,
        name=side.canonical_name or side.id,
        type=side.type or None,
        mention_count=side.mention_count or 0,
        names=list(dict.fromkeys(side.names))[:REVIEW_NAMES],
        neighbours=side.neighbours,
        merged_into=side.merged_into,
    )
