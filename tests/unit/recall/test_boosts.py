import random
from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.recall.boosts import (
    FactSignals,
    apply_boosts,
    boosts_for,
    diversify,
    evidence_boost,
    recency_boost,
    temporal_proximity_boost,
)
from app.recall.candidates import ChannelHit, FusedResult, TimeWindow
from app.recall.recipes import BoostConfig

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)
CONFIG = BoostConfig()  # recency 0.10 / 30 d, temporal 0.15 / 14 d, evidence 0.05 at 8, total 0.20
MAY = TimeWindow(start=datetime(2024, 5, 1, tzinfo=UTC), end=datetime(2024, 5, 31, tzinfo=UTC))
LONG_AGO = NOW - timedelta(days=3650)


def fused(fact_id: str, score: float) -> FusedResult:
    hit = ChannelHit(score=score, rank=1, contribution=score)
    return FusedResult(id=fact_id, final=score, rrf=score, channels={"vector": hit})


def test_recency_is_full_now_and_halves_every_half_life():
    assert recency_boost(NOW, NOW, CONFIG) == pytest.approx(0.10)
    assert recency_boost(NOW - timedelta(days=30), NOW, CONFIG) == pytest.approx(0.05)
    assert recency_boost(NOW - timedelta(days=60), NOW, CONFIG) == pytest.approx(0.025)


def test_recency_of_a_future_mention_is_capped_at_the_maximum():
    assert recency_boost(NOW + timedelta(days=5), NOW, CONFIG) == pytest.approx(0.10)


def test_no_mention_time_gives_no_recency_boost():
    assert recency_boost(None, NOW, CONFIG) == 0.0


def test_naive_datetimes_are_read_as_utc():
    naive = datetime(2024, 5, 2, 12, 0)  # 30 days before NOW
    assert recency_boost(naive, NOW, CONFIG) == pytest.approx(0.05)
    plus_two = timezone(timedelta(hours=2))
    same_instant = datetime(2024, 5, 2, 14, 0, tzinfo=plus_two)
    assert recency_boost(same_instant, NOW, CONFIG) == pytest.approx(0.05)


def test_recency_half_life_is_configurable():
    weekly = BoostConfig(recency_half_life_days=7.0)
    assert recency_boost(NOW - timedelta(days=7), NOW, weekly) == pytest.approx(0.05)


def test_temporal_proximity_is_full_inside_the_window():
    inside = datetime(2024, 5, 10, tzinfo=UTC)
    assert temporal_proximity_boost(inside, inside, MAY, CONFIG) == pytest.approx(0.15)
    # A fact spanning the window's start overlaps it.
    start, end = datetime(2024, 4, 20, tzinfo=UTC), datetime(2024, 5, 2, tzinfo=UTC)
    assert temporal_proximity_boost(start, end, MAY, CONFIG) == pytest.approx(0.15)


def test_temporal_proximity_halves_every_half_life_outside_the_window():
    after = datetime(2024, 6, 14, tzinfo=UTC)  # 14 days after May 31
    assert temporal_proximity_boost(after, None, MAY, CONFIG) == pytest.approx(0.075)
    before = datetime(2024, 4, 3, tzinfo=UTC)  # 28 days before May 1
    assert temporal_proximity_boost(None, before, MAY, CONFIG) == pytest.approx(0.0375)


def test_temporal_proximity_needs_a_window_and_an_event_time():
    inside = datetime(2024, 5, 10, tzinfo=UTC)
    assert temporal_proximity_boost(inside, inside, None, CONFIG) == 0.0
    assert temporal_proximity_boost(None, None, MAY, CONFIG) == 0.0


def test_evidence_is_log_saturating():
    assert evidence_boost(1, CONFIG) == 0.0
    assert evidence_boost(0, CONFIG) == 0.0
    assert evidence_boost(2, CONFIG) == pytest.approx(0.05 / 3)  # ln 2 / ln 8 = 1/3
    assert evidence_boost(4, CONFIG) == pytest.approx(0.05 * 2 / 3)
    assert evidence_boost(8, CONFIG) == pytest.approx(0.05)
    assert evidence_boost(1000, CONFIG) == pytest.approx(0.05)


def test_total_boost_is_capped():
    best = FactSignals(
        mentioned_at=NOW,
        occurred_start=datetime(2024, 5, 10, tzinfo=UTC),
        proof_count=50,
    )
    boosts = boosts_for(best, now=NOW, window=MAY, config=CONFIG)
    assert boosts.recency == pytest.approx(0.10)
    assert boosts.temporal_proximity == pytest.approx(0.15)
    assert boosts.evidence == pytest.approx(0.05)
    assert boosts.total == pytest.approx(0.20)  # 0.30 capped


def test_apply_boosts_scales_final_by_one_plus_total():
    result = fused("a", 1 / 61)
    signals = {"a": FactSignals(mentioned_at=NOW - timedelta(days=30))}
    (boosted,) = apply_boosts([result], signals, now=NOW, window=None, config=CONFIG)
    assert boosted.final == pytest.approx(1 / 61 * 1.05)
    assert boosted.rrf == pytest.approx(1 / 61)
    assert boosted.boosts.recency == pytest.approx(0.05)


