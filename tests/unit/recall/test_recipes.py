import msgspec
import pytest

from app.errors import InvalidInput
from app.recall.recipes import (
    HIGH,
    LOW,
    MID,
    RECIPES,
    TUNED_BOOSTS,
    TUNED_GRAPH,
    TUNED_WEIGHTS,
    BoostConfig,
    ChannelWeights,
    RecallRecipe,
    recipe_for,
)


def test_each_budget_has_its_named_recipe():
    assert recipe_for("low") is LOW
    assert recipe_for("mid") is MID
    assert recipe_for("high") is HIGH
    assert [r.name for r in (LOW, MID, HIGH)] == ["low", "mid", "high"]


def test_higher_budgets_look_deeper():
    for field in (
        "vector_limit",
        "keyword_limit",
        "graph_limit",
        "temporal_limit",
        "graph_seeds",
        "graph_entity_fanout",
        "max_fused",
    ):
        assert getattr(LOW, field) < getattr(MID, field) < getattr(HIGH, field), field
    assert LOW.graph_max_hops <= MID.graph_max_hops <= HIGH.graph_max_hops


def test_every_recipe_fuses_with_rrf_k_60_and_the_tuned_scoring():
    # Budgets change depth only; how candidates are weighed and boosted is the same measured
    # configuration for all three (docs/decisions/0005-recall.md).
    for recipe in RECIPES.values():
        assert recipe.rrf_k == 60
        assert recipe.weights == TUNED_WEIGHTS
        assert recipe.graph == TUNED_GRAPH
        assert recipe.boosts == TUNED_BOOSTS


def test_tuned_boosts_never_overturn_a_unanimous_order():
    # A fact ranked 1st by every channel leads one ranked 2nd by every channel by the factor
    # (k + 2) / (k + 1); boosts must stay below it to break ties only.
    for recipe in RECIPES.values():
        k = recipe.rrf_k
        assert 1 + recipe.boosts.total_max < (k + 2) / (k + 1)
    assert 0 < TUNED_BOOSTS.question_penalty <= 0.5


def test_unknown_budget_is_invalid_input_naming_the_field():
    with pytest.raises(InvalidInput) as caught:
        recipe_for("extreme")  # type: ignore[arg-type]
    assert caught.value.extra == {"field": "budget"}


def test_shared_recipes_cannot_be_mutated():
    with pytest.raises(AttributeError):
        MID.vector_limit = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        RECIPES["mid"] = LOW  # type: ignore[index]


def test_per_request_variant_leaves_the_shared_recipe_untouched():
    before = msgspec.json.encode(MID)
    variant = msgspec.structs.replace(
        MID,
        vector_limit=80,
        boosts=msgspec.structs.replace(MID.boosts, recency_half_life_days=7.0),
    )
    assert variant.vector_limit == 80
    assert variant.boosts.recency_half_life_days == 7.0
    assert msgspec.json.encode(MID) == before
    assert recipe_for("mid").vector_limit == 50


def test_variants_are_validated_like_constants():
    with pytest.raises(ValueError, match="vector_limit"):
        msgspec.structs.replace(MID, vector_limit=0)
    with pytest.raises(ValueError, match="graph_max_hops"):
        msgspec.structs.replace(MID, graph_max_hops=7)
    with pytest.raises(ValueError, match=r"weights\.graph"):
        ChannelWeights(graph=-1.0)
    with pytest.raises(ValueError, match="total_max"):
        BoostConfig(total_max=0.6)


def test_channel_limit_and_weight_lookups():
    assert MID.channel_limit("graph") == MID.graph_limit
    assert ChannelWeights(temporal=0.5).of("temporal") == 0.5


def test_recipe_round_trips_through_json():
    decoded = msgspec.json.decode(msgspec.json.encode(HIGH), type=RecallRecipe)
    assert decoded == HIGH
