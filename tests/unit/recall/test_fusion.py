import pytest

from app.recall.candidates import Candidate, Channel, ChannelResult, ranked
from app.recall.fusion import rrf
from app.recall.recipes import ChannelWeights


def channel(name: Channel, *ids: str) -> ChannelResult:
    """A channel result listing ``ids`` at ranks 1, 2, 3… with descending dummy scores."""
    return ChannelResult(
        channel=name,
        candidates=tuple(
            Candidate(id=fact_id, score=1.0 - i / 100, rank=i + 1) for i, fact_id in enumerate(ids)
        ),
    )


def test_rrf_of_ranks_1_and_3_is_the_sum_of_reciprocals_with_k_60():
    fused = rrf([channel("vector", "a"), channel("keyword", "x", "y", "a")])
    a = next(r for r in fused if r.id == "a")
    assert a.rrf == pytest.approx(1 / 61 + 1 / 63)
    assert a.final == a.rrf
    assert a.channels["vector"].contribution == pytest.approx(1 / 61)
    assert a.channels["keyword"].contribution == pytest.approx(1 / 63)
    assert a.channels["keyword"].rank == 3


def test_fact_found_by_two_channels_beats_a_single_channel_top_hit():
    fused = rrf([channel("vector", "solo", "both"), channel("keyword", "other", "both")])
    assert fused[0].id == "both"
    assert fused[0].rrf == pytest.approx(2 / 62)  # 0.03226 > 1/61 = 0.01639
    assert {r.id: r.rrf for r in fused[1:]} == pytest.approx({"solo": 1 / 61, "other": 1 / 61})


def test_mirrored_ranks_tie_exactly_and_break_by_id():
    # b: vector 1 + keyword 3; a: vector 3 + keyword 1 → identical sums, identical best rank 1.
    fused = rrf([channel("vector", "b", "c", "a"), channel("keyword", "a", "c", "b")])
    assert fused[0].rrf == fused[1].rrf
    assert [r.id for r in fused] == ["a", "b", "c"]
    # c at rank 2 twice: 2/62 = 0.0322581 < 1/61 + 1/63 = 0.0322664.
    assert fused[2].rrf == pytest.approx(2 / 62)


def test_equal_scores_break_ties_by_best_single_rank_before_id():
    # With k = 0: "a" at ranks 2 and 2 scores 1/2 + 1/2 = 1; "b" and "x" at rank 1 alone score 1.
    fused = rrf([channel("vector", "b", "a"), channel("keyword", "x", "a")], k=0)
    assert [r.rrf for r in fused] == [1.0, 1.0, 1.0]
    # "a" sorts first by id but last by best rank (2 against 1); "b" and "x" tie and go by id.
    assert [r.id for r in fused] == ["b", "x", "a"]


def test_channel_weight_scales_its_share():
    fused = rrf(
        [channel("vector", "v"), channel("keyword", "kw")],
        weights=ChannelWeights(keyword=2.0),
    )
    assert [r.id for r in fused] == ["kw", "v"]
    assert fused[0].rrf == pytest.approx(2 / 61)


def test_zero_weight_channel_is_ignored():
    fused = rrf(
        [channel("vector", "a"), channel("graph", "only_graph", "a")],
        weights=ChannelWeights(graph=0.0),
    )
    assert [r.id for r in fused] == ["a"]
    assert list(fused[0].channels) == ["vector"]


def test_channel_given_twice_is_rejected():
    with pytest.raises(ValueError, match="given twice"):
        rrf([channel("vector", "a"), channel("vector", "b")])


def test_zero_rank_is_rejected():
    bad = ChannelResult(channel="vector", candidates=(Candidate(id="a", score=1.0, rank=0),))
    with pytest.raises(ValueError, match="1-based"):
        rrf([bad])


def test_fact_listed_twice_by_one_channel_counts_once_at_its_best_rank():
    doubled = ChannelResult(
        channel="vector",
        candidates=(
            Candidate(id="a", score=0.5, rank=4),
            Candidate(id="a", score=0.9, rank=1),
        ),
    )
    (a,) = rrf([doubled])
    assert a.rrf == pytest.approx(1 / 61)
    assert a.channels["vector"].rank == 1


def test_limit_keeps_the_best():
    fused = rrf([channel("vector", "a", "b", "c", "d")], limit=2)
    assert [r.id for r in fused] == ["a", "b"]


def test_per_channel_hits_are_listed_in_fixed_channel_order():
    fused = rrf([channel("temporal", "a"), channel("keyword", "a"), channel("vector", "a")])
    assert list(fused[0].channels) == ["vector", "keyword", "temporal"]


def test_scores_show_final_and_each_finding_channel_score():
    fused = rrf([channel("vector", "a"), channel("graph", "b", "a")])
    a = next(r for r in fused if r.id == "a")
    assert a.scores() == {"final": a.final, "vector": 1.0, "graph": 0.99}


def test_empty_channels_fuse_to_nothing():
    assert rrf([]) == []
    assert rrf([channel("vector")]) == []


def test_ranked_orders_by_score_and_gives_tied_scores_one_rank():
    result = ranked("graph", [("b", 0.5), ("a", 0.5), ("c", 0.9), ("d", 0.1)], elapsed_ms=3.0)
    assert [(c.id, c.rank) for c in result.candidates] == [("c", 1), ("a", 2), ("b", 2), ("d", 4)]
    assert result.elapsed_ms == 3.0


def test_tied_channel_candidates_get_equal_fused_scores():
    fused = rrf([ranked("temporal", [("z", 1.0), ("a", 1.0)])])
    assert fused[0].rrf == fused[1].rrf == pytest.approx(1 / 61)


def test_ranked_keeps_the_best_score_of_a_repeated_id():
    result = ranked("keyword", [("a", 0.2), ("b", 0.5), ("a", 0.8)])
    assert [(c.id, c.score, c.rank) for c in result.candidates] == [("a", 0.8, 1), ("b", 0.5, 2)]


def test_rerank_orders_by_reranker_score_and_puts_unscored_last_in_fused_order():
    from app.recall.fusion import apply_rerank

    fused = rrf([channel("vector", "a", "b", "c", "d")])
    reranked = apply_rerank(fused, {"c": 0.9, "a": 0.2})
    assert [r.id for r in reranked] == ["c", "a", "b", "d"]
    assert reranked[0].final == 0.9
    assert reranked[0].rrf == pytest.approx(1 / 63)
    assert reranked[2].final == 0.0
