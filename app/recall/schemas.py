"""What a client sends to recall, and what it gets back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec

from app.domain.facts import FactType
from app.domain.tags import Tag, TagsMatch
from app.recall.candidates import TimeWindow
from app.recall.recipes import Budget
from app.recall.trace import RecallTrace

# The answer's token budget; the ceiling only keeps a typo from asking for a whole bank.
MaxTokens = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
DEFAULT_MAX_TOKENS = 4096


class RecallRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A question to the bank's memory.

    ``query`` is limited to ``MNEMO_MAX_QUERY_CHARS`` characters (2,000 by default).
    ``types`` keeps only those fact types; ``tags`` + ``tags_match`` filter by tags (see
    ``app.domain.tags``); ``query_timestamp`` is "now" for relative time expressions in the
    query and for recency; ``temporal_window`` gives the event-time window directly instead of
    parsing one from the query; ``trace`` adds how each phase saw the query.
    """

    query: str
    types: list[FactType] | None = None
    budget: Budget = "mid"
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS
    tags: list[Tag] | None = None
    tags_match: TagsMatch = "any"
    query_timestamp: datetime | None = None
    temporal_window: TimeWindow | None = None
    trace: bool = False


class MentionedEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity a fact mentions: its id, canonical name, and the text the fact used."""

    id: str
    name: str
    mention: str


class RecallResult(msgspec.Struct, frozen=True, kw_only=True):
    """One recalled fact.

    ``scores`` holds ``final`` (what the order follows) and the score of each channel that
    found the fact (cosine, BM25, graph, temporal: each in its own scale).
    """

    id: str
    text: str
    type: str
    entities: list[MentionedEntity]
    context: str | None
    occurred_start: datetime | None
    occurred_end: datetime | None
    mentioned_at: datetime | None
    document_id: str | None
    metadata: dict[str, Any] | None
    tags: list[str]
    scores: dict[str, float]


class EntitySummary(msgspec.Struct, frozen=True, kw_only=True):
    """An entity of the answer: named in the query, or mentioned by a returned fact."""

    id: str
    name: str
    type: str = ""
    mention_count: int = 0
    # True when the query names it (it seeded the graph channel).
    in_query: bool = False


class RecallResponse(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The facts that fit ``max_tokens``, best first; their entities by id; the trace if asked."""

    results: list[RecallResult]
    entities: dict[str, EntitySummary] = msgspec.field(default_factory=dict)
    trace: RecallTrace | None = None
