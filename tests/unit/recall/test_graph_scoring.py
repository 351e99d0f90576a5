import math
from datetime import UTC, datetime

import pytest

from app.recall.candidates import TimeWindow
from app.recall.graph_scoring import (
    EntityReach,
    LinkReach,
    SpreadLink,
    entity_score,
    entity_specificity,
    graph_score,
    link_contribution,
    seed_strength,
    spread,
    window_overlap_score,
)
from app.recall.recipes import GraphScoringConfig, TemporalConfig

GRAPH = GraphScoringConfig()  # tau 1, semantic 0.5, causal 0.7, hop decay 0.5, half rank 10
TEMPORAL = TemporalConfig()  # floor 0.5, spread decay 0.4, one hop
MAY = TimeWindow(start=datetime(2024, 5, 1, tzinfo=UTC), end=datetime(2024, 5, 31, tzinfo=UTC))


def entity(entity_id: str, degree: int, seed: float = 1.0) -> EntityReach:
    return EntityReach(entity_id=entity_id, degree=degree, seed_strength=seed)


def day(month: int, dom: int, year: int = 2024) -> datetime:
    return datetime(year, month, dom, tzinfo=UTC)


def test_specificity_is_one_over_the_square_root_of_degree():
    assert entity_specificity(1) == 1.0
    assert entity_specificity(4) == 0.5
    assert entity_specificity(100) == pytest.approx(0.1)
    assert entity_specificity(0) == 1.0


def test_one_shared_entity_scores_one_minus_exp_of_its_weight():
    assert entity_score([entity("sweden", 4)], GRAPH) == pytest.approx(1 - math.exp(-0.5))


def test_hub_entity_contributes_less_than_specific_entity():
    hub = entity_score([entity("user", 10_000)], GRAPH)
    specific = entity_score([entity("sweden", 4)], GRAPH)
    assert hub == pytest.approx(1 - math.exp(-0.01))
    assert hub < specific / 30


def test_an_entity_reached_from_several_seeds_counts_once_through_its_strongest_seed():
    twice = [entity("sweden", 1, seed=0.5), entity("sweden", 1, seed=1.0)]
    assert entity_score(twice, GRAPH) == pytest.approx(1 - math.exp(-1.0))


def test_more_distinct_shared_entities_score_higher_but_saturate():
    def score(n: int) -> float:
        return entity_score([entity(f"e{i}", 1) for i in range(n)], GRAPH)

    assert score(2) == pytest.approx(1 - math.exp(-2))
    assert score(1) < score(2) < score(3) < 1.0
    # Going from one to two shared entities adds e^-1 - e^-2 = 0.2325; five to six adds 0.0043.
    assert score(2) - score(1) == pytest.approx(math.exp(-1) - math.exp(-2))
    assert score(6) - score(5) < (score(2) - score(1)) / 50


def test_weaker_seed_passes_on_less():
    strong = entity_score([entity("sweden", 1, seed=1.0)], GRAPH)
    weak = entity_score([entity("sweden", 1, seed=0.5)], GRAPH)
    assert weak == pytest.approx(1 - math.exp(-0.5))
    assert weak < strong


def test_link_contributions_use_kind_weight_link_weight_seed_and_hop_decay():
    assert link_contribution(LinkReach(kind="semantic", weight=0.8), GRAPH) == pytest.approx(0.4)
    causal_two_hops = LinkReach(kind="caused_by", weight=1.0, hops=2)
    assert link_contribution(causal_two_hops, GRAPH) == pytest.approx(0.35)
    weak_seed = LinkReach(kind="caused_by", weight=1.0, seed_strength=0.5)
    assert link_contribution(weak_seed, GRAPH) == pytest.approx(0.35)
    with pytest.raises(ValueError, match="hop"):
        link_contribution(LinkReach(kind="semantic", weight=1.0, hops=0), GRAPH)


def test_graph_score_is_the_noisy_or_of_entities_and_links():
    score = graph_score([entity("sweden", 4)], [LinkReach(kind="semantic", weight=0.8)], GRAPH)
    assert score == pytest.approx(1 - math.exp(-0.5) * 0.6)


