"""Named recall configurations ("recipes"), one per request budget.

A recipe gathers every knob of a recall in one frozen Struct: how deep each channel looks, how
the graph channel expands, the RRF constant and channel weights, and the boost bounds. The three
named recipes are module constants shared by every request; a request that needs a variant makes
one with ``msgspec.structs.replace`` (which re-runs validation)::

    recipe = msgspec.structs.replace(recipe_for("mid"), vector_limit=80)
    recipe = msgspec.structs.replace(
        recipe, boosts=msgspec.structs.replace(recipe.boosts, recency_half_life_days=7.0)
    )

Nothing may ever assign to a shared recipe (the Structs are frozen, so it cannot): a per-call
change to a module-level recipe is a data race between concurrent requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

import msgspec

from app.errors import InvalidInput
from app.recall.candidates import Channel

Budget = Literal["low", "mid", "high"]

# Boosts may at most scale a fused score by (1 + this); see app/recall/boosts.py for why bounded.
MAX_TOTAL_BOOST = 0.5
# The graph channel's hop bound is spliced into Cypher (variable-length patterns cannot take a
# parameter), so it is an integer in a small, validated range.
MAX_GRAPH_HOPS = 3


class ChannelWeights(msgspec.Struct, frozen=True, kw_only=True):
    """Per-channel RRF weights: a candidate at rank r adds ``weight / (k + r)``.

    Weight 0 turns a channel off for fusion (its candidates are ignored).
    """

    vector: float = 1.0
    keyword: float = 1.0
    graph: float = 1.0
    temporal: float = 1.0

    def __post_init__(self) -> None:
        for channel in ("vector", "keyword", "graph", "temporal"):
            if getattr(self, channel) < 0:
                raise ValueError(f"weights.{channel} must be >= 0")

    def of(self, channel: Channel) -> float:
        """Return the weight of one channel."""
        weight: float = getattr(self, channel)
        return weight


class BoostConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds and shapes of the post-fusion boosts (each a fraction of the fused score)."""

    # Recency of mentioned_at: full boost for a fact mentioned now, half of it after a half-life.
    recency_max: float = 0.10
    recency_half_life_days: float = 30.0
    # Temporal proximity (only when the query has a window): full boost for a fact whose event
    # time overlaps the window, halving every half-life of distance outside it.
    temporal_max: float = 0.15
    temporal_half_life_days: float = 14.0
    # Evidence: log-saturating in proof_count; 0 at one proof, full at ``evidence_full_at``.
    evidence_max: float = 0.05
    evidence_full_at: int = 8
    # Cap on the sum of the three.
    total_max: float = 0.20
    # The one downward factor: a fact that is itself a question ("What's new with you?")
    # states nothing, so it cannot be the evidence asked for; it is only matched by the
    # query's question form. Its score is multiplied by (1 - question_penalty).
    question_penalty: float = 0.0
    # Source diversity: the n-th fact (n >= 1) from a chunk that better-ranked results already
    # stand for keeps (1 - same_source_penalty) ** n of its score (``boosts.diversify``).
    same_source_penalty: float = 0.0

    def __post_init__(self) -> None:
        for name in ("recency_max", "temporal_max", "evidence_max", "total_max"):
            value = getattr(self, name)
            if not 0.0 <= value <= MAX_TOTAL_BOOST:
                raise ValueError(f"boosts.{name} must be within [0, {MAX_TOTAL_BOOST}]")
        for name in ("question_penalty", "same_source_penalty"):
            if not 0.0 <= getattr(self, name) <= MAX_TOTAL_BOOST:
                raise ValueError(f"boosts.{name} must be within [0, {MAX_TOTAL_BOOST}]")
        if self.recency_half_life_days <= 0 or self.temporal_half_life_days <= 0:
            raise ValueError("boost half-lives must be > 0 days")
        if self.evidence_full_at < 2:
            raise ValueError("boosts.evidence_full_at must be >= 2")


class GraphScoringConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Constants of the graph channel's score (app/recall/graph_scoring.py)."""

    # Saturation scale of the weighted count of shared entities: score = 1 - exp(-n / tau).
    entity_tau: float = 1.0
    # How much a SEMANTIC / CAUSED_BY link from a seed is worth, times the link's own weight.
    semantic_weight: float = 0.5
    causal_weight: float = 0.7
    # Each hop beyond the first multiplies a link's contribution by this.
    hop_decay: float = 0.5
    # A seed's strength is 1.0 at rank 1 and halves at rank 1 + seed_half_rank.
    seed_half_rank: int = 10
    # Candidates scoring below this are dropped: RRF reads only ranks, so a list of facts that
    # merely share a hub would still hand its head the same share as a strong match.
    min_score: float = 0.0
    # Specificity an entity named in the query keeps at least, however many facts mention it
    # (1/sqrt(degree) would make "Gina" worth nothing in Gina's own chat history).
    query_entity_floor: float = 0.0

    def __post_init__(self) -> None:
        if self.entity_tau <= 0:
            raise ValueError("graph.entity_tau must be > 0")
        if not 0.0 <= self.min_score < 1.0:
            raise ValueError("graph.min_score must be within [0, 1)")
        if not 0.0 <= self.query_entity_floor <= 1.0:
            raise ValueError("graph.query_entity_floor must be within [0, 1]")
        if self.seed_half_rank < 1:
            raise ValueError("graph.seed_half_rank must be >= 1")
        for name in ("semantic_weight", "causal_weight", "hop_decay"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"graph.{name} must be within [0, 1]")


class TemporalConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Constants of the temporal channel's score (app/recall/graph_scoring.py)."""

    # A fact that overlaps the window at all scores at least this; the rest scales with how much
    # of the fact's own interval lies inside the window (precise facts beat vague ones).
    overlap_floor: float = 0.5
    # A neighbour along TEMPORAL / CAUSED_BY gets this share of its source's score (times the
    # link weight), per hop. Kept below overlap_floor so that facts inside the window always
    # outrank facts that were only reached by spreading.
    spread_decay: float = 0.4
    spread_hops: int = 1
    # Share of a fact's window score that its relevance to the query (cosine) may take away:
    # among facts equally placed in time, the one closer in meaning ranks first, and no fact
    # inside the window drops below ``overlap_floor × (1 - relevance_share)``.
    relevance_share: float = 0.15
    # A fact reached only by spreading is kept only from this score up: a TEMPORAL link keeps
    # at least 0.3 of its weight however far apart the facts are, so without a floor every
    # neighbour of the window (months away) joined the list and took a near-full RRF share.
    # 0.15 keeps neighbours within about a week of a strong fact inside the window.
    spread_min_score: float = 0.15

    def __post_init__(self) -> None:
        if not 0.0 <= self.overlap_floor <= 1.0:
            raise ValueError("temporal.overlap_floor must be within [0, 1]")
        if not 0.0 <= self.spread_decay < 1.0:
            raise ValueError("temporal.spread_decay must be within [0, 1)")
        if not 0.0 <= self.spread_min_score <= 1.0:
            raise ValueError("temporal.spread_min_score must be within [0, 1]")
        if not 0.0 <= self.relevance_share < 1.0:
            raise ValueError("temporal.relevance_share must be within [0, 1)")
        floor = self.overlap_floor * (1.0 - self.relevance_share)
        if self.spread_decay > 0 and self.spread_decay >= floor:
            raise ValueError(
                "temporal.spread_decay must be below "
                "temporal.overlap_floor × (1 - temporal.relevance_share)"
            )
        if not 0 <= self.spread_hops <= MAX_GRAPH_HOPS:
            raise ValueError(f"temporal.spread_hops must be within [0, {MAX_GRAPH_HOPS}]")


