"""How the graph and temporal channels score the facts they reach (pure; the Cypher fetches).

**Graph channel.** Starting from seeds (top vector/keyword facts, and entities named in the
query), a candidate fact is reached through

- *shared entities*: each distinct entity it shares with a seed counts once, weighted by
  ``specificity = 1 / sqrt(degree)`` (degree = facts mentioning the entity, as in entity
  resolution's co-occurrence weighting) and by the strength of the strongest seed it came from.
  The weighted count n saturates: ``entity_score = 1 - exp(-n / tau)``. Two specific shared
  entities say much more than one, ten say little more than five, and a hub like "user"
  (degree in the thousands) adds almost nothing however many facts share it;
- *links* from a seed: SEMANTIC (times its cosine weight) and CAUSED_BY (times its weight), each
  scaled by its kind's weight, the seed's strength, and ``hop_decay`` per hop beyond the first.

The parts combine as a noisy-OR, ``1 - Π(1 - part)``, over the entity part and the strongest link
of each kind: every kind of evidence adds, nothing exceeds 1, and one strong path is not diluted by
weak ones (as an average would).

**Temporal channel.** A fact whose event time overlaps the query window scores
``overlap_floor + (1 - overlap_floor) × (share of the fact's interval inside the window)``, so a
fact on May 5 outranks "sometime in 2023" for a May 2023 window. Neighbours along TEMPORAL /
CAUSED_BY links receive ``source × link weight × spread_decay`` per hop. Because
``spread_decay < overlap_floor`` (validated), every fact inside the window outranks every fact
only reached by spreading.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Literal

import msgspec

from app.domain.dates import as_utc
from app.recall.candidates import TimeWindow, event_interval
from app.recall.recipes import GraphScoringConfig, TemporalConfig

LinkKind = Literal["semantic", "caused_by"]
SpreadKind = Literal["temporal", "caused_by"]


class EntityReach(msgspec.Struct, frozen=True, kw_only=True):
    """An entity that a candidate fact shares with a seed."""

    entity_id: str
    # Facts in the bank that mention the entity (its fan-out); hubs have large degrees.
    degree: int
    # Strength in [0, 1] of the seed it came from: 1.0 for an entity named in the query.
    seed_strength: float = 1.0
    # A floor under the specificity: an entity the query names keeps at least
    # ``GraphScoringConfig.query_entity_floor`` however many facts mention it.
    min_specificity: float = 0.0


class LinkReach(msgspec.Struct, frozen=True, kw_only=True):
    """A SEMANTIC or CAUSED_BY path from a seed fact to a candidate fact."""

    kind: LinkKind
    # The stored link weight in [0, 1] (for a multi-hop path, the product along it).
    weight: float
    seed_strength: float = 1.0
    hops: int = 1


class SpreadLink(msgspec.Struct, frozen=True, kw_only=True):
    """A TEMPORAL or CAUSED_BY link the temporal channel may spread along (either direction)."""

    source: str
    target: str
    kind: SpreadKind
    weight: float


def _unit(value: float) -> float:
    """Clamp into [0, 1]: stored weights and cosines can stray by a rounding error."""
    return min(1.0, max(0.0, value))


def seed_strength(rank: int, config: GraphScoringConfig) -> float:
    """Strength of a seed from its rank among the seeds: 1.0 at rank 1, 0.5 at ``1 + half``.

    Ranks, not scores, because seeds come from channels whose scores share no scale.
    """
    if rank < 1:
        raise ValueError("ranks are 1-based")
    half = config.seed_half_rank
    return half / (half + rank - 1)


def entity_specificity(degree: int) -> float:
    """``1 / sqrt(degree)``: 1.0 for an entity of one fact, 0.1 for one of a hundred."""
    return 1.0 / math.sqrt(max(1, degree))


def entity_score(reaches: Iterable[EntityReach], config: GraphScoringConfig) -> float:
    """Saturating score of the distinct shared entities: ``1 - exp(-n / tau)``.

    ``n = Σ over distinct entities of max(specificity, min_specificity) × seed strength``; an
    entity reached from several seeds counts once, through its strongest seed.
    """
    best: dict[str, float] = {}
    for reach in reaches:
        specificity = max(entity_specificity(reach.degree), _unit(reach.min_specificity))
        weight = specificity * _unit(reach.seed_strength)
        best[reach.entity_id] = max(weight, best.get(reach.entity_id, 0.0))
    weighted_count = math.fsum(best.values())
    return 1.0 - math.exp(-weighted_count / config.entity_tau)


def link_contribution(reach: LinkReach, config: GraphScoringConfig) -> float:
    """One link path's share: kind weight × link weight × seed strength × decay^(hops - 1)."""
    if reach.hops < 1:
        raise ValueError("a link path has at least one hop")
    kind_weight = config.semantic_weight if reach.kind == "semantic" else config.causal_weight
    decay = config.hop_decay ** (reach.hops - 1)
    return kind_weight * _unit(reach.weight) * _unit(reach.seed_strength) * decay


def graph_score(
    entities: Iterable[EntityReach], links: Iterable[LinkReach], config: GraphScoringConfig
) -> float:
    """Score a candidate in [0, 1]: the noisy-OR of its entity part and its strongest links.

    Links count once per kind, through their strongest path: a fact that many seeds are
    SEMANTIC-ally close to is a "centroid" of the hits (on LoCoMo, generic chit-chat such as
    "What did it look like?"), and letting those paths add up ranked it above facts sharing
    a specific entity with the query.
    """
    miss = 1.0 - entity_score(entities, config)
    strongest: dict[str, float] = {}
    for reach in links:
        share = link_contribution(reach, config)
        strongest[reach.kind] = max(share, strongest.get(reach.kind, 0.0))
    for share in strongest.values():
        miss *= 1.0 - share
    return 1.0 - miss