def test_graph_score_stays_within_zero_and_one():
    many_links = [LinkReach(kind="caused_by", weight=1.2) for _ in range(50)]
    many_entities = [entity(f"e{i}", 1) for i in range(50)]
    assert 0.0 < graph_score(many_entities, many_links, GRAPH) <= 1.0
    assert graph_score([], [], GRAPH) == 0.0


def test_seed_strength_is_one_at_rank_one_and_half_at_half_rank():
    assert seed_strength(1, GRAPH) == 1.0
    assert seed_strength(2, GRAPH) == pytest.approx(10 / 11)
    assert seed_strength(11, GRAPH) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        seed_strength(0, GRAPH)


def test_point_fact_inside_the_window_scores_fully_even_on_its_edge():
    assert window_overlap_score(day(5, 10), None, MAY, TEMPORAL) == 1.0
    assert window_overlap_score(day(5, 31), day(5, 31), MAY, TEMPORAL) == 1.0


def test_partly_inside_fact_scores_floor_plus_its_inside_share():
    # April 26 → May 6 is 10 days, 5 of them inside: 0.5 + 0.5 × 0.5.
    assert window_overlap_score(day(4, 26), day(5, 6), MAY, TEMPORAL) == pytest.approx(0.75)


def test_precise_fact_outranks_vague_fact_in_window():
    precise = window_overlap_score(day(5, 5), day(5, 5), MAY, TEMPORAL)
    vague = window_overlap_score(day(1, 1), day(12, 31), MAY, TEMPORAL)  # 2024: 365 days
    assert vague == pytest.approx(0.5 + 0.5 * 30 / 365)
    assert precise > vague


def test_fact_outside_the_window_or_without_time_scores_zero():
    assert window_overlap_score(day(6, 2), day(6, 3), MAY, TEMPORAL) == 0.0
    assert window_overlap_score(None, None, MAY, TEMPORAL) == 0.0


def test_spread_gives_neighbours_a_decayed_share_both_ways():
    links = [SpreadLink(source="a", target="b", kind="temporal", weight=0.5)]
    assert spread({"a": 1.0}, links, TEMPORAL) == pytest.approx({"a": 1.0, "b": 0.2})
    assert spread({"b": 1.0}, links, TEMPORAL) == pytest.approx({"b": 1.0, "a": 0.2})


def test_spread_follows_as_many_hops_as_configured():
    links = [
        SpreadLink(source="a", target="b", kind="temporal", weight=0.5),
        SpreadLink(source="c", target="b", kind="caused_by", weight=1.0),
    ]
    assert "c" not in spread({"a": 1.0}, links, TEMPORAL)
    two_hops = TemporalConfig(spread_hops=2)
    assert spread({"a": 1.0}, links, two_hops)["c"] == pytest.approx(0.08)  # 0.2 × 1.0 × 0.4
    assert spread({"a": 1.0}, links, TemporalConfig(spread_hops=0)) == {"a": 1.0}


def test_spread_keeps_the_best_path():
    links = [
        SpreadLink(source="a", target="n", kind="temporal", weight=0.3),
        SpreadLink(source="b", target="n", kind="caused_by", weight=0.9),
    ]
    scores = spread({"a": 1.0, "b": 0.6}, links, TEMPORAL)
    assert scores["n"] == pytest.approx(max(1.0 * 0.3 * 0.4, 0.6 * 0.9 * 0.4))


def test_facts_inside_window_outrank_spread_neighbours():
    vague_inside = window_overlap_score(day(1, 1), day(12, 31), MAY, TEMPORAL)
    precise_inside = window_overlap_score(day(5, 5), None, MAY, TEMPORAL)
    links = [SpreadLink(source="precise", target="out", kind="caused_by", weight=1.0)]
    scores = spread({"precise": precise_inside, "vague": vague_inside}, links, TEMPORAL)
    assert scores["out"] < scores["vague"] < scores["precise"]


def test_spread_never_lowers_a_fact_inside_the_window():
    links = [SpreadLink(source="a", target="b", kind="temporal", weight=1.0)]
    assert spread({"a": 1.0, "b": 0.55}, links, TEMPORAL) == {"a": 1.0, "b": 0.55}


def test_spread_decay_must_stay_below_the_overlap_floor():
    with pytest.raises(ValueError, match="below"):
        TemporalConfig(overlap_floor=0.3, spread_decay=0.4)


