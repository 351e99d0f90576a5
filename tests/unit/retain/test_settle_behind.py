"""The settle behind the write: when a bank's queued settle runs, what it covers, who waits."""

from __future__ import annotations

import asyncio

import pytest

from app.errors import NotFound, Unavailable
from app.resolve.port import PendingSettle
from app.retain import settle_behind
from app.retain.settle_behind import SettleBehind, SettleTiming


def touched(*ids: str) -> PendingSettle:
    return PendingSettle(
        names=frozenset((i.lower(), None) for i in ids),
        touched=frozenset(ids),
        retype=frozenset(ids[:1]),
        memory_ids=frozenset(f"m-{i}" for i in ids),
    )


class Recorder:
    """The settle work: records what each settle covered, optionally slow or failing."""

    def __init__(self, *, seconds: float = 0.0, fail: list[BaseException] | None = None) -> None:
        self.seconds = seconds
        self.fail = fail or []
        self.calls: list[tuple[str, PendingSettle]] = []

    async def __call__(self, bank_id: str, pending: PendingSettle) -> None:
        self.calls.append((bank_id, pending))
        await asyncio.sleep(self.seconds)
        if self.fail:
            raise self.fail.pop(0)


def test_joining_pending_settles_is_their_union():
    joined = touched("a", "b").join(touched("b", "c"))
    assert joined.touched == {"a", "b", "c"}
    assert joined.names == {("a", None), ("b", None), ("c", None)}
    assert joined.retype == {"a", "b"}
    assert joined.memory_ids == {"m-a", "m-b", "m-c"}


async def test_a_burst_of_writes_is_settled_once_after_the_quiet_delay():
    work = Recorder()
    settles = SettleBehind(work, SettleTiming(delay_s=0.05, max_wait_s=5, max_entities=100))
    for i in range(5):
        settles.add("b1", touched(f"e{i}"))
        await asyncio.sleep(0.01)
    assert work.calls == []  # still within the quiet delay of the last write
    await asyncio.sleep(0.15)
    assert len(work.calls) == 1
    assert work.calls[0][1].touched == {f"e{i}" for i in range(5)}


async def test_steady_writes_are_settled_by_the_longest_wait():
    work = Recorder()
    settles = SettleBehind(work, SettleTiming(delay_s=0.05, max_wait_s=0.12, max_entities=100))
    for i in range(10):  # a write every 30 ms never leaves 50 ms of quiet
        settles.add("b1", touched(f"e{i}"))
        await asyncio.sleep(0.03)
    assert len(work.calls) >= 2
    await settles.wait_idle()
    covered = set().union(*(p.touched for _, p in work.calls))
    assert covered == {f"e{i}" for i in range(10)}


async def test_enough_touched_entities_start_the_settle_at_once():
    work = Recorder()
    settles = SettleBehind(work, SettleTiming(delay_s=10, max_wait_s=10, max_entities=3))
    settles.add("b1", touched("a", "b"))
    await asyncio.sleep(0.02)
    assert work.calls == []
    settles.add("b1", touched("c"))
    await asyncio.sleep(0.02)
    assert [p.touched for _, p in work.calls] == [{"a", "b", "c"}]


