"""What ``trace: true`` adds to a recall answer: how each phase saw the query.

The trace is built from the same Structs the phases pass along (channel candidates, fused
results), so it shows exactly what decided the order, not a re-derivation of it:

- ``channels``: each channel's candidates with rank and score, its time, and whether it ran;
- ``fusion``: the fused table, best first: per fact the RRF share of each channel, the boosts and
  the final score (``FusedResult`` as returned by ``rrf`` then ``apply_boosts``);
- ``timings_ms``: wall time per phase in milliseconds. Phase names in use: ``embed``,
  ``query_entities``, ``vector``, ``keyword``, ``graph``, ``temporal``, ``fusion``, ``rerank``,
  ``boosts``, ``budget``, ``hydrate``, ``total``; a phase that did not run is absent. Channel
  times are each channel's own work; ``graph`` starts when the vector and keyword channels
  (its seeds) are done, the others start together.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from app.recall.candidates import (
    Candidate,
    Channel,
    ChannelResult,
    FusedResult,
    QueryEntity,
    TimeWindow,
)
from app.recall.recipes import RecallRecipe

ChannelStatus = Literal["ok", "skipped", "failed", "timeout"]


class ChannelTrace(msgspec.Struct, frozen=True, kw_only=True):
    """One channel in the trace: its candidates, or why it has none."""

    channel: Channel
    status: ChannelStatus = "ok"
    candidates: tuple[Candidate, ...] = ()
    elapsed_ms: float = 0.0
    # Why a channel was skipped or failed ("no time expression in the query", an error class…).
    detail: str | None = None

    @classmethod
    def of(cls, result: ChannelResult) -> ChannelTrace:
        """Trace a channel that ran."""
        return cls(
            channel=result.channel, candidates=result.candidates, elapsed_ms=result.elapsed_ms
        )


class BudgetTrace(msgspec.Struct, frozen=True, kw_only=True):
    """How ``max_tokens`` was filled."""

    max_tokens: int
    used_tokens: int
    kept: int
    dropped: int


class RecallTrace(msgspec.Struct, frozen=True, kw_only=True):
    """The ``trace`` object of a recall answer."""

    recipe: RecallRecipe
    channels: tuple[ChannelTrace, ...]
    fusion: tuple[FusedResult, ...]
    budget: BudgetTrace
    timings_ms: dict[str, float]
    # The event-time window the temporal channel and boost used (parsed or given), if any.
    query_window: TimeWindow | None = None
    # The entities the query was found to name (they seed the graph channel).
    query_entities: tuple[QueryEntity, ...] = ()
    # The text the vector and temporal channels embedded, when it is not the query itself (the
    # query without names too common in the bank to steer similarity: app/recall/query_text.py).
    vector_query: str | None = None
    notes: tuple[str, ...] = ()
