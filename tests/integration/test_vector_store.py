"""One behaviour suite for both vector-store adapters.

``edge`` is the embedded Qdrant Edge shard in a temporary directory; ``server`` is the
qdrant-client adapter in local mode (``:memory:``), standing in for a Qdrant server. Vectors are
small hand-made 8-d ones so that "nearest" is obvious.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import get_args

import numpy as np
import pytest

from app.domain.tags import tags_match
from app.errors import Unavailable
from app.store.qdrant_edge import EdgeVectorStore
from app.store.qdrant_server import ServerVectorStore
from app.store.vectors import (
    TagsMatch,
    VectorFilter,
    VectorPayload,
    VectorPoint,
    VectorStore,
)

DIM = 8
ROOT = Path(__file__).resolve().parents[2]


def unit(*head: float) -> list[float]:
    """An 8-d unit vector whose first components are ``head``."""
    raw = np.zeros(DIM, dtype=np.float32)
    raw[: len(head)] = head
    return (raw / np.linalg.norm(raw)).tolist()


def new_id() -> str:
    return str(uuid.uuid4())


def point(
    bank: str,
    vector: list[float],
    *,
    id: str | None = None,
    fact_type: str = "world",
    state: str = "valid",
    tags: tuple[str, ...] = (),
    start: float | None = None,
    end: float | None = None,
) -> VectorPoint:
    payload = VectorPayload(
        bank_id=bank,
        fact_type=fact_type,
        state=state,  # type: ignore[arg-type]
        tags=tags,
        occurred_start=start,
        occurred_end=end,
    )
    return VectorPoint(id=id or new_id(), vector=vector, payload=payload)


async def hit_ids(
    store: VectorStore, where: VectorFilter, query: list[float] | None = None
) -> list[str]:
    hits = await store.search(query or unit(1), where, limit=100)
    return [hit.id for hit in hits]


def edge_store(path: Path) -> EdgeVectorStore:
    return EdgeVectorStore(path, dim=DIM)


@pytest.fixture(params=["edge", "server"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VectorStore]:
    built: VectorStore
    if request.param == "edge":
        built = edge_store(tmp_path / "qdrant")
    else:
        built = ServerVectorStore(dim=DIM, collection="test_memories", location=":memory:")
    await built.open()
    try:
        yield built
    finally:
        await built.close()


async def test_search_returns_nearest_first_with_cosine_scores(store: VectorStore) -> None:
    near, middle, far = (
        point("b1", unit(1, 0.1)),
        point("b1", unit(1, 1)),
        point("b1", unit(0, 1)),
    )
    await store.upsert([far, near, middle])

    hits = await store.search(unit(1), VectorFilter(bank_id="b1"), limit=10)

    assert [hit.id for hit in hits] == [near.id, middle.id, far.id]
    assert hits[0].score == pytest.approx(1 / np.sqrt(1.01), abs=1e-4)
    assert hits[1].score == pytest.approx(1 / np.sqrt(2), abs=1e-4)
    assert hits[2].score == pytest.approx(0.0, abs=1e-4)


async def test_limit_caps_the_hits(store: VectorStore) -> None:
    await store.upsert([point("b1", unit(1, i / 10)) for i in range(5)])

    assert len(await store.search(unit(1), VectorFilter(bank_id="b1"), limit=2)) == 2
    assert await store.search(unit(1), VectorFilter(bank_id="b1"), limit=0) == []


async def test_search_many_answers_each_query_like_search(store: VectorStore) -> None:
    ours = [point("b1", unit(1, i / 4)) for i in range(4)]
    await store.upsert([*ours, point("b2", unit(1))])
    where = VectorFilter(bank_id="b1")
    queries = [unit(1), unit(0, 1), unit(1, 1)]

    batched = await store.search_many(queries, where, limit=3)

    assert batched == [await store.search(q, where, limit=3) for q in queries]
    assert all(len(hits) == 3 for hits in batched)
    assert await store.search_many([], where, limit=3) == []


async def test_min_score_drops_hits_below_it(store: VectorStore) -> None:
    near, middle, far = (
        point("b1", unit(1, 0.1)),
        point("b1", unit(1, 1)),
        point("b1", unit(0, 1)),
    )
    await store.upsert([near, middle, far, point("b2", unit(1))])
    where = VectorFilter(bank_id="b1")

    found = await store.search_many([unit(1), unit(0, 1)], where, limit=10, min_score=0.7)

    assert [[hit.id for hit in hits] for hits in found] == [
        [near.id, middle.id],
        [far.id, middle.id],
    ]
    assert all(hit.score >= 0.7 for hits in found for hit in hits)
    assert await store.search_many([unit(-1)], where, limit=10, min_score=0.7) == [[]]


async def test_point_of_another_bank_is_never_returned_even_when_closer(store: VectorStore) -> None:
    theirs = point("bank-b", unit(1))
    ours = point("bank-a", unit(0, 1))
    await store.upsert([theirs, ours])

    assert await hit_ids(store, VectorFilter(bank_id="bank-a"), unit(1)) == [ours.id]
    assert await store.ids("bank-a") == {ours.id}
    assert await store.count("bank-a") == 1
    assert await hit_ids(store, VectorFilter(bank_id="bank-c")) == []


async def test_upsert_replaces_a_point_with_the_same_id(store: VectorStore) -> None:
    memory_id = new_id()
    await store.upsert([point("b1", unit(0, 1), id=memory_id, fact_type="world")])
    await store.upsert([point("b1", unit(1), id=memory_id, fact_type="experience")])

    hits = await store.search(unit(1), VectorFilter(bank_id="b1", fact_types=("experience",)), 10)

    assert [hit.id for hit in hits] == [memory_id]
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert await store.count("b1") == 1


async def test_fact_type_filter_keeps_only_the_given_types(store: VectorStore) -> None:
    world = point("b1", unit(1), fact_type="world")
    experience = point("b1", unit(1, 0.5), fact_type="experience")
    observation = point("b1", unit(1, 1), fact_type="observation")
    await store.upsert([world, experience, observation])

    assert await hit_ids(store, VectorFilter(bank_id="b1", fact_types=("experience",))) == [
        experience.id
    ]
    both = VectorFilter(bank_id="b1", fact_types=("world", "observation"))
    assert await hit_ids(store, both) == [world.id, observation.id]
    assert await hit_ids(store, VectorFilter(bank_id="b1", fact_types=())) == []


async def test_state_filter_hides_invalidated_by_default(store: VectorStore) -> None:
    valid = point("b1", unit(1, 0.5))
    invalidated = point("b1", unit(1), state="invalidated")
    await store.upsert([valid, invalidated])

    assert await hit_ids(store, VectorFilter(bank_id="b1")) == [valid.id]
    only_invalid = VectorFilter(bank_id="b1", states=("invalidated",))
    assert await hit_ids(store, only_invalid) == [invalidated.id]
    every = VectorFilter(bank_id="b1", states=("valid", "invalidated"))
    assert await hit_ids(store, every) == [invalidated.id, valid.id]


async def test_set_state_hides_an_invalidated_memory_from_default_search(
    store: VectorStore,
) -> None:
    kept, retired = point("b1", unit(1, 0.5)), point("b1", unit(1))
    other_bank = point("b2", unit(1))
    await store.upsert([kept, retired, other_bank])

    # An id of another bank in the list is ignored: states change only inside bank b1.
    await store.set_state("b1", [retired.id, other_bank.id], "invalidated")

    assert await hit_ids(store, VectorFilter(bank_id="b1")) == [kept.id]
    assert await hit_ids(store, VectorFilter(bank_id="b2")) == [other_bank.id]
    await store.set_state("b1", [retired.id], "valid")
    assert await hit_ids(store, VectorFilter(bank_id="b1")) == [retired.id, kept.id]


TAG_SETS: dict[str, tuple[str, ...]] = {
    "untagged": (),
    "a": ("a",),
    "ab": ("a", "b"),
    "bc": ("b", "c"),
    "abc": ("a", "b", "c"),
    "c": ("c",),
    "aa": ("a", "a"),  # written twice: stored once, so it is exactly {"a"}
}
QUERIES: list[tuple[str, ...] | None] = [None, (), ("a",), ("a", "b"), ("b", "a", "b"), ("z",)]


@pytest.mark.parametrize("mode", get_args(TagsMatch))
@pytest.mark.parametrize(
    "query", QUERIES, ids=lambda q: "none" if q is None else "-".join(q) or "empty"
)
async def test_tags_match_agrees_with_the_reference_semantics(
    store: VectorStore, mode: TagsMatch, query: tuple[str, ...] | None
) -> None:
    ids = {name: new_id() for name in TAG_SETS}
    await store.upsert(
        [
            point("b1", unit(1, i / 10), id=ids[name], tags=tags)
            for i, (name, tags) in enumerate(TAG_SETS.items())
        ]
        + [point("b2", unit(1), tags=("a",))]
    )

    found = set(await hit_ids(store, VectorFilter(bank_id="b1", tags=query, tags_match=mode)))

    expected = {ids[name] for name, tags in TAG_SETS.items() if tags_match(tags, query, mode)}
    names = {i: name for name, i in ids.items()}
    assert sorted(names[i] for i in found) == sorted(names[i] for i in expected)


async def test_tag_modes_spelled_out(store: VectorStore) -> None:
    """The reference table, on three points, so a reader sees the semantics without tags.py."""
    untagged, a, ab = (
        point("b1", unit(1)),
        point("b1", unit(1, 0.1), tags=("a",)),
        point("b1", unit(1, 0.2), tags=("a", "b")),
    )
    await store.upsert([untagged, a, ab])

    async def matched(mode: TagsMatch, *tags: str) -> set[str]:
        return set(await hit_ids(store, VectorFilter(bank_id="b1", tags=tags, tags_match=mode)))

    assert await matched("any", "b") == {untagged.id, ab.id}
    assert await matched("any_strict", "b") == {ab.id}
    assert await matched("all", "a", "b") == {untagged.id, ab.id}
    assert await matched("all_strict", "a") == {a.id, ab.id}
    assert await matched("exact", "a") == {a.id}
    assert await matched("exact", "b", "a") == {ab.id}


DAY = 86_400.0


async def test_time_filter_keeps_events_that_overlap_the_window(store: VectorStore) -> None:
    points = {
        "before": point("b1", unit(1, 0.1), start=0 * DAY, end=1 * DAY),
        "straddles_start": point("b1", unit(1, 0.2), start=1 * DAY, end=3 * DAY),
        "inside": point("b1", unit(1, 0.3), start=4 * DAY, end=5 * DAY),
        "covers": point("b1", unit(1, 0.4), start=0 * DAY, end=20 * DAY),
        "straddles_end": point("b1", unit(1, 0.5), start=9 * DAY, end=12 * DAY),
        "after": point("b1", unit(1, 0.6), start=11 * DAY, end=12 * DAY),
        "instant_inside_start_only": point("b1", unit(1, 0.7), start=6 * DAY),
        "instant_inside_end_only": point("b1", unit(1, 0.8), end=7 * DAY),
        "instant_after_start_only": point("b1", unit(1, 0.9), start=15 * DAY),
        "undated": point("b1", unit(1, 1.0)),
    }
    await store.upsert(list(points.values()))
    names = {p.id: name for name, p in points.items()}

    async def overlapping(after: float | None, before: float | None) -> set[str]:
        where = VectorFilter(bank_id="b1", occurred_after=after, occurred_before=before)
        return {names[i] for i in await hit_ids(store, where)}

    assert await overlapping(2 * DAY, 10 * DAY) == {
        "straddles_start",
        "inside",
        "covers",
        "straddles_end",
        "instant_inside_start_only",
        "instant_inside_end_only",
    }
    assert await overlapping(10.5 * DAY, None) == {
        "covers",
        "straddles_end",
        "after",
        "instant_after_start_only",
    }
    assert await overlapping(None, 0.5 * DAY) == {"before", "covers"}
    # Bounds are inclusive: an event ending exactly when the window starts overlaps it.
    assert "before" in await overlapping(1 * DAY, 1 * DAY)
    assert len(await overlapping(None, None)) == len(points)


async def test_delete_removes_only_the_given_ids_of_the_given_bank(store: VectorStore) -> None:
    gone, kept = point("b1", unit(1)), point("b1", unit(1, 1))
    theirs = point("b2", unit(1))
    await store.upsert([gone, kept, theirs])

    await store.delete("b1", [gone.id, theirs.id])
    await store.delete("b1", [])

    assert await store.ids("b1") == {kept.id}
    assert await store.ids("b2") == {theirs.id}
    assert await hit_ids(store, VectorFilter(bank_id="b1")) == [kept.id]


async def test_delete_bank_removes_that_bank_only(store: VectorStore) -> None:
    await store.upsert([point("b1", unit(1, i / 10)) for i in range(5)])
    survivor = point("b2", unit(1))
    await store.upsert([survivor])

    await store.delete_bank("b1")
    await store.flush()

    assert await store.count("b1") == 0
    assert await store.ids("b1") == set()
    assert await hit_ids(store, VectorFilter(bank_id="b1")) == []
    assert await store.ids("b2") == {survivor.id}


async def test_ids_and_count_cover_every_point_of_a_bank(store: VectorStore) -> None:
    # More than one write batch, so that upsert batching and scroll paging are both exercised.
    written = [point("big", unit(1, (i % 7) / 7), id=new_id()) for i in range(2_500)]
    await store.upsert(written)

    assert await store.count("big") == 2_500
    assert await store.ids("big") == {p.id for p in written}
    assert await store.count("nobody") == 0


async def test_ids_come_back_in_canonical_uuid_form(store: VectorStore) -> None:
    memory_id = str(uuid.uuid4())
    await store.upsert([point("b1", unit(1), id=memory_id.upper())])

    assert await store.ids("b1") == {memory_id}
    await store.delete("b1", [memory_id.upper()])
    assert await store.count("b1") == 0


async def test_bad_ids_and_vectors_are_refused_with_a_clear_message(store: VectorStore) -> None:
    with pytest.raises(ValueError, match="must be a UUID"):
        await store.upsert([point("b1", unit(1), id="memory-1")])
    with pytest.raises(ValueError, match="expected"):
        await store.upsert([point("b1", [1.0, 0.0])])
    with pytest.raises(ValueError, match="expected"):
        await store.search([1.0, 0.0], VectorFilter(bank_id="b1"), 5)


async def test_open_is_idempotent_and_the_store_is_healthy(store: VectorStore) -> None:
    kept = point("b1", unit(1))
    await store.upsert([kept])

    await store.open()

    assert await store.healthy()
    assert await store.ids("b1") == {kept.id}


async def test_optimize_keeps_every_hit(store: VectorStore) -> None:
    written = [point("b1", unit(1, i / 10)) for i in range(20)]
    await store.upsert(written)
    before = await hit_ids(store, VectorFilter(bank_id="b1"))

    assert isinstance(await store.optimize(), bool)

    assert await hit_ids(store, VectorFilter(bank_id="b1")) == before == [p.id for p in written]


# --- Edge only: persistence and ownership of the shard directory --------------------------------


async def test_edge_points_survive_close_and_reopen(tmp_path: Path) -> None:
    first = edge_store(tmp_path / "qdrant")
    await first.open()
    kept = point("b1", unit(1), tags=("a",), start=DAY, end=2 * DAY)
    retired = point("b1", unit(1, 1))
    await first.upsert([kept, retired, point("b2", unit(1))])
    await first.set_state("b1", [retired.id], "invalidated")
    await first.close()
    assert not await first.healthy()

    second = edge_store(tmp_path / "qdrant")
    await second.open()
    try:
        assert await second.count("b1") == 2
        where = VectorFilter(bank_id="b1", tags=("a",), tags_match="exact", occurred_after=DAY)
        assert await hit_ids(second, where) == [kept.id]
        assert await hit_ids(second, VectorFilter(bank_id="b1")) == [kept.id]
    finally:
        await second.close()


async def test_edge_writes_survive_a_killed_process_without_flush_or_close(tmp_path: Path) -> None:
    shard = tmp_path / "qdrant"
    ids = [new_id() for _ in range(50)]
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal
        from app.store.qdrant_edge import EdgeVectorStore
        from app.store.vectors import VectorPayload, VectorPoint

        async def main():
            store = EdgeVectorStore({str(shard)!r}, dim={DIM}, flush_every_points=10**9)
            await store.open()
            payload = VectorPayload(bank_id="b1", fact_type="world")
            vector = [1.0] + [0.0] * {DIM - 1}
            await store.upsert([VectorPoint(id=i, vector=vector, payload=payload) for i in {ids!r}])
            await store.set_state("b1", {ids[:10]!r}, "invalidated")
            os.kill(os.getpid(), signal.SIGKILL)  # no flush, no close

        asyncio.run(main())
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == -9, result.stderr

    store = edge_store(shard)
    await store.open()
    try:
        assert await store.ids("b1") == set(ids)
        assert set(await hit_ids(store, VectorFilter(bank_id="b1"))) == set(ids[10:])
    finally:
        await store.close()


async def test_edge_shard_has_one_owner(tmp_path: Path) -> None:
    owner = edge_store(tmp_path / "qdrant")
    await owner.open()
    try:
        with pytest.raises(Unavailable, match="in use by another process"):
            await edge_store(tmp_path / "qdrant").open()
    finally:
        await owner.close()


async def test_edge_refuses_a_shard_built_for_another_dimension(tmp_path: Path) -> None:
    store = edge_store(tmp_path / "qdrant")
    await store.open()
    await store.close()

    with pytest.raises(Unavailable, match="built for other vectors"):
        await EdgeVectorStore(tmp_path / "qdrant", dim=DIM * 2).open()


async def test_edge_search_is_the_same_before_and_after_optimize(tmp_path: Path) -> None:
    # optimize_on_open_min_points=0: open() itself runs the (here trivial) optimize too.
    store = EdgeVectorStore(tmp_path / "qdrant", dim=DIM, optimize_on_open_min_points=0)
    await store.open()
    try:
        rng = np.random.default_rng(7)
        vectors = rng.standard_normal((300, DIM)).astype(np.float32)
        written = [
            point(f"b{i % 3}", vectors[i].tolist(), tags=("x",) if i % 2 else ())
            for i in range(300)
        ]
        await store.upsert(written)
        where = VectorFilter(bank_id="b1", tags=("x",), tags_match="all_strict")
        before = await store.search(vectors[0].tolist(), where, 20)

        assert await store.optimize() in (True, False)

        assert (await store.stats()).points == 300
        after = await store.search(vectors[0].tolist(), where, 20)
        assert [h.id for h in after] == [h.id for h in before]
    finally:
        await store.close()


async def test_server_refuses_a_collection_of_another_dimension(tmp_path: Path) -> None:
    # Local mode on disk keeps the collection between clients, like a server would.
    store = ServerVectorStore(dim=DIM, collection="c", path=str(tmp_path / "local"))
    await store.open()
    await store.close()

    other = ServerVectorStore(dim=DIM * 2, collection="c", path=str(tmp_path / "local"))
    try:
        with pytest.raises(Unavailable, match="holds 8-d vectors"):
            await other.open()
    finally:
        await other.close()


def random_points(rng: np.random.Generator, bank: str, ids: list[str]) -> list[VectorPoint]:
    vectors = rng.standard_normal((len(ids), DIM)).astype(np.float32)
    return [point(bank, v.tolist(), id=i) for i, v in zip(ids, vectors, strict=True)]


async def assert_same_answers(stores: list[EdgeVectorStore], rng: np.random.Generator) -> None:
    """Every store answers every bank, state filter, limit and min_score like the first one."""
    queries = rng.standard_normal((4, DIM)).astype(np.float32)
    wheres = [
        VectorFilter(bank_id=bank, states=states)  # type: ignore[arg-type]
        for bank in ("a", "b", "c")
        for states in (("valid",), ("invalidated",), ("valid", "invalidated"))
    ]
    for where in wheres:
        for limit, min_score in ((5, -1.0), (50, 0.5), (200, 0.0)):
            engine, *others = [
                await s.search_many(queries, where, limit, min_score=min_score) for s in stores
            ]
            for other in others:
                assert [[h.id for h in hits] for hits in other] == [
                    [h.id for h in hits] for hits in engine
                ]
                assert [h.score for hits in other for h in hits] == pytest.approx(
                    [h.score for hits in engine for h in hits], abs=1e-5
                )


async def test_edge_in_memory_search_answers_like_the_engine(tmp_path: Path) -> None:
    """Three shards take the same writes: one searched only by the engine, one from memory,
    one from memory under a cap that drops banks and leaves the biggest to the engine."""
    stores = [
        EdgeVectorStore(tmp_path / "engine", dim=DIM, exact_search_points=0),
        EdgeVectorStore(tmp_path / "memory", dim=DIM),
        EdgeVectorStore(tmp_path / "capped", dim=DIM, exact_search_points=90),
    ]
    rng = np.random.default_rng(11)
    ids = {bank: [new_id() for _ in range(n)] for bank, n in (("a", 100), ("b", 60), ("c", 30))}

    async def apply(step: Callable[[VectorStore], Awaitable[None]]) -> None:
        for store in stores:
            await step(store)

    async def upsert(points: list[VectorPoint]) -> None:
        await apply(lambda s: s.upsert(points))

    for store in stores:
        await store.open()
    try:
        for bank, chosen in ids.items():
            await upsert(random_points(rng, bank, chosen[: len(chosen) // 2]))
        await assert_same_answers(stores, rng)  # the banks are loaded into memory here
        for bank, chosen in ids.items():
            await upsert(random_points(rng, bank, chosen[len(chosen) // 2 :]))
        await upsert(random_points(rng, "a", ids["a"][:10]))  # new vectors for the same ids
        await upsert(random_points(rng, "c", ids["b"][:5]))  # points that move to another bank
        await apply(lambda s: s.set_state("a", ids["a"][10:40], "invalidated"))
        await apply(lambda s: s.set_state("a", ids["a"][10:20], "valid"))
        await apply(lambda s: s.delete("b", ids["b"][5:25] + ids["a"][:3]))
        await assert_same_answers(stores, rng)

        await apply(lambda s: s.delete_bank("c"))
        await upsert(random_points(rng, "c", ids["c"][:8]))
        for store in stores:
            await store.close()
            await store.open()
        await assert_same_answers(stores, rng)
    finally:
        for store in stores:
            await store.close()