async def test_a_reader_waits_for_the_settle_that_covers_what_was_written():
    work = Recorder(seconds=0.05)
    settles = SettleBehind(work, SettleTiming(delay_s=10, max_wait_s=10, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.wait_for(settles.settled("b1"), 1)  # flushed at once, not after 10 s
    assert [p.touched for _, p in work.calls] == [{"a"}]


async def test_a_reader_during_a_settle_waits_for_it_and_then_for_what_came_meanwhile():
    work = Recorder(seconds=0.1)
    settles = SettleBehind(work, SettleTiming(delay_s=0, max_wait_s=0, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.sleep(0.02)  # the settle of "a" is running
    settles.add("b1", touched("b"))
    await asyncio.wait_for(settles.settled("b1"), 1)
    assert [p.touched for _, p in work.calls] == [{"a"}, {"b"}]


async def test_banks_settle_apart_and_a_quiet_bank_does_not_wait():
    work = Recorder()
    settles = SettleBehind(work, SettleTiming(delay_s=10, max_wait_s=10, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.wait_for(settles.settled("b2"), 0.05)  # nothing written to b2
    assert work.calls == []
    settles.add("b2", touched("x"))
    await settles.wait_idle()
    assert sorted((b, set(p.touched)) for b, p in work.calls) == [("b1", {"a"}), ("b2", {"x"})]


async def test_a_write_that_touched_nothing_queues_nothing():
    work = Recorder()
    settles = SettleBehind(work, SettleTiming(delay_s=0, max_wait_s=0, max_entities=1))
    settles.add("b1", PendingSettle())
    await settles.wait_idle()
    assert work.calls == []


async def test_a_deleted_bank_is_dropped_and_readers_are_answered():
    work = Recorder(fail=[NotFound("bank 'b1' not found")])
    settles = SettleBehind(work, SettleTiming(delay_s=10, max_wait_s=10, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.wait_for(settles.settled("b1"), 1)
    assert len(work.calls) == 1


async def test_an_unavailable_store_is_tried_again_then_left_for_the_next_start(monkeypatch):
    monkeypatch.setattr(settle_behind, "UNAVAILABLE_RETRIES", 2)
    work = Recorder(fail=[Unavailable("neo4j is down")] * 3)
    settles = SettleBehind(work, SettleTiming(delay_s=0, max_wait_s=0.01, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.wait_for(settles.wait_idle(), 2)
    assert len(work.calls) == 3  # the first try and two more, then it stops


async def test_a_store_back_after_one_failure_settles_everything_queued():
    work = Recorder(fail=[Unavailable("neo4j is down")])
    settles = SettleBehind(work, SettleTiming(delay_s=0, max_wait_s=0.01, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.sleep(0)
    settles.add("b1", touched("b"))
    await asyncio.wait_for(settles.wait_idle(), 2)
    assert set().union(*(p.touched for _, p in work.calls)) == {"a", "b"}
    assert work.calls[-1][1].touched >= {"a"}


async def test_another_failure_is_logged_not_raised(caplog):
    work = Recorder(fail=[RuntimeError("a bug")])
    settles = SettleBehind(work, SettleTiming(delay_s=0, max_wait_s=0, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.wait_for(settles.wait_idle(), 1)
    assert "stay marked" in caplog.text


@pytest.mark.parametrize("readers", [1, 5])
async def test_every_reader_is_answered(readers):
    work = Recorder(seconds=0.02)
    settles = SettleBehind(work, SettleTiming(delay_s=10, max_wait_s=10, max_entities=100))
    settles.add("b1", touched("a"))
    await asyncio.wait_for(asyncio.gather(*(settles.settled("b1") for _ in range(readers))), 1)
    assert len(work.calls) == 1


async def test_a_retain_on_its_way_holds_the_settle_until_the_longest_wait():
    work = Recorder()
    settles = SettleBehind(work, SettleTiming(delay_s=0.03, max_wait_s=0.2, max_entities=100))
    with settles.retaining("b1"):
        settles.add("b1", touched("a"))
        await asyncio.sleep(0.1)  # three quiet delays, but a retain is still in progress
        assert work.calls == []
        await asyncio.sleep(0.15)  # past the longest wait: settled anyway
        assert len(work.calls) == 1


async def test_the_quiet_delay_counts_from_the_last_retain_s_answer():
    work = Recorder()
    settles = SettleBehind(work, SettleTiming(delay_s=0.05, max_wait_s=5, max_entities=100))
    with settles.retaining("b1"):
        settles.add("b1", touched("a"))
        await asyncio.sleep(0.1)
    assert work.calls == []
    await asyncio.sleep(0.1)
    assert len(work.calls) == 1