# --- graph_candidates / inside_window_score ------------------------------------------------------

from app.recall.graph_scoring import (  # noqa: E402
    LinkPath,
    SeedEntity,
    graph_candidates,
    inside_window_score,
)


def seed_entity(entity_id: str, degree: int, via: str, strength: float = 1.0) -> SeedEntity:
    return SeedEntity(entity_id=entity_id, degree=degree, via=via, strength=strength)


def test_candidate_sharing_two_entities_with_seeds_scores_their_weighted_count():
    seeds = [seed_entity("e1", 4, "s1"), seed_entity("e2", 1, "s1", 0.5)]
    scores = graph_candidates(seeds, {"f": ["e1", "e2"]}, [], GRAPH)
    # n = 1/sqrt(4) × 1.0 + 1/sqrt(1) × 0.5 = 1.0
    assert scores["f"] == pytest.approx(1 - math.exp(-1.0))


def test_a_seed_gets_nothing_from_its_own_entities():
    seeds = [seed_entity("e1", 1, "s1")]
    assert graph_candidates(seeds, {"s1": ["e1"]}, [], GRAPH) == {}


def test_a_seed_corroborated_by_another_seed_or_the_query_scores():
    seeds = [seed_entity("e1", 1, "s1"), seed_entity("e1", 1, "s2", 0.5), seed_entity("q", 4, "")]
    scores = graph_candidates(seeds, {"s1": ["e1"], "s2": ["e1", "q"]}, [], GRAPH)
    assert scores["s1"] == pytest.approx(1 - math.exp(-0.5))  # through s2 only
    assert scores["s2"] == pytest.approx(1 - math.exp(-(1.0 + 0.5)))  # s1's e1 + the query's q


def test_links_add_as_noisy_or_and_never_to_their_own_seed():
    link = LinkReach(kind="semantic", weight=0.8, seed_strength=1.0)
    paths = [
        LinkPath(seed="s1", target="f", reach=link),
        LinkPath(seed="s1", target="s1", reach=link),
    ]
    scores = graph_candidates([seed_entity("e1", 1, "s1")], {"f": ["e1"]}, paths, GRAPH)
    entity_part = 1 - math.exp(-1.0)
    assert scores["f"] == pytest.approx(1 - (1 - entity_part) * (1 - 0.5 * 0.8))
    assert "s1" not in scores


def test_min_score_drops_hub_only_reaches():
    config = GraphScoringConfig(min_score=0.1)
    seeds = [seed_entity("hub", 400, "s1"), seed_entity("rare", 1, "s1")]
    scores = graph_candidates(seeds, {"a": ["hub"], "b": ["rare"]}, [], config)
    assert set(scores) == {"b"}  # 1 - exp(-1/20) ≈ 0.049 < 0.1


def test_inside_window_score_is_trimmed_by_relevance_within_its_share():
    config = TemporalConfig()  # relevance share 0.15
    assert inside_window_score(1.0, 1.0, config) == 1.0
    assert inside_window_score(1.0, 0.0, config) == pytest.approx(0.85)
    assert inside_window_score(0.5, 0.6, config) == pytest.approx(0.5 * (1 - 0.15 * 0.4))
    assert inside_window_score(1.0, -0.3, config) == pytest.approx(0.85)  # clamped
    # the weakest fact inside the window still beats the strongest spread share
    assert inside_window_score(config.overlap_floor, 0.0, config) > config.spread_decay


def test_relevance_share_must_keep_inside_facts_above_spread():
    with pytest.raises(ValueError, match="relevance_share"):
        TemporalConfig(overlap_floor=0.5, spread_decay=0.4, relevance_share=0.3)


def test_links_of_one_kind_count_once_through_the_strongest():
    many = [LinkReach(kind="semantic", weight=w) for w in (0.7, 0.8, 0.75, 0.9)]
    assert graph_score([], many, GRAPH) == pytest.approx(0.5 * 0.9)
    both = [*many, LinkReach(kind="caused_by", weight=1.0)]
    assert graph_score([], both, GRAPH) == pytest.approx(1 - (1 - 0.45) * (1 - 0.7))
