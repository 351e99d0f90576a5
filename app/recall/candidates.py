"""Plain data passed between the recall phases: channel candidates, fused results, a time window.

A channel (vector, keyword, graph, temporal) only has to produce ``(id, score)`` pairs; ``ranked``
turns them into a ``ChannelResult`` with deterministic 1-based ranks, which is all that fusion
reads. Scores stay attached so that answers and traces can show them, but fusion never compares
scores across channels (a cosine and a BM25 score share no scale).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

import msgspec

from app.domain.dates import as_utc

Channel = Literal["vector", "keyword", "graph", "temporal"]

# The fixed order in which channels are listed everywhere (fusion tables, scores, traces), so that
# output never depends on which channel happened to finish first.
CHANNELS: tuple[Channel, ...] = ("vector", "keyword", "graph", "temporal")


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """One fact found by one channel.

    ``score`` is the channel's own score (cosine, BM25, graph score, temporal overlap);
    ``rank`` is 1-based, and tied scores share a rank (see ``ranked``).
    """

    id: str
    score: float
    rank: int


class ChannelResult(msgspec.Struct, frozen=True, kw_only=True):
    """A channel's ranked candidates, best first, and how long the channel took."""

    channel: Channel
    candidates: tuple[Candidate, ...]
    elapsed_ms: float = 0.0


class ChannelHit(msgspec.Struct, frozen=True, kw_only=True):
    """How one channel saw a fused result: its score, its rank, and what it added to RRF."""

    score: float
    rank: int
    contribution: float


class Boosts(msgspec.Struct, frozen=True, kw_only=True):
    """The boosts applied to one result, as fractions of its fused score (0.05 = +5 %).

    ``total`` is the sum of the three, capped by the recipe's ``total_max``; the final score is
    ``fused × (1 + total) × (1 - question_penalty) × (1 - source_repeat)``.
    """

    recency: float = 0.0
    temporal_proximity: float = 0.0
    evidence: float = 0.0
    total: float = 0.0
    # The share taken off a fact that is a question (see ``BoostConfig.question_penalty``).
    question_penalty: float = 0.0
    # The share taken off a fact whose source chunk better-ranked facts already represent
    # (see ``boosts.diversify``).
    source_repeat: float = 0.0


class FusedResult(msgspec.Struct, frozen=True, kw_only=True):
    """One fact after fusion (and, later, boosts).

    ``rrf`` is the Reciprocal Rank Fusion score; ``final`` is what results are ordered by:
    equal to ``rrf`` straight out of fusion (or a reranker's score, if one ran), then multiplied
    by ``1 + boosts.total`` in ``apply_boosts``.
    ``channels`` holds only the channels that found the fact, in ``CHANNELS`` order.
    """

    id: str
    final: float
    rrf: float
    channels: dict[Channel, ChannelHit]
    boosts: Boosts = msgspec.field(default_factory=Boosts)

    @property
    def best_rank(self) -> int:
        """The best (lowest) rank any channel gave this fact; breaks ties between equal scores."""
        return min(hit.rank for hit in self.channels.values())

    def scores(self) -> dict[str, float]:
        """Return ``{"final": …, "<channel>": <its score>, …}`` as the recall answer shows it."""
        out: dict[str, float] = {"final": self.final}
        for channel, hit in self.channels.items():
            out[channel] = hit.score
        return out


class TimeWindow(msgspec.Struct, frozen=True, kw_only=True):
    """A closed event-time interval ``[start, end]`` that a query is about.

    Naive datetimes are read as UTC everywhere in recall, so a window parsed from text and a
    fact's stored times always compare.
    """

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        if as_utc(self.end) < as_utc(self.start):
            raise ValueError("a time window must not end before it starts")


def event_interval(
    start: datetime | None, end: datetime | None
) -> tuple[datetime, datetime] | None:
    """Return a fact's event time as a UTC ``(start, end)`` pair; None when it has neither.

    One missing end makes the fact a point at the other; a reversed pair (bad data) is put in
    order rather than dropped.
    """
    if start is not None:
        first = as_utc(start)
    elif end is not None:
        first = as_utc(end)
    else:
        return None
    last = as_utc(end) if end is not None else first
    return (first, last) if first <= last else (last, first)


def ranked(
    channel: Channel, scored: Iterable[tuple[str, float]], *, elapsed_ms: float = 0.0
) -> ChannelResult:
    """Rank ``(id, score)`` pairs, higher score first, into a ``ChannelResult``.

    - An id listed more than once keeps its best score (a fact is one candidate per channel).
    - Equal scores share a rank ("1224" competition ranking): a channel that cannot tell two facts
      apart must not hand one of them a better RRF share because of its id. Within a tie the
      order is by id, only so that output is reproducible.
    """
    best: dict[str, float] = {}
    for fact_id, score in scored:
        if fact_id not in best or score > best[fact_id]:
            best[fact_id] = score
    ordered = sorted(best.items(), key=lambda item: (-item[1], item[0]))
    candidates: list[Candidate] = []
    for position, (fact_id, score) in enumerate(ordered, start=1):
        tied = bool(candidates) and candidates[-1].score == score
        rank = candidates[-1].rank if tied else position
        candidates.append(Candidate(id=fact_id, score=score, rank=rank))
    return ChannelResult(channel=channel, candidates=tuple(candidates), elapsed_ms=elapsed_ms)


class QueryEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity the query names, and how sure the lookup is (1.0: exact name)."""

    id: str
    name: str
    type: str = ""
    # Facts that mention the entity (hubs have large degrees and count for little).
    degree: int = 0
    # The words of the query that named it.
    matched: str
    strength: float = 1.0
