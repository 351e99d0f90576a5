"""Exact in-memory search (``exact_vectors``) against a plain sort of every cosine score."""

from __future__ import annotations

import numpy as np
import pytest

from app.store.exact_vectors import BankMatrices, BankMatrix
from app.store.vectors import MemoryState

DIM = 8


def random_rows(count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((count, DIM)).astype(np.float32)


def expected(
    stored: dict[str, tuple[np.ndarray, MemoryState]],
    query: np.ndarray,
    states: tuple[MemoryState, ...],
    limit: int,
    min_score: float = -1.0,
) -> list[str]:
    """The answer by brute force: every cosine, sorted."""
    q = query / np.linalg.norm(query)
    scored = [
        (float(q @ (v / np.linalg.norm(v))), point_id)
        for point_id, (v, state) in stored.items()
        if state in states
    ]
    kept = [(s, i) for s, i in scored if s >= min_score]
    return [i for _, i in sorted(kept, key=lambda si: -si[0])[:limit]]


def filled(
    count: int, seed: int = 1, prefix: str = "p"
) -> tuple[BankMatrix, dict[str, tuple[np.ndarray, MemoryState]]]:
    rows = random_rows(count, seed)
    ids = [f"{prefix}{i}" for i in range(count)]
    states: list[MemoryState] = ["invalidated" if i % 5 == 0 else "valid" for i in range(count)]
    matrix = BankMatrix(DIM)
    matrix.put(ids, rows, states)
    return matrix, {i: (v, s) for i, v, s in zip(ids, rows, states, strict=True)}


@pytest.mark.parametrize("states", [("valid",), ("invalidated",), ("valid", "invalidated")])
def test_hits_are_the_best_cosines_in_the_asked_states(states: tuple[MemoryState, ...]) -> None:
    matrix, stored = filled(200)
    queries = random_rows(6, seed=2)

    found = matrix.search(queries, states, limit=7, min_score=-1.0)

    assert [[h.id for h in hits] for hits in found] == [
        expected(stored, q, states, 7) for q in queries
    ]
    q = queries[0] / np.linalg.norm(queries[0])
    v = stored[found[0][0].id][0]
    assert found[0][0].score == pytest.approx(float(q @ v / np.linalg.norm(v)), abs=1e-5)


def test_min_score_keeps_only_close_points_and_still_caps_at_the_limit() -> None:
    matrix, stored = filled(300)
    queries = random_rows(5, seed=3)

    loose = matrix.search(queries, ("valid",), limit=4, min_score=0.3)
    tight = matrix.search(queries, ("valid",), limit=100, min_score=0.6)

    assert [[h.id for h in hits] for hits in loose] == [
        expected(stored, q, ("valid",), 4, 0.3) for q in queries
    ]
    assert [[h.id for h in hits] for hits in tight] == [
        expected(stored, q, ("valid",), 100, 0.6) for q in queries
    ]
    assert all(h.score >= 0.6 for hits in tight for h in hits)
    assert any(len(hits) < 100 for hits in tight)


def test_a_limit_beyond_the_bank_returns_every_point_in_the_states() -> None:
    matrix, stored = filled(12)

    (hits,) = matrix.search(random_rows(1, seed=4), ("valid",), limit=50, min_score=-1.0)

    assert sorted(h.id for h in hits) == sorted(i for i, (_, s) in stored.items() if s == "valid")


def test_replacing_a_point_changes_its_vector_and_state_in_place() -> None:
    matrix, _ = filled(20)
    target = random_rows(1, seed=9)[0]

    matrix.put(["p3", "p3"], np.stack([-target, target]), ["invalidated", "valid"])

    (hits,) = matrix.search(target[None, :], ("valid",), limit=1, min_score=0.0)
    assert len(matrix) == 20
    assert hits[0].id == "p3"
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)


