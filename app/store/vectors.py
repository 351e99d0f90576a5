"""The vector-store port: what the rest of Mnemo needs from Qdrant, whichever engine runs it.

Two adapters implement it: ``qdrant_edge.EdgeVectorStore`` (the engine in-process, the
embedded default) and ``qdrant_server.ServerVectorStore`` (qdrant-client against a server).
One point per memory: the point id is the memory id (a UUID string).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Literal, Protocol

import msgspec
import numpy as np
import numpy.typing as npt

# Query vectors: rows of floats, or a (n, dim) float32 array straight from the embedder.
QueryVectors = Sequence[Sequence[float]] | npt.NDArray[np.float32]
TagsMatch = Literal["any", "all", "any_strict", "all_strict", "exact"]
MemoryState = Literal["valid", "invalidated"]


class VectorPayload(msgspec.Struct, frozen=True, kw_only=True):
    """What is stored beside each vector, for filtering inside the search."""

    bank_id: str
    fact_type: str
    state: MemoryState = "valid"
    tags: tuple[str, ...] = ()
    # Event and mention times as Unix seconds (None when unknown).
    occurred_start: float | None = None
    occurred_end: float | None = None
    mentioned_at: float | None = None


class VectorPoint(msgspec.Struct, frozen=True, kw_only=True):
    """One memory's vector."""

    id: str
    vector: Sequence[float]
    payload: VectorPayload


class VectorFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Conditions applied inside the nearest-neighbour search, never after it.

    Tag semantics: ``any`` overlaps (untagged included), ``all`` contains every tag
    (untagged included), the ``_strict`` forms exclude untagged points, ``exact`` is set
    equality. ``tags=None`` means no tag condition at all.
    """

    bank_id: str
    fact_types: tuple[str, ...] | None = None
    states: tuple[MemoryState, ...] = ("valid",)
    tags: tuple[str, ...] | None = None
    tags_match: TagsMatch = "any"
    # Keep points whose event time overlaps [start, end] (Unix seconds; either may be None).
    occurred_after: float | None = None
    occurred_before: float | None = None


class VectorHit(msgspec.Struct, frozen=True):
    """A search result: memory id and cosine similarity (higher is closer)."""

    id: str
    score: float


class VectorStore(Protocol):
    """Fact vectors, scoped by bank through the payload."""

    async def open(self) -> None:
        """Create the collection and payload indexes if needed (idempotent)."""

    async def close(self) -> None:
        """Flush and release the engine."""

    async def healthy(self) -> bool:
        """Return True when the store answers a trivial query."""

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points (batched by the caller)."""

    async def set_state(self, bank_id: str, ids: Sequence[str], state: MemoryState) -> None:
        """Change the ``state`` payload of the given points of one bank."""

    async def delete(self, bank_id: str, ids: Sequence[str]) -> None:
        """Remove points of one bank by id (ids of other banks are left alone)."""

    async def delete_bank(self, bank_id: str) -> None:
        """Remove every point of a bank."""

    async def search(
        self, vector: Sequence[float], where: VectorFilter, limit: int
    ) -> list[VectorHit]:
        """Nearest neighbours by cosine similarity, best first."""

    async def search_many(
        self,
        vectors: QueryVectors,
        where: VectorFilter,
        limit: int,
        min_score: float | None = None,
    ) -> list[list[VectorHit]]:
        """One nearest-neighbour search per vector, in one engine call.

        Much cheaper per query than separate calls while segments are scanned exhaustively.
        ``min_score`` drops hits of a lower cosine similarity (inside the search, so that a
        caller that wants only close points does not sort all of them).
        """

    async def vectors(self, bank_id: str, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The stored vectors of the given points of one bank, by id (absent ids are left out).

        Consolidation reads a fact's vector here instead of embedding its text again.
        """

    async def ids(self, bank_id: str) -> set[str]:
        """Every point id of a bank (for reconciliation with Neo4j)."""

    async def count(self, bank_id: str) -> int:
        """How many points a bank has."""

    async def flush(self) -> None:
        """Make every write so far durable."""

    async def optimize(self) -> bool:
        """Build the vector index over recent writes now; True if anything changed.

        The embedded engine only indexes when asked, and doing so pauses the process (see
        ``qdrant_edge``): call it from start-up or maintenance, never per request. A server
        indexes in the background on its own, so there it does nothing.
        """


# --- The filter plan both adapters translate -------------------------------------------------
# VectorFilter's semantics (tag modes, untagged points, time overlap) are decided once here, as
# a small engine-neutral condition tree; each adapter maps it one-to-one onto its engine's filter
# classes, so the two engines cannot drift apart.

TAGS_FIELD = "tags"
INDEXED_KEYWORDS = ("bank_id", "fact_type", "state", "tags")
INDEXED_FLOATS = ("occurred_start", "occurred_end", "mentioned_at")


class Match(msgspec.Struct, frozen=True):
    """The keyword field equals (or, for an array, contains) ``value``."""

    key: str
    value: str


class MatchAny(msgspec.Struct, frozen=True):
    """The keyword field equals (or, for an array, contains) one of ``values`` (never empty)."""

    key: str
    values: tuple[str, ...]


class Range(msgspec.Struct, frozen=True):
    """The numeric field lies within the bounds; a missing field never matches."""

    key: str
    gte: float | None = None
    lte: float | None = None


class IsEmpty(msgspec.Struct, frozen=True):
    """The field is missing, null or an empty array."""

    key: str


class CountAtMost(msgspec.Struct, frozen=True):
    """The array field holds at most ``n`` values."""

    key: str
    n: int


class AnyOf(msgspec.Struct, frozen=True):
    """At least one of the conditions holds."""

    conditions: tuple[Condition, ...]


class AllOf(msgspec.Struct, frozen=True):
    """Every condition holds."""

    conditions: tuple[Condition, ...]


Condition = Match | MatchAny | Range | IsEmpty | CountAtMost | AnyOf | AllOf


def bank_condition(bank_id: str) -> Match:
    """Return the condition that every operation of one bank carries."""
    return Match("bank_id", bank_id)


def filter_plan(where: VectorFilter) -> tuple[Condition, ...] | None:
    """Return the conditions (all must hold) that implement ``where`` inside a search.

    None means no point can match (an explicitly empty ``fact_types`` or ``states``): the
    adapters answer ``[]`` without asking the engine.

    Tags follow ``app.domain.tags.tags_match``: no query tags means no tag condition; ``exact``
    is "contains every query tag and holds no more values than there are distinct query tags"
    (tags are written de-duplicated). Time overlap treats a point with only one of start/end as
    an instant at that time; a point with neither never matches a time bound.
    """
    if where.fact_types is not None and not where.fact_types:
        return None
    if not where.states:
        return None
    plan: list[Condition] = [bank_condition(where.bank_id)]
    if where.fact_types is not None:
        plan.append(_match_any("fact_type", where.fact_types))
    plan.append(_match_any("state", where.states))
    plan.extend(_tag_conditions(where.tags or (), where.tags_match))
    if where.occurred_before is not None:
        # The event starts at or before the window's end.
        plan.append(
            AnyOf(
                (
                    Range("occurred_start", lte=where.occurred_before),
                    AllOf(
                        (
                            IsEmpty("occurred_start"),
                            Range("occurred_end", lte=where.occurred_before),
                        )
                    ),
                )
            )
        )
    if where.occurred_after is not None:
        # The event ends at or after the window's start.
        plan.append(
            AnyOf(
                (
                    Range("occurred_end", gte=where.occurred_after),
                    AllOf(
                        (
                            IsEmpty("occurred_end"),
                            Range("occurred_start", gte=where.occurred_after),
                        )
                    ),
                )
            )
        )
    return tuple(plan)


def _match_any(key: str, values: Sequence[str]) -> Condition:
    distinct = tuple(dict.fromkeys(values))
    return Match(key, distinct[0]) if len(distinct) == 1 else MatchAny(key, distinct)


def _tag_conditions(tags: Sequence[str], mode: TagsMatch) -> list[Condition]:
    query = tuple(dict.fromkeys(tags))
    if not query:
        return []
    contains_all: list[Condition] = [Match(TAGS_FIELD, tag) for tag in query]
    untagged = IsEmpty(TAGS_FIELD)
    if mode == "any":
        return [AnyOf((MatchAny(TAGS_FIELD, query), untagged))]
    if mode == "any_strict":
        return [MatchAny(TAGS_FIELD, query)]
    if mode == "all":
        return [AnyOf((AllOf(tuple(contains_all)), untagged))]
    if mode == "all_strict":
        return contains_all
    if mode == "exact":
        return [*contains_all, CountAtMost(TAGS_FIELD, len(query))]
    raise ValueError(f"unknown tags_match mode {mode!r}")


def canonical_id(point_id: str) -> str:
    """Return a memory id in canonical form (lower-case hyphenated UUID), as both engines do.

    Qdrant only accepts UUIDs or unsigned integers as point ids, so anything else is refused here
    with a message that names the id, instead of deep inside the engine.
    """
    try:
        return str(uuid.UUID(point_id))
    except (ValueError, AttributeError, TypeError):
        raise ValueError(f"vector point id must be a UUID string, got {point_id!r}") from None


def payload_dict(payload: VectorPayload) -> dict[str, object]:
    """Return the payload as stored.

    Unknown times are left out (so ``IsEmpty`` sees them) and tags are de-duplicated in
    first-seen order (so ``exact`` can count them).
    """
    data: dict[str, object] = {
        "bank_id": payload.bank_id,
        "fact_type": payload.fact_type,
        "state": payload.state,
        "tags": list(dict.fromkeys(payload.tags)),
    }
    for key in INDEXED_FLOATS:
        value = getattr(payload, key)
        if value is not None:
            data[key] = float(value)
    return data
