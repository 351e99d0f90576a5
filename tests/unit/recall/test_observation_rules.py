"""Observations in a recall answer: what prefer_observations leaves out, which sources fit."""

from __future__ import annotations

from app.recall.observations import pick_source_facts, superseded


def test_only_facts_a_kept_observation_carries_are_superseded() -> None:
    sources = {"o1": ["f1", "f2"], "o2": ["f9"]}
    # f1 is behind the kept o1; f3 is no one's source; o2 is not kept, so f9 stays.
    assert superseded(["f1", "o1", "f3", "f9"], sources) == {"f1"}
    assert superseded(["f1", "f9"], sources) == set(), "no observation kept, nothing superseded"


def test_source_facts_follow_the_observations_and_each_fact_is_shown_once() -> None:
    pick = pick_source_facts(
        [("o1", ["a", "b"]), ("o2", ["b", "c"])],
        lambda _: 10,
        max_tokens=-1,
        max_tokens_per_observation=-1,
    )
    assert pick.ids == ("a", "b", "c") and pick.truncated is False


def test_per_observation_budget_skips_what_does_not_fit_and_says_so() -> None:
    cost = {"a": 30, "b": 80, "c": 10, "d": 40}
    pick = pick_source_facts(
        [("o1", ["a", "b", "c"]), ("o2", ["d"])],
        cost.__getitem__,
        max_tokens=-1,
        max_tokens_per_observation=50,
    )
    assert pick.ids == ("a", "c", "d") and pick.truncated is True


def test_total_budget_stops_at_the_first_misfit() -> None:
    pick = pick_source_facts(
        [("o1", ["a", "b"]), ("o2", ["c"])],
        lambda _: 40,
        max_tokens=100,
        max_tokens_per_observation=-1,
    )
    assert pick.ids == ("a", "b") and pick.truncated is True
