"""Link rules: which pairs of facts get SEMANTIC edges, and how they travel to Neo4j."""

from __future__ import annotations

import numpy as np

from app.retain.links import Link, LinkPolicy, by_source, semantic_pairs


def unit_rows(*rows: list[float]) -> np.ndarray:
    vectors = np.asarray(rows, dtype=np.float32)
    normalised: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normalised


def test_each_similar_pair_links_once_from_the_later_fact() -> None:
    vectors = unit_rows([1, 0, 0], [0.95, 0.1, 0], [0, 1, 0], [0.9, 0.2, 0])
    links = semantic_pairs(["a", "b", "c", "d"], vectors)
    assert {(link.source, link.target) for link in links} == {("b", "a"), ("d", "a"), ("d", "b")}
    assert all(0.7 <= link.weight <= 1.0 for link in links)


def test_a_fact_links_to_at_most_top_k_of_the_earlier_ones_strongest_first() -> None:
    vectors = unit_rows([1, 0.3, 0], [1, 0.1, 0], [1, 0.2, 0], [1, 0, 0])
    links = semantic_pairs(["a", "b", "c", "d"], vectors, LinkPolicy(semantic_top_k=2))
    assert [link.target for link in links if link.source == "d"] == ["b", "c"]


def test_links_travel_grouped_by_source_and_a_repeated_pair_once() -> None:
    grouped = by_source(
        [Link("n1", "x", 0.8), Link("n2", "x", 0.75), Link("n1", "y", 0.9), Link("n1", "x", 0.8)]
    )
    assert grouped == [
        {"source": "n1", "links": [{"target": "x", "weight": 0.8}, {"target": "y", "weight": 0.9}]},
        {"source": "n2", "links": [{"target": "x", "weight": 0.75}]},
    ]
