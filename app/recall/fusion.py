"""Reciprocal Rank Fusion of the channels' ranked lists.

RRF (Cormack, Clarke & Büttcher, 2009) scores a fact by ``Σ weight_c / (k + rank_c)`` over the
channels c that found it. It reads only ranks, so channels with incomparable scores (cosine,
BM25, graph scores, temporal overlap) fuse without any calibration, and a fact found by several
channels rises above one found by a single channel. ``k = 60`` (the paper's value) flattens the
head of each list: rank 1 is worth 1/61, rank 2 1/62, so no single channel can dominate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import msgspec

from app.recall.candidates import CHANNELS, Channel, ChannelHit, ChannelResult, FusedResult
from app.recall.recipes import ChannelWeights

DEFAULT_K = 60


def rrf(
    channel_results: Iterable[ChannelResult],
    *,
    k: int = DEFAULT_K,
    weights: ChannelWeights | None = None,
    limit: int | None = None,
) -> list[FusedResult]:
    """Fuse ranked channel lists into one list, best first.

    - Each channel may appear once (twice is a caller bug and raises ``ValueError``); a fact
      listed twice by one channel counts once, at its best rank.
    - A channel with weight 0 is ignored entirely.
    - Sums use ``math.fsum``, which is exact-then-rounded and so independent of summation order:
      two facts with the same ranks in the same channels get bit-identical scores and tie.
    - Ties are broken by the best single-channel rank, then by id, so the order is reproducible.
    - ``limit`` keeps only the best ``limit`` results (``RecallRecipe.max_fused``).
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    weights = weights or ChannelWeights()
    hits: dict[str, dict[Channel, ChannelHit]] = {}
    seen_channels: set[Channel] = set()
    for result in channel_results:
        if result.channel in seen_channels:
            raise ValueError(f"channel {result.channel!r} given twice")
        seen_channels.add(result.channel)
        weight = weights.of(result.channel)
        if weight == 0:
            continue
        for candidate in result.candidates:
            if candidate.rank < 1:
                raise ValueError(f"ranks are 1-based; {candidate.id!r} has {candidate.rank}")
            per_channel = hits.setdefault(candidate.id, {})
            previous = per_channel.get(result.channel)
            if previous is not None and previous.rank <= candidate.rank:
                continue
            per_channel[result.channel] = ChannelHit(
                score=candidate.score,
                rank=candidate.rank,
                contribution=weight / (k + candidate.rank),
            )

    fused: list[FusedResult] = []
    for fact_id, per_channel in hits.items():
        # Re-key in CHANNELS order so that output never depends on the order channels finished.
        ordered = {c: per_channel[c] for c in CHANNELS if c in per_channel}
        score = math.fsum(hit.contribution for hit in ordered.values())
        fused.append(FusedResult(id=fact_id, final=score, rrf=score, channels=ordered))
    fused.sort(key=fusion_order)
    return fused if limit is None else fused[:limit]


def fusion_order(result: FusedResult) -> tuple[float, float, int, str]:
    """Sort key, best first: final score, then fused score, then best single rank, then id."""
    return (-result.final, -result.rrf, result.best_rank, result.id)


def apply_rerank(results: Iterable[FusedResult], scores: Mapping[str, float]) -> list[FusedResult]:
    """Order fused results by a reranker's scores (``final`` becomes the reranker's score).

    A result the reranker did not score gets ``final = 0`` and so follows every scored one, in
    fused order (``fusion_order`` breaks the tie by the RRF score). Reranker scores are expected
    in [0, 1] (a probability), so that the multiplicative boosts applied next keep their meaning.
    """
    reranked = [
        msgspec.structs.replace(result, final=float(scores.get(result.id, 0.0)))
        for result in results
    ]
    reranked.sort(key=fusion_order)
    return reranked