def window_overlap_score(
    occurred_start: datetime | None,
    occurred_end: datetime | None,
    window: TimeWindow,
    config: TemporalConfig,
) -> float:
    """Temporal score of a fact against the window; 0 when its event time is unknown or outside.

    The window and the fact are closed intervals, so a point fact on the window's edge is inside
    (and a point fact inside counts as wholly inside).
    """
    interval = event_interval(occurred_start, occurred_end)
    if interval is None:
        return 0.0
    start, end = interval
    w_start, w_end = as_utc(window.start), as_utc(window.end)
    if end < w_start or start > w_end:
        return 0.0
    length = (end - start).total_seconds()
    inside = (min(end, w_end) - max(start, w_start)).total_seconds()
    share = 1.0 if length == 0 else inside / length
    return config.overlap_floor + (1.0 - config.overlap_floor) * share


def spread(
    inside: Mapping[str, float], links: Iterable[SpreadLink], config: TemporalConfig
) -> dict[str, float]:
    """Spread window scores along links for ``config.spread_hops`` hops; keep the best per fact.

    Links are followed both ways: the cause of an event in the window and its effect are both
    relevant to "what happened then". A fact never loses score by spreading (max, not sum), so a
    fact inside the window keeps its own score.
    """
    neighbours: dict[str, list[tuple[str, float]]] = {}
    for link in links:
        weight = _unit(link.weight)
        neighbours.setdefault(link.source, []).append((link.target, weight))
        neighbours.setdefault(link.target, []).append((link.source, weight))
    scores = dict(inside)
    frontier = dict(inside)
    for _ in range(config.spread_hops):
        reached: dict[str, float] = {}
        for fact_id, score in frontier.items():
            for other, weight in neighbours.get(fact_id, ()):
                share = score * weight * config.spread_decay
                if share > max(scores.get(other, 0.0), reached.get(other, 0.0)):
                    reached[other] = share
        if not reached:
            break
        scores.update(reached)
        frontier = reached
    return scores


# --- Putting reaches together (what the channels call) -----------------------------------------


class SeedEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity the graph channel expands from, and where it came from.

    ``via`` is the seed fact that mentions it, or ``""`` for an entity named in the query;
    ``strength`` is that seed's strength (or the query match's).
    """

    entity_id: str
    degree: int
    via: str
    strength: float


class LinkPath(msgspec.Struct, frozen=True, kw_only=True):
    """A SEMANTIC / CAUSED_BY path from the seed fact ``seed`` to the candidate ``target``."""

    seed: str
    target: str
    reach: LinkReach


def graph_candidates(
    seed_entities: Iterable[SeedEntity],
    memberships: Mapping[str, Iterable[str]],
    links: Iterable[LinkPath],
    config: GraphScoringConfig,
) -> dict[str, float]:
    """Score every fact the graph channel reached; drop those below ``config.min_score``.

    ``memberships`` maps a candidate fact to the reached entities it mentions. A fact never
    reaches itself: an entity counts for a seed fact only through *another* seed (or the
    query), and a link path only for a target other than its seed. So seeds that corroborate
    each other rise, and a seed alone gets nothing from its own entities. An entity the query
    names keeps at least ``query_entity_floor`` of specificity: the user asked about it, so its
    facts are relevant however common it is (``entity_score`` keeps the strongest reach).
    """
    by_entity: dict[str, list[SeedEntity]] = {}
    for seed in seed_entities:
        by_entity.setdefault(seed.entity_id, []).append(seed)
    entity_reaches: dict[str, list[EntityReach]] = {}
    for fact_id, entity_ids in memberships.items():
        for entity_id in set(entity_ids):
            reaches = [
                EntityReach(
                    entity_id=entity_id,
                    degree=s.degree,
                    seed_strength=s.strength,
                    min_specificity=config.query_entity_floor if s.via == "" else 0.0,
                )
                for s in by_entity.get(entity_id, ())
                if s.via != fact_id
            ]
            if reaches:
                entity_reaches.setdefault(fact_id, []).extend(reaches)
    link_reaches: dict[str, list[LinkReach]] = {}
    for path in links:
        if path.target != path.seed:
            link_reaches.setdefault(path.target, []).append(path.reach)
    scores: dict[str, float] = {}
    for fact_id in entity_reaches.keys() | link_reaches.keys():
        score = graph_score(entity_reaches.get(fact_id, ()), link_reaches.get(fact_id, ()), config)
        if score > 0 and score >= config.min_score:
            scores[fact_id] = score
    return scores


def inside_window_score(overlap: float, similarity: float, config: TemporalConfig) -> float:
    """A fact inside the window: its overlap score, trimmed by at most ``relevance_share``.

    ``overlap × (1 - relevance_share × (1 - cosine⁺))``: event-time precision decides first,
    closeness in meaning orders facts equally placed in time. A cosine outside [0, 1] is
    clamped, so the result stays within [overlap × (1 - share), overlap].
    """
    return overlap * (1.0 - config.relevance_share * (1.0 - _unit(similarity)))