def test_state_changes_and_removals_are_seen_by_the_next_search() -> None:
    matrix, stored = filled(50)
    query = random_rows(1, seed=5)
    (before,) = matrix.search(query, ("valid",), limit=3, min_score=-1.0)
    first, second = before[0].id, before[1].id

    matrix.set_state([first, "not-here"], "invalidated")
    matrix.remove([second, "not-here"])
    stored[first] = (stored[first][0], "invalidated")
    del stored[second]

    (after,) = matrix.search(query, ("valid",), limit=3, min_score=-1.0)
    assert [h.id for h in after] == expected(stored, query[0], ("valid",), 3)
    assert len(matrix) == 49 and second not in matrix
    # The row that filled the gap is still found under its own id.
    (everything,) = matrix.search(query, ("valid", "invalidated"), limit=100, min_score=-1.0)
    assert sorted(h.id for h in everything) == sorted(stored)


def test_an_empty_bank_or_no_queries_find_nothing() -> None:
    empty = BankMatrix(DIM)
    assert empty.search(random_rows(2, seed=1), ("valid",), limit=5, min_score=-1.0) == [[], []]
    matrix, _ = filled(5)
    assert matrix.search(np.zeros((0, DIM), np.float32), ("valid",), 5, min_score=-1.0) == []
    assert matrix.search(random_rows(1, seed=1), ("valid",), limit=0, min_score=-1.0) == [[]]
    assert matrix.search(random_rows(1, seed=1), ("valid",), limit=5, min_score=1.01) == [[]]


def bank(count: int, seed: int = 1, prefix: str = "p") -> BankMatrix:
    return filled(count, seed, prefix)[0]


def test_banks_beyond_the_cap_drop_the_least_recently_searched() -> None:
    kept = BankMatrices(max_points=100)
    kept.keep("a", bank(40))
    kept.keep("b", bank(40))
    assert kept.get("a") is not None  # a is now the more recently used

    kept.keep("c", bank(40))

    assert kept.get("b") is None
    assert kept.get("a") is not None and kept.get("c") is not None


def test_a_bank_too_big_alone_is_left_to_the_engine_until_it_is_deleted() -> None:
    kept = BankMatrices(max_points=30)
    kept.keep("small", bank(20))

    assert not kept.may_keep("big", 31)
    kept.keep("big", bank(31))
    assert kept.get("big") is None and kept.get("small") is not None

    kept.put("small", [f"n{i}" for i in range(11)], random_rows(11, seed=3), ["valid"] * 11)
    assert kept.get("small") is None  # grew past the cap: the engine searches it from now on
    assert not kept.may_keep("small", 5)

    kept.drop("small")
    assert kept.may_keep("small", 5)
    assert not BankMatrices(max_points=0).may_keep("any", 0)


def test_a_point_written_to_another_bank_leaves_the_one_it_was_in() -> None:
    kept = BankMatrices(max_points=1000)
    kept.keep("a", bank(10, prefix="a"))
    kept.keep("b", bank(10, seed=2, prefix="b"))

    kept.put("b", ["a1"], random_rows(1, seed=8), ["valid"])

    a, b = kept.get("a"), kept.get("b")
    assert a is not None and b is not None
    assert "a1" not in a and "a1" in b
    assert len(a) == 9 and len(b) == 11


def test_a_fact_type_filter_keeps_points_of_those_types_through_moves_and_removals() -> None:
    rows = random_rows(60, seed=5)
    ids = [f"t{i}" for i in range(60)]
    types = ["observation" if i % 3 == 0 else "world" for i in range(60)]
    matrix = BankMatrix(DIM)
    matrix.put(ids, rows, ["valid"] * 60, types)
    matrix.remove(["t0", "t1"])  # the last rows fill the gaps, types with them
    kept = {i: t for i, t in zip(ids, types, strict=True) if i not in {"t0", "t1"}}
    query = random_rows(1, seed=6)
    for wanted in (("observation",), ("world",), ("world", "observation"), ("experience",)):
        [hits] = matrix.search(query, ("valid",), 100, -1.0, wanted)
        assert {h.id for h in hits} == {i for i, t in kept.items() if t in wanted}
    [everything] = matrix.search(query, ("valid",), 100, -1.0)
    assert len(everything) == 58
    np.testing.assert_allclose(matrix.vector("t5"), rows[5] / np.linalg.norm(rows[5]), rtol=1e-5)
    assert matrix.vector("t0") is None
