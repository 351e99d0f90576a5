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


class IncludeBudget(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask for an optional part of the answer, within this many tokens."""

    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS


# Hindsight's source-fact budgets, where -1 means unlimited.
SourceFactsTokens = Annotated[int, msgspec.Meta(ge=-1, le=1_000_000)]


class SourceFactsBudget(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``include.source_facts``: the facts behind observation results, within these budgets.

    Tokens in all and per observation; -1 is unlimited.
    """

    max_tokens: SourceFactsTokens = DEFAULT_MAX_TOKENS
    max_tokens_per_observation: SourceFactsTokens = -1


class RecallInclude(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Optional parts of a recall answer (Hindsight's ``include``).

    ``entities``: the entities of the answer (Mnemo always returns them); ``chunks``: the source
    chunk of each result, by chunk id; ``source_facts``: the facts behind observation results.
    """

    entities: IncludeBudget | None = None
    chunks: IncludeBudget | None = None
    source_facts: SourceFactsBudget | None = None


class MinScores(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Hindsight's per-stage score floors."""

    semantic: float | None = None
    keyword: float | None = None
    reranker: float | None = None
    final: float | None = None


class RecallRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A question to the bank's memory.

    ``query`` is limited to ``MNEMO_MAX_QUERY_CHARS`` characters (2,000 by default).
    ``types`` keeps only those fact types (without it: world and experience facts, plus
    observations when ``prefer_observations`` is set); ``tags`` + ``tags_match`` filter by tags (see
    ``app.domain.tags``); ``query_timestamp`` is "now" for relative time expressions in the
    query and for recency; ``temporal_window`` gives the event-time window directly instead of
    parsing one from the query; ``trace`` adds how each phase saw the query.

    ``prefer_observations`` leaves out the facts a returned observation was consolidated from
    (the observation carries their evidence); ``include.source_facts`` adds those facts to the
    answer under ``source_facts``. ``tag_groups`` and ``min_scores`` are Hindsight's keys:
    accepted so that its clients work unchanged, and named in the answer's ``warnings``.
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
    include: RecallInclude | None = None
    prefer_observations: bool | None = None
    tag_groups: list[dict[str, Any]] | None = None
    min_scores: MinScores | None = None


class MentionedEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity a fact mentions: its id, canonical name, and the text the fact used."""

    id: str
    name: str
    mention: str


class RecallResult(msgspec.Struct, frozen=True, kw_only=True):
    """One recalled fact (or observation).

    ``entities`` names the entities the fact mentions (Hindsight's shape); ``mentions`` has
    each one's id, canonical name and the text the fact used. ``scores`` holds ``final`` (what
    the order follows) and the score of each channel that found the fact (cosine, BM25, graph,
    temporal: each in its own scale). ``proof_count`` is 1 for a fact and an observation's
    number of valid sources (``source_memory_ids``).
    """

    id: str
    text: str
    type: str
    mentions: list[MentionedEntity]
    context: str | None
    occurred_start: datetime | None
    occurred_end: datetime | None
    mentioned_at: datetime | None
    document_id: str | None
    metadata: dict[str, Any] | None
    tags: list[str]
    scores: dict[str, float]
    proof_count: int = 1
    source_memory_ids: list[str] | None = None
    chunk_id: str | None = None
    entities: list[str] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(
            self, "entities", list(dict.fromkeys(m.name for m in self.mentions))
        )


class EntitySummary(msgspec.Struct, frozen=True, kw_only=True):
    """An entity of the answer: named in the query, or mentioned by a returned fact.

    ``entity_id``, ``canonical_name`` and ``observations`` are Hindsight's names (its entity
    observations are not kept by Mnemo, so the list is empty).
    """

    id: str
    name: str
    type: str = ""
    mention_count: int = 0
    # True when the query names it (it seeded the graph channel).
    in_query: bool = False
    entity_id: str = ""
    canonical_name: str = ""
    observations: list[dict[str, Any]] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "entity_id", self.id)
        msgspec.structs.force_setattr(self, "canonical_name", self.name)


class RecallChunk(msgspec.Struct, frozen=True, kw_only=True):
    """The chunk a result came from (``include.chunks``), cut to the chunk token budget."""

    id: str
    text: str
    chunk_index: int
    document_id: str | None = None
    truncated: bool = False


class RecallResponse(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The facts that fit ``max_tokens``, best first; their entities by id; the trace if asked.

    ``chunks`` (by chunk id) is present when ``include.chunks`` asked for it, ``source_facts``
    (by fact id: the facts behind the observation results, within their budget, and
    ``source_facts_truncated`` when some did not fit) when ``include.source_facts`` did;
    ``warnings`` names request keys Mnemo accepted but does not honour.
    """

    results: list[RecallResult]
    entities: dict[str, EntitySummary] = msgspec.field(default_factory=dict)
    trace: RecallTrace | None = None
    chunks: dict[str, RecallChunk] | None = None
    source_facts: dict[str, RecallResult] | None = None
    source_facts_truncated: bool | None = None
    warnings: list[str] = msgspec.field(default_factory=list)