def test_result_without_signals_keeps_its_score():
    result = fused("a", 0.5)
    assert apply_boosts([result], {}, now=NOW, window=None, config=CONFIG) == [result]


def test_boost_reorders_a_near_tie():
    # Rank 1 vs rank 2 in one channel: 1/61 vs 1/62, 1.6 % apart; a fresh mention decides.
    old, fresh = fused("old", 1 / 61), fused("fresh", 1 / 62)
    signals = {"old": FactSignals(mentioned_at=LONG_AGO), "fresh": FactSignals(mentioned_at=NOW)}
    ordered = apply_boosts([old, fresh], signals, now=NOW, window=None, config=CONFIG)
    assert [r.id for r in ordered] == ["fresh", "old"]


def test_boost_never_overturns_a_clearly_better_fact():
    # Found by two channels at rank 1 (2/61) vs by one channel at rank 1 (1/61), every boost maxed.
    strong, weak = fused("strong", 2 / 61), fused("weak", 1 / 61)
    signals = {
        "strong": FactSignals(mentioned_at=LONG_AGO, proof_count=1),
        "weak": FactSignals(
            mentioned_at=NOW, occurred_start=datetime(2024, 5, 10, tzinfo=UTC), proof_count=100
        ),
    }
    ordered = apply_boosts([weak, strong], signals, now=NOW, window=MAY, config=CONFIG)
    assert [r.id for r in ordered] == ["strong", "weak"]
    assert ordered[1].final == pytest.approx(1 / 61 * 1.2)


def test_no_boost_overturns_a_lead_larger_than_the_total_cap():
    rng = random.Random(5)
    for _ in range(500):
        low = rng.uniform(0.001, 0.05)
        high = low * (1 + CONFIG.total_max) * rng.uniform(1.0001, 1.5)
        signals = {
            "high": FactSignals(mentioned_at=NOW - timedelta(days=rng.uniform(0, 5000))),
            "low": FactSignals(
                mentioned_at=NOW - timedelta(days=rng.uniform(0, 5000)),
                occurred_start=NOW - timedelta(days=rng.uniform(0, 400)),
                proof_count=rng.randint(1, 50),
            ),
        }
        ordered = apply_boosts(
            [fused("low", low), fused("high", high)],
            signals,
            now=NOW,
            window=MAY,
            config=CONFIG,
        )
        assert ordered[0].id == "high"


def test_boost_bounds_above_the_ceiling_are_rejected():
    with pytest.raises(ValueError, match="total_max"):
        BoostConfig(total_max=0.9)
    with pytest.raises(ValueError, match="half-lives"):
        BoostConfig(recency_half_life_days=0)


def test_a_question_is_recognised_by_its_final_question_mark():
    from app.recall.boosts import is_question

    assert is_question("Melanie: What's new with you?")
    assert is_question('She asked "why?"')
    assert is_question("他是谁？")
    assert not is_question("Caroline: I went to the support group.")
    assert not is_question("Is it? Yes it is.")


def test_question_penalty_scales_the_score_down_and_is_bounded():
    config = BoostConfig(question_penalty=0.25, recency_max=0.0, total_max=0.2)
    question = FactSignals(is_question=True)
    statement = FactSignals()
    results = apply_boosts(
        [fused("q", 1.0), fused("s", 0.8)],
        {"q": question, "s": statement},
        now=NOW,
        window=None,
        config=config,
    )
    assert [r.id for r in results] == ["s", "q"]
    assert results[1].final == pytest.approx(0.75)
    assert results[1].boosts.question_penalty == 0.25
    with pytest.raises(ValueError, match="question_penalty"):
        BoostConfig(question_penalty=0.6)


def test_diversify_lets_another_source_past_the_third_sentence_of_one_message():
    # Three sentence facts of one message rank 1-3; another message's fact is a close 4th.
    results = [fused("a1", 0.0164), fused("a2", 0.0161), fused("a3", 0.0159), fused("b", 0.0158)]
    sources = {"a1": "msg-a", "a2": "msg-a", "a3": "msg-a", "b": "msg-b"}
    out = diversify(results, sources, 0.1)
    assert [r.id for r in out] == ["a1", "b", "a2", "a3"]
    assert out[0].final == results[0].final  # a source's best fact is untouched
    assert out[2].final == pytest.approx(0.0161 * 0.9)
    assert out[3].final == pytest.approx(0.0159 * 0.81)  # the second repeat loses more
    assert out[3].boosts.source_repeat == pytest.approx(0.19)


def test_diversify_never_lifts_a_weak_match_over_a_strong_first_repeat():
    results = [fused("a1", 0.030), fused("a2", 0.029), fused("b", 0.010)]
    out = diversify(results, {"a1": "x", "a2": "x", "b": "y"}, 0.1)
    assert [r.id for r in out] == ["a1", "a2", "b"]


def test_diversify_without_penalty_or_sources_changes_nothing():
    results = [fused("a1", 0.02), fused("a2", 0.019), fused("b", 0.018)]
    assert diversify(results, {"a1": "x", "a2": "x", "b": "y"}, 0.0) == results
    assert diversify(results, {}, 0.3) == results
