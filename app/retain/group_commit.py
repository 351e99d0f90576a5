"""Group commit: the retain requests of a bank that wait for its write share the next one.

A bank's writes run one at a time (the bank lock), and a write costs about the same fixed
number of statements whatever it carries. Agents retain a turn at a time, from many
conversations at once; written one by one, their requests queue behind each other and each
pays the whole fixed cost. Here each bank has a queue and one drain task: a prepared request
joins the queue, and when the bank's write is free the drain takes the requests waiting at its
head as one group (:func:`next_group`) and writes them in one transaction, then publishes the
group while it writes the next one. Preparation (extraction, embedding, the semantic search)
still runs per request, concurrently, before the queue.

Each request still gets its own outcome. When a group's write or publish fails, the group is
tried again member by member (:func:`should_isolate`), so a request that breaks a write fails
alone and the others land; an error of the store itself (``Unavailable``) fails the whole
group at once, since trying each member again would only wait on the store once per member.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, Protocol, TypeVar

import msgspec

from app.errors import Unavailable

log = logging.getLogger(__name__)


class GroupLimits(msgspec.Struct, frozen=True, kw_only=True):
    """How big a group may grow and how long it waits for company."""

    # Facts in one group write. A write's cost grows with its facts (entity resolution, the
    # statements' rows) and every member waits for the whole of it: past a few hundred facts
    # the fixed cost is amortised and a bigger group only delays its first members.
    max_facts: int = 400
    # How long a group's first request waits for others before the write starts, when none
    # is running. Zero: a lone request is written at once; requests that arrive during a write
    # still share the next one, which is where grouping pays.
    wait_s: float = 0.0


class GroupMember(Protocol):
    """What grouping needs to know of a prepared request."""

    @property
    def facts(self) -> int:
        """New facts the request writes."""
        ...

    @property
    def document_ids(self) -> frozenset[str]:
        """Documents the request writes (two versions of one never share a write)."""
        ...

    @property
    def alone(self) -> bool:
        """True when the request brings work of its own to the transaction (reprocessing)."""
        ...


def next_group(waiting: Sequence[GroupMember], limits: GroupLimits) -> int:
    """How many requests, from the head of the queue, the next write takes (at least one).

    Requests keep their arrival order: the group ends at the first request that does not fit
    (over ``max_facts`` together, a document already in the group, or one that must be
    written alone), which then leads the next group. A request bigger than ``max_facts`` is
    a group of its own.
    """
    if not waiting:
        return 0
    head = waiting[0]
    if head.alone:
        return 1
    facts = head.facts
    documents = set(head.document_ids)
    taken = 1
    for member in waiting[1:]:
        if member.alone or facts + member.facts > limits.max_facts:
            break
        if not documents.isdisjoint(member.document_ids):
            break
        facts += member.facts
        documents |= member.document_ids
        taken += 1
    return taken


def should_isolate(members: int, error: BaseException) -> bool:
    """Whether a failed group is tried again one member at a time.

    A group of one has nothing to isolate; an unavailable store fails everyone alike.
    """
    return members > 1 and not isinstance(error, Unavailable)


M = TypeVar("M", bound=GroupMember)
GroupWork = Callable[[str, Sequence[M]], Awaitable[None]]


class _Waiting(Generic[M]):
    """A queued request and the future its caller awaits."""

    __slots__ = ("done", "request")

    def __init__(self, request: M) -> None:
        self.request = request
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class GroupCommitter(Generic[M]):
    """Writes and publishes a bank's prepared requests in groups, one write at a time per bank.

    ``write(bank_id, members)`` runs the group's write transaction; ``publish(bank_id,
    members)`` makes what it wrote visible. Both get the members in arrival order, and both
    must be safe to run again for a subset of the members after a failure (they are: a failed
    write commits nothing, and a publish is idempotent).
    """

    def __init__(self, *, write: GroupWork[M], publish: GroupWork[M], limits: GroupLimits) -> None:
        self._write = write
        self._publish = publish
        self.limits = limits
        self._queues: dict[str, deque[_Waiting[M]]] = {}
        self._drains: dict[str, asyncio.Task[None]] = {}
        self._publishing: set[asyncio.Task[None]] = set()

    async def commit(self, bank_id: str, request: M) -> None:
        """Return once ``request`` is written and published; raise what failed it.

        A caller that gives up (cancelled) before its group's write starts is left out of
        it; once the write has started, the request lands whatever the caller does.
        """
        waiting = _Waiting(request)
        self._queues.setdefault(bank_id, deque()).append(waiting)
        if bank_id not in self._drains:
            self._drains[bank_id] = asyncio.create_task(
                self._drain(bank_id), name=f"mnemo-commit-{bank_id}"
            )
        await waiting.done

    async def wait_idle(self) -> None:
        """Wait until every queued request is written and published (tests, shutdown)."""
        while self._drains or self._publishing:
            await asyncio.gather(*self._drains.values(), *self._publishing, return_exceptions=True)

    async def _drain(self, bank_id: str) -> None:
        queue = self._queues[bank_id]
        group: list[_Waiting[M]] = []
        # Only a drain's first group waits for company: it starts when the bank's write is
        # idle, while later groups gathered during the write before them.
        idle = True
        try:
            while queue:
                if idle and self.limits.wait_s > 0 and _fits_more(queue, self.limits):
                    await asyncio.sleep(self.limits.wait_s)
                idle = False
                taken = next_group([w.request for w in queue], self.limits)
                group = [queue.popleft() for _ in range(taken)]
                group = [w for w in group if not w.done.done()]  # callers that gave up
                if group:
                    await self._write_group(bank_id, group)
                group = []
        finally:
            del self._drains[bank_id]
            # Only a cancelled drain (shutdown) leaves requests unanswered here.
            for waiting in [*group, *queue]:
                _fail(waiting, Unavailable("the service is stopping; retain again"))
            del self._queues[bank_id]

    async def _write_group(self, bank_id: str, group: list[_Waiting[M]]) -> None:
        """Write a group (member by member after a failure), then start publishing it."""
        for written in await self._run_isolating(self._write, bank_id, group):
            task = asyncio.create_task(self._publish_group(bank_id, written))
            self._publishing.add(task)
            task.add_done_callback(self._publishing.discard)

    async def _publish_group(self, bank_id: str, group: list[_Waiting[M]]) -> None:
        try:
            for published in await self._run_isolating(self._publish, bank_id, group):
                for waiting in published:
                    if not waiting.done.done():
                        waiting.done.set_result(None)
        finally:
            # Only a cancelled publish (shutdown) leaves requests unanswered here; their facts
            # are written and pending, and reconciliation publishes them.
            for waiting in group:
                _fail(waiting, Unavailable("the service is stopping; the retain is pending"))

    async def _run_isolating(
        self, work: GroupWork[M], bank_id: str, group: list[_Waiting[M]]
    ) -> list[list[_Waiting[M]]]:
        """Run ``work`` on the group; after a failure, on each member alone.

        Returns the sets of members ``work`` succeeded on (the group, or single members);
        every member it failed on has its caller's future failed with its own error.
        """
        try:
            await work(bank_id, [w.request for w in group])
        except Exception as exc:
            if not should_isolate(len(group), exc):
                for waiting in group:
                    _fail(waiting, exc)
                return []
            log.warning(
                "a group of %d retains into bank %s failed (%s); writing them one by one",
                len(group),
                bank_id,
                exc,
            )
        else:
            return [group]
        succeeded: list[list[_Waiting[M]]] = []
        for waiting in group:
            try:
                await work(bank_id, [waiting.request])
            except Exception as exc:
                _fail(waiting, exc)
            else:
                succeeded.append([waiting])
        return succeeded


def _fits_more(queue: deque[_Waiting[M]], limits: GroupLimits) -> bool:
    """True when the waiting requests do not already make a full group."""
    return next_group([w.request for w in queue], limits) == len(queue) and (
        sum(w.request.facts for w in queue) < limits.max_facts
    )


def _fail(waiting: _Waiting[M], error: BaseException) -> None:
    if not waiting.done.done():
        waiting.done.set_exception(error)
        # A caller that gave up never retrieves it; do not log it as "never retrieved".
        with contextlib.suppress(BaseException):
            waiting.done.exception()
