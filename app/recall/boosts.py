"""Small, bounded boosts applied after fusion: recency, temporal proximity, evidence.

Why bounded: relevance comes from the channels; these signals only say which of two *similarly*
relevant facts an agent most likely wants (the newer one, the one at the asked-about time, the
better-attested one). Each boost is a fraction of the fact's own score, each has a ceiling
(``BoostConfig``), and their sum has a ceiling ``total_max`` (0.20 by default, never above 0.5).
Hence the guarantee the tests check: if fact A's score exceeds fact B's by more than the factor
``1 + total_max``, no combination of boosts puts B above A. Boosts reorder near-ties only; a
recent, well-attested but weakly matching fact can never push out a strong match.

One factor goes the other way, as boundedly: a fact that is itself a question ("What's new with
you?", kept as a fact by offline extraction of chats) states nothing, so it cannot be the
evidence a query asks for, yet a question-form query matches its form. Its score is multiplied
by ``1 - question_penalty`` (at most 0.5; the tuned recipes use 0.25, see
docs/decisions/0005-recall.md).

Last, ``diversify`` demotes repeats of one source chunk (a message cut into sentence facts),
so that a short answer covers more sources (docs/decisions/0005-recall.md).

The boosts are multiplicative (``final = score × (1 + total)``) rather than added, because fused
RRF scores are small numbers (1/61 ≈ 0.016) whose scale depends on k and on the channel count; a
fraction of the score means the same thing whatever that scale is.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

import msgspec

from app.domain.dates import as_utc
from app.recall.candidates import Boosts, FusedResult, TimeWindow, event_interval
from app.recall.fusion import fusion_order
from app.recall.recipes import BoostConfig

_SECONDS_PER_DAY = 86_400.0


class FactSignals(msgspec.Struct, frozen=True, kw_only=True):
    """The attributes of a fact that boosts read (absent times give no boost)."""

    mentioned_at: datetime | None = None
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    # How many mentions / sources support the fact (1 for a plain fact).
    proof_count: int = 1
    # The fact is a question (see ``is_question``): it takes the question penalty.
    is_question: bool = False


_CLOSERS = " \t\r\n\"'\u201d\u2019)]}\u300d\u300f"


def is_question(text: str) -> bool:
    """Whether a fact's text is a question: it ends with "?" (or "？"), closing quotes aside."""
    return text.rstrip(_CLOSERS).endswith(("?", "\uff1f"))


def recency_boost(mentioned_at: datetime | None, now: datetime, config: BoostConfig) -> float:
    """``recency_max × 0.5 ** (age / half-life)``: full for a fact mentioned now.

    A mention stamped after ``now`` (clock skew, a backdated query) counts as age 0, never above
    the maximum.
    """
    if mentioned_at is None:
        return 0.0
    age_days = max(0.0, (as_utc(now) - as_utc(mentioned_at)).total_seconds() / _SECONDS_PER_DAY)
    return config.recency_max * math.pow(0.5, age_days / config.recency_half_life_days)


def temporal_proximity_boost(
    occurred_start: datetime | None,
    occurred_end: datetime | None,
    window: TimeWindow | None,
    config: BoostConfig,
) -> float:
    """Boost a fact by how close its event time is to the query window.

    Full ``temporal_max`` when the event time overlaps the window, halving per half-life of
    distance outside it; 0 without a window or without an event time. A fact with only one of
    start/end is treated as a point at that time.
    """
    interval = event_interval(occurred_start, occurred_end)
    if window is None or interval is None:
        return 0.0
    start, end = interval
    w_start, w_end = as_utc(window.start), as_utc(window.end)
    if end < w_start:
        gap = w_start - end
    elif start > w_end:
        gap = start - w_end
    else:
        return config.temporal_max
    gap_days = gap.total_seconds() / _SECONDS_PER_DAY
    return config.temporal_max * math.pow(0.5, gap_days / config.temporal_half_life_days)


def evidence_boost(proof_count: int, config: BoostConfig) -> float:
    """``evidence_max × min(1, ln n / ln evidence_full_at)``: 0 for one proof, full at the cap.

    Logarithmic because the second and third sources add much more confidence than the
    twentieth; saturating so that a fact repeated a hundred times is not a hundred times truer.
    With the default cap of 8: n=2 → ⅓, n=4 → ⅔, n≥8 → the full boost.
    """
    if proof_count <= 1:
        return 0.0
    share = min(1.0, math.log(proof_count) / math.log(config.evidence_full_at))
    return config.evidence_max * share


def boosts_for(
    signals: FactSignals, *, now: datetime, window: TimeWindow | None, config: BoostConfig
) -> Boosts:
    """All three boosts of one fact and their capped total."""
    recency = recency_boost(signals.mentioned_at, now, config)
    temporal = temporal_proximity_boost(
        signals.occurred_start, signals.occurred_end, window, config
    )
    evidence = evidence_boost(signals.proof_count, config)
    total = min(config.total_max, recency + temporal + evidence)
    penalty = config.question_penalty if signals.is_question else 0.0
    return Boosts(
        recency=recency,
        temporal_proximity=temporal,
        evidence=evidence,
        total=total,
        question_penalty=penalty,
    )


def apply_boosts(
    results: Iterable[FusedResult],
    signals: Mapping[str, FactSignals],
    *,
    now: datetime,
    window: TimeWindow | None,
    config: BoostConfig,
) -> list[FusedResult]:
    """Boost each result's ``final`` score and re-sort, best first.

    Apply once, after fusion (and after a reranker, if one ran): ``final`` becomes
    ``final × (1 + total) × (1 - question_penalty)``. A result without signals keeps its score.
    """
    boosted: list[FusedResult] = []
    for result in results:
        fact = signals.get(result.id)
        if fact is None:
            boosted.append(result)
            continue
        boosts = boosts_for(fact, now=now, window=window, config=config)
        boosted.append(
            msgspec.structs.replace(
                result,
                final=result.final * (1 + boosts.total) * (1 - boosts.question_penalty),
                boosts=boosts,
            )
        )
    boosted.sort(key=fusion_order)
    return boosted


def diversify(
    results: Sequence[FusedResult], source_of: Mapping[str, str], penalty: float
) -> list[FusedResult]:
    """Demote repeats of one source, then re-sort, best first.

    Offline extraction cuts a message into sentence facts that all match the query about it;
    several of them in a short answer spend its room on one source. The n-th result (n >= 1,
    in the given order) from a chunk already represented keeps ``(1 - penalty) ** n`` of its
    score. Results with no known source, and every first fact of a source, are left as they
    are; with ``penalty`` 0 nothing changes.
    """
    if penalty <= 0:
        return list(results)
    seen: Counter[str] = Counter()
    out: list[FusedResult] = []
    for result in results:
        source = source_of.get(result.id)
        if source is None:
            out.append(result)
            continue
        repeats = seen[source]
        seen[source] += 1
        if repeats == 0:
            out.append(result)
            continue
        kept = (1 - penalty) ** repeats
        out.append(
            msgspec.structs.replace(
                result,
                final=result.final * kept,
                boosts=msgspec.structs.replace(result.boosts, source_repeat=round(1 - kept, 6)),
            )
        )
    out.sort(key=fusion_order)
    return out
