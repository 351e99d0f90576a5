"""Group commit: which waiting requests share a write, and that each still gets its own answer."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import msgspec
import pytest

from app.errors import InvalidInput, NotFound, Unavailable
from app.retain.group_commit import GroupCommitter, GroupLimits, next_group, should_isolate


class Req(msgspec.Struct, frozen=True):
    name: str
    facts: int = 1
    document_ids: frozenset[str] = frozenset()
    alone: bool = False


LIMITS = GroupLimits(max_facts=10)


# -- next_group ----------------------------------------------------------------------------------


def test_everything_waiting_is_one_group_while_it_fits():
    assert next_group([Req("a", 3), Req("b", 3), Req("c", 4)], LIMITS) == 3


def test_the_group_ends_at_the_first_request_over_the_fact_bound():
    # c does not fit, and d (which would) does not jump the queue ahead of it.
    assert next_group([Req("a", 4), Req("b", 4), Req("c", 5), Req("d", 1)], LIMITS) == 2


def test_a_request_bigger_than_the_bound_is_a_group_of_its_own():
    assert next_group([Req("big", 50), Req("b", 1)], LIMITS) == 1
    assert next_group([Req("a", 1), Req("big", 50)], LIMITS) == 1


def test_a_request_with_work_of_its_own_is_written_alone():
    assert next_group([Req("solo", alone=True), Req("b")], LIMITS) == 1
    assert next_group([Req("a"), Req("solo", alone=True), Req("c")], LIMITS) == 1


def test_two_versions_of_one_document_never_share_a_write():
    waiting = [
        Req("a", document_ids=frozenset({"d1"})),
        Req("b", document_ids=frozenset({"d2"})),
        Req("c", document_ids=frozenset({"d1", "d3"})),
    ]
    assert next_group(waiting, LIMITS) == 2


def test_requests_without_facts_still_join():
    # Unchanged documents write nothing but still get an answer from the group.
    assert next_group([Req("a", 0), Req("b", 0), Req("c", 10)], LIMITS) == 3


def test_nothing_waiting_is_no_group():
    assert next_group([], LIMITS) == 0


def test_only_a_failed_group_of_several_is_isolated_and_never_for_an_unavailable_store():
    assert should_isolate(3, InvalidInput("bad item"))
    assert should_isolate(2, RuntimeError("constraint"))
    assert not should_isolate(1, InvalidInput("bad item"))
    assert not should_isolate(3, Unavailable("Neo4j is down"))


# -- the committer ------------------------------------------------------------------------------


class Store:
    """Records what the committer writes and publishes; a gate can hold a write open."""

    def __init__(self) -> None:
        self.writes: list[list[str]] = []
        self.published: list[list[str]] = []
        self.events: list[str] = []
        self.gate: asyncio.Event | None = None
        self.gated_banks: set[str] | None = None  # None: every bank waits on the gate
        self.publish_gate: asyncio.Event | None = None
        self.bad_write: set[str] = set()
        self.bad_publish: set[str] = set()
        self.unavailable_publishes = 0  # publishes that fail as if the store were away
        self.bank_gone = False
        self.down = False

    async def write(self, bank_id: str, group: Sequence[Req]) -> None:
        names = [r.name for r in group]
        self.writes.append(names)
        self.events.append(f"write {bank_id} {','.join(names)}")
        if self.gate is not None and (self.gated_banks is None or bank_id in self.gated_banks):
            await self.gate.wait()
        if self.down:
            raise Unavailable("Neo4j is unavailable")
        bad = self.bad_write.intersection(names)
        if bad:
            raise InvalidInput(f"bad: {sorted(bad)[0]}")
        self.events.append(f"written {','.join(names)}")

    async def publish(self, bank_id: str, group: Sequence[Req]) -> None:
        names = [r.name for r in group]
        self.events.append(f"publish {','.join(names)}")
        if self.publish_gate is not None:
            await self.publish_gate.wait()
        if self.bank_gone:
            raise NotFound("bank b1 not found")
        if self.unavailable_publishes:
            self.unavailable_publishes -= 1
            raise Unavailable("Neo4j is unavailable")
        bad = self.bad_publish.intersection(names)
        if bad:
            raise RuntimeError(f"publish failed: {sorted(bad)[0]}")
        self.published.append(names)


def committer(store: Store, limits: GroupLimits = LIMITS) -> GroupCommitter[Req]:
    return GroupCommitter(write=store.write, publish=store.publish, limits=limits)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_requests_arriving_during_a_write_share_the_next_one():
    store = Store()
    store.gate = asyncio.Event()
    commits = committer(store)
    first = asyncio.create_task(commits.commit("b1", Req("a")))
    await settle()
    later = [asyncio.create_task(commits.commit("b1", Req(name))) for name in "bcd"]
    await settle()
    assert store.writes == [["a"]]  # b, c, d wait while a is written
    store.gate.set()
    await asyncio.gather(first, *later)
    assert store.writes == [["a"], ["b", "c", "d"]]
    await commits.published("b1")
    assert store.published == [["a"], ["b", "c", "d"]]


async def test_a_lone_request_is_written_at_once():
    store = Store()
    commits = committer(store)
    await commits.commit("b1", Req("a"))
    assert store.writes == [["a"]]
    await commits.published("b1")
    assert store.published == [["a"]]


async def test_the_answer_comes_after_the_write_and_searches_wait_for_the_publish():
    store = Store()
    store.publish_gate = asyncio.Event()
    commits = committer(store)
    await commits.commit("b1", Req("a"))  # answered while the publish waits at its gate
    assert store.writes == [["a"]] and store.published == []
    search = asyncio.create_task(commits.published("b1"))
    other_bank = asyncio.create_task(commits.published("b2"))
    await settle()
    assert not search.done() and other_bank.done()
    store.publish_gate.set()
    await search
    assert store.published == [["a"]]


async def test_the_next_group_is_written_while_the_last_one_publishes():
    store = Store()
    store.publish_gate = asyncio.Event()
    commits = committer(store)
    first = asyncio.create_task(commits.commit("b1", Req("a")))
    await settle()
    second = asyncio.create_task(commits.commit("b1", Req("b")))
    await settle()
    assert store.events[:4] == ["write b1 a", "written a", "publish a", "write b1 b"]
    store.publish_gate.set()
    await asyncio.gather(first, second)


async def test_a_bad_request_fails_alone_and_its_neighbours_land():
    store = Store()
    store.gate = asyncio.Event()
    store.bad_write = {"bad"}
    commits = committer(store)
    head = asyncio.create_task(commits.commit("b1", Req("head")))
    await settle()
    group = {n: asyncio.create_task(commits.commit("b1", Req(n))) for n in ("a", "bad", "c")}
    await settle()
    store.gate.set()
    await head
    assert await group["a"] is None
    assert await group["c"] is None
    with pytest.raises(InvalidInput, match="bad: bad"):
        await group["bad"]
    # The group failed once, then each member was written on its own.
    assert store.writes == [["head"], ["a", "bad", "c"], ["a"], ["bad"], ["c"]]
    await commits.published("b1")
    assert sorted(map(tuple, store.published)) == [("a",), ("c",), ("head",)]


async def test_a_failing_publish_leaves_only_its_culprit_unpublished(caplog):
    store = Store()
    store.gate = asyncio.Event()
    store.bad_publish = {"bad"}
    commits = committer(store)
    head = asyncio.create_task(commits.commit("b1", Req("head")))
    await settle()
    ok = asyncio.create_task(commits.commit("b1", Req("ok")))
    bad = asyncio.create_task(commits.commit("b1", Req("bad")))
    await settle()
    store.gate.set()
    # Both were written: both answers are successes; the culprit's facts stay pending.
    await asyncio.gather(head, ok, bad)
    await commits.published("b1")
    assert store.writes == [["head"], ["ok", "bad"]]  # written together, published apart
    assert ["ok"] in store.published
    assert not any("bad" in names for names in store.published)
    assert "stay pending until reconciliation" in caplog.text


async def test_a_publish_is_tried_again_while_the_store_is_unavailable():
    store = Store()
    commits = GroupCommitter(
        write=store.write, publish=store.publish, limits=LIMITS, publish_retry_s=0.01
    )
    store.unavailable_publishes = 2
    await commits.commit("b1", Req("a"))
    await commits.published("b1")
    assert store.published == [["a"]]
    assert store.events.count("publish a") == 3


async def test_a_publish_into_a_bank_deleted_meanwhile_is_dropped():
    store = Store()
    store.bank_gone = True
    commits = committer(store)
    await commits.commit("b1", Req("a"))
    await asyncio.wait_for(commits.published("b1"), timeout=1.0)
    assert store.published == [] and store.events.count("publish a") == 1


async def test_an_unavailable_store_fails_the_whole_group_at_once():
    store = Store()
    store.gate = asyncio.Event()
    commits = committer(store)
    head = asyncio.create_task(commits.commit("b1", Req("head")))
    await settle()
    store.down = True
    group = [asyncio.create_task(commits.commit("b1", Req(n))) for n in "ab"]
    await settle()
    store.gate.set()
    results = await asyncio.gather(head, *group, return_exceptions=True)
    assert all(isinstance(r, Unavailable) for r in results)
    assert store.writes == [["head"], ["a", "b"]]  # no member-by-member retry


async def test_groups_respect_the_fact_bound_in_arrival_order():
    store = Store()
    store.gate = asyncio.Event()
    commits = committer(store, GroupLimits(max_facts=5))
    head = asyncio.create_task(commits.commit("b1", Req("head")))
    await settle()
    sizes = {"a": 2, "b": 2, "c": 2, "d": 1, "e": 4}
    tasks = [asyncio.create_task(commits.commit("b1", Req(n, f))) for n, f in sizes.items()]
    await settle()
    store.gate.set()
    await asyncio.gather(head, *tasks)
    assert store.writes == [["head"], ["a", "b"], ["c", "d"], ["e"]]


async def test_banks_are_written_independently():
    store = Store()
    store.gate = asyncio.Event()
    store.gated_banks = {"b1"}
    commits = committer(store)
    held = asyncio.create_task(commits.commit("b1", Req("a")))
    await settle()
    await commits.commit("b2", Req("x"))  # b1's write is still open
    assert not held.done()
    store.gate.set()
    await held
    await commits.published("b1")
    assert store.published == [["x"], ["a"]]


async def test_a_caller_that_gives_up_before_its_write_is_left_out():
    store = Store()
    store.gate = asyncio.Event()
    commits = committer(store)
    head = asyncio.create_task(commits.commit("b1", Req("head")))
    await settle()
    gone = asyncio.create_task(commits.commit("b1", Req("gone")))
    kept = asyncio.create_task(commits.commit("b1", Req("kept")))
    await settle()
    gone.cancel()
    store.gate.set()
    await asyncio.gather(head, kept)
    assert store.writes == [["head"], ["kept"]]


async def test_a_group_waits_for_company_when_asked_to():
    store = Store()
    commits = committer(store, GroupLimits(max_facts=10, wait_s=0.05))
    first = asyncio.create_task(commits.commit("b1", Req("a")))
    await asyncio.sleep(0.01)
    second = asyncio.create_task(commits.commit("b1", Req("b")))
    await asyncio.gather(first, second)
    assert store.writes == [["a", "b"]]


async def test_only_a_group_that_starts_an_idle_bank_waits_for_company():
    # A full group does not wait; the request that arrives during its write is written right
    # after it, not after another wait (which would outlast the test's timeout).
    store = Store()
    store.gate = asyncio.Event()
    commits = committer(store, GroupLimits(max_facts=10, wait_s=30.0))
    head = asyncio.create_task(commits.commit("b1", Req("head", facts=10)))
    await settle()
    later = asyncio.create_task(commits.commit("b1", Req("later")))
    await settle()
    store.gate.set()
    await asyncio.wait_for(asyncio.gather(head, later), timeout=2.0)
    assert store.writes == [["head"], ["later"]]


async def test_wait_idle_returns_once_everything_is_published():
    store = Store()
    store.publish_gate = asyncio.Event()
    commits = committer(store)
    task = asyncio.create_task(commits.commit("b1", Req("a")))
    await settle()
    idle = asyncio.create_task(commits.wait_idle())
    await settle()
    assert not idle.done()
    store.publish_gate.set()
    await asyncio.gather(task, idle)
    assert store.published == [["a"]]
