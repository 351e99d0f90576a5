"""Pure link rules: which facts get TEMPORAL and SEMANTIC edges, and with what weight."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

import msgspec
import numpy as np
import numpy.typing as npt


class LinkPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """Numbers behind the links, with the reason for each."""

    # Nearest facts in event time on each side of a new fact: enough to walk a timeline from
    # any fact without turning busy days into cliques.
    temporal_neighbours: int = 3
    # A gap of this many days halves a temporal link's weight: a week apart is still "around
    # the same time" in a conversation history.
    temporal_half_life_days: float = 7.0
    # Distant neighbours keep some weight so a timeline stays walkable across quiet months.
    temporal_floor: float = 0.3
    # Cosine similarity from which two facts are "about the same thing" (all-MiniLM-L6-v2).
    semantic_threshold: float = 0.7
    # At most this many semantic links per new fact, strongest first.
    semantic_top_k: int = 50


DEFAULT_LINKS = LinkPolicy()


class Link(msgspec.Struct, frozen=True):
    """A directed weighted edge from a new fact to another fact."""

    source: str
    target: str
    weight: float


def temporal_weight(a: datetime, b: datetime, policy: LinkPolicy = DEFAULT_LINKS) -> float:
    """Weight of a temporal link: 1 for the same instant, halving every half-life, floored."""
    gap_days = abs((a - b).total_seconds()) / 86400.0
    decayed = math.pow(0.5, gap_days / policy.temporal_half_life_days)
    return round(max(policy.temporal_floor, decayed), 4)


def by_source(links: Sequence[Link]) -> list[dict[str, object]]:
    """Links grouped by their source fact (up to 50 each): Neo4j finds each source once.

    A pair given twice is sent once (the statement creates an edge per row it gets).
    """
    grouped: dict[str, dict[str, float]] = {}
    for link in links:
        grouped.setdefault(link.source, {})[link.target] = link.weight
    return [
        {"source": source, "links": [{"target": t, "weight": w} for t, w in targets.items()]}
        for source, targets in grouped.items()
    ]


def semantic_pairs(
    ids: Sequence[str], vectors: npt.NDArray[np.float32], policy: LinkPolicy = DEFAULT_LINKS
) -> list[Link]:
    """Semantic links among facts of one batch (rows are L2-normalised embeddings).

    Each unordered pair appears once, from the later fact to the earlier one.
    """
    if len(ids) < 2:
        return []
    sims = vectors @ vectors.T
    links: list[Link] = []
    for i in range(1, len(ids)):
        row = sims[i, :i]
        order = np.argsort(-row)[: policy.semantic_top_k]
        for j in order:
            score = float(row[j])
            if score < policy.semantic_threshold:
                break
            links.append(Link(ids[i], ids[int(j)], round(score, 4)))
    return links