class RecallRecipe(msgspec.Struct, frozen=True, kw_only=True):
    """Everything that shapes one recall except the request's own filters and ``max_tokens``."""

    name: str
    # Candidates each channel returns (its LIMIT).
    vector_limit: int
    keyword_limit: int
    graph_limit: int
    temporal_limit: int
    # Graph expansion: how many top vector/keyword hits seed it, how many entities named in the
    # query seed it, how far links are followed, and at most how many facts are followed per
    # entity (the fan-out cap that keeps a hub like "user" from exploding the query).
    graph_seeds: int
    graph_query_entities: int
    graph_max_hops: int
    graph_entity_fanout: int
    # Candidates kept after fusion (boosts, rerank and budget work on these only).
    max_fused: int
    # An entity named in the query and mentioned by at least this share of the bank's facts
    # is a hub: the vector channel embeds the query without its name (app/recall/query_text.py).
    # 0 turns this off.
    hub_share: float = 0.05
    rrf_k: int = 60
    weights: ChannelWeights = msgspec.field(default_factory=ChannelWeights)
    boosts: BoostConfig = msgspec.field(default_factory=BoostConfig)
    graph: GraphScoringConfig = msgspec.field(default_factory=GraphScoringConfig)
    temporal: TemporalConfig = msgspec.field(default_factory=TemporalConfig)

    def __post_init__(self) -> None:
        for name in (
            "vector_limit",
            "keyword_limit",
            "graph_limit",
            "temporal_limit",
            "graph_seeds",
            "graph_entity_fanout",
            "max_fused",
            "rrf_k",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.graph_query_entities < 0:
            raise ValueError("graph_query_entities must be >= 0")
        if not 0.0 <= self.hub_share <= 1.0:
            raise ValueError("hub_share must be within [0, 1]")
        if not 1 <= self.graph_max_hops <= MAX_GRAPH_HOPS:
            raise ValueError(f"graph_max_hops must be within [1, {MAX_GRAPH_HOPS}]")

    def channel_limit(self, channel: Channel) -> int:
        """Return the candidate limit of one channel."""
        limit: int = getattr(self, f"{channel}_limit")
        return limit


# Scoring shared by the three budgets, measured on LoCoMo (docs/decisions/0005-recall.md); the
# class defaults above are the untuned starting point that the unit tests document.
# - vector weighs a little more (1.3) and the graph less (0.6): the graph mostly re-ranks what
#   the text channels found, and at full weight its ties crowded out single-channel evidence.
TUNED_WEIGHTS = ChannelWeights(vector=1.3, keyword=1.0, graph=0.6, temporal=1.0)
# - SEMANTIC links only corroborate (0.05): larger weights lower recall, because facts close
#   to many hits are generic; min_score 0.15 drops facts that merely share a hub with the seeds.
TUNED_GRAPH = GraphScoringConfig(semantic_weight=0.05, min_score=0.15)
# - boosts are tie-breakers: a fact ranked first by every channel leads one ranked second by
#   every channel by only 62/61 (1.64 %, k = 60), so the untuned caps (+10 % recency alone)
#   put a newer runner-up first. The total stays below that gap (1.5 %): on LoCoMo, boosts
#   of any size are neutral. Question facts lose a quarter of their score (boosts.py).
# - source diversity: each further fact of a chunk already in the answer keeps 90 % of its
#   score per repeat (boosts.diversify); a stronger demotion helps LoCoMo a little, but the
#   milder value is kept for banks of long documents, whose chunks hold many relevant facts.
TUNED_BOOSTS = BoostConfig(
    recency_max=0.01,
    temporal_max=0.015,
    evidence_max=0.005,
    total_max=0.015,
    question_penalty=0.25,
    same_source_penalty=0.1,
)

# Fast: shallow channels, one-hop graph from few seeds; for chatty agents that recall every turn.
LOW = RecallRecipe(
    name="low",
    vector_limit=20,
    keyword_limit=20,
    graph_limit=20,
    temporal_limit=20,
    graph_seeds=5,
    graph_query_entities=3,
    graph_max_hops=1,
    graph_entity_fanout=20,
    max_fused=40,
    weights=TUNED_WEIGHTS,
    graph=TUNED_GRAPH,
    boosts=TUNED_BOOSTS,
)

# Default: enough depth to fill the default 4096-token answer (~100 short facts) well.
MID = RecallRecipe(
    name="mid",
    vector_limit=50,
    keyword_limit=50,
    graph_limit=50,
    temporal_limit=50,
    graph_seeds=10,
    graph_query_entities=5,
    graph_max_hops=1,
    graph_entity_fanout=50,
    max_fused=100,
    weights=TUNED_WEIGHTS,
    graph=TUNED_GRAPH,
    boosts=TUNED_BOOSTS,
)

# Thorough: deep channels and two-hop links; for reflect and questions spanning many facts.
HIGH = RecallRecipe(
    name="high",
    vector_limit=100,
    keyword_limit=100,
    graph_limit=100,
    temporal_limit=100,
    graph_seeds=20,
    graph_query_entities=10,
    graph_max_hops=2,
    graph_entity_fanout=100,
    max_fused=200,
    weights=TUNED_WEIGHTS,
    graph=TUNED_GRAPH,
    boosts=TUNED_BOOSTS,
)

# Read-only, like the recipes it holds.
RECIPES: Mapping[str, RecallRecipe] = MappingProxyType({"low": LOW, "mid": MID, "high": HIGH})


def recipe_for(budget: Budget) -> RecallRecipe:
    """Return the shared recipe of a budget (derive variants with ``msgspec.structs.replace``)."""
    try:
        return RECIPES[budget]
    except KeyError:
        raise InvalidInput(
            f"budget must be one of {', '.join(RECIPES)}; got {budget!r}",
            extra={"field": "budget"},
        ) from None
