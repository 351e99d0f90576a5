"""Group commit: the retain requests of a bank that wait for its write share the next one.

A bank's writes run one at a time (the bank lock), and a write costs about the same fixed
number of statements whatever it carries. Agents retain a turn at a time, from many
conversations at once; written one by one, their requests queue behind each other and each
pays the whole fixed cost. Here each bank has a queue and one drain task: a prepared request
joins the queue, and when the bank's write is free the drain takes the requests waiting at its
head as one group (:func:`next_group`) and writes them in one transaction, then publishes the
group while it writes the next one. Preparation (extraction, embedding, the semantic search)
still runs per request, concurrently, before the queue.

Each request still gets its own outcome. When a group's write fails, the group is tried again
member by member (:func:`should_isolate`), so a request that breaks a write fails alone and the
others land; an error of the store itself (``Unavailable``) fails the whole group at once,
since trying each member again would only wait on the store once per member.

A caller is answered once its group is written (decision 0019): what it retained is stored,
and the publish that makes it searchable runs behind the answer. Whoever searches the bank
waits for the publishes in flight first (:meth:`GroupCommitter.published`). A publish that
fails is tried the same way, member by member, and an unavailable store a few times more; what
still fails stays pending in the graph, where reconciliation finishes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, Protocol, TypeVar

import msgspec

from app.errors import NotFound, Unavailable

log = logging.getLogger(__name__)

# Times a group's publish is tried again while the store is unavailable, ``PUBLISH_RETRY_S``
# apart, before its facts are left pending for reconciliation.
PUBLISH_RETRIES = 3
PUBLISH_RETRY_S = 2.0


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

    def __init__(
        self,
        *,
        write: GroupWork[M],
        publish: GroupWork[M],
        limits: GroupLimits,
        publish_retry_s: float = PUBLISH_RETRY_S,
    ) -> None:
        self._write = write
        self._publish = publish
        self.limits = limits
        self._publish_retry_s = publish_retry_s
        self._queues: dict[str, deque[_Waiting[M]]] = {}
        self._drains: dict[str, asyncio.Task[None]] = {}
        self._publishing: dict[str, set[asyncio.Task[None]]] = {}

    async def commit(self, bank_id: str, request: M) -> None:
        """Return once ``request`` is written; raise what failed it. Its publish runs behind.

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

    async def published(self, bank_id: str) -> None:
        """Return once every group of the bank written so far is published (or left pending)."""
        running = self._publishing.get(bank_id)
        if running:
            await asyncio.wait(set(running))

    async def wait_idle(self) -> None:
        """Wait until every queued request is written and published (tests, shutdown)."""
        while self._drains or self._publishing:
            running = [t for tasks in self._publishing.values() for t in tasks]
            await asyncio.gather(*self._drains.values(), *running, return_exceptions=True)

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
        """Write a group (member by member after a failure), start publishing it, answer."""
        written, failed = await _run_isolating(self._write, bank_id, [w.request for w in group])
        for i, error in failed.items():
            _fail(group[i], error)
        for members in written:
            # Started before the answers: a caller that searches right after its answer
            # finds this publish to wait for.
            self._start_publish(bank_id, [group[i].request for i in members])
            for i in members:
                if not group[i].done.done():
                    group[i].done.set_result(None)

    def _start_publish(self, bank_id: str, requests: list[M]) -> None:
        running = self._publishing.setdefault(bank_id, set())
        task = asyncio.create_task(self._publish_group(bank_id, requests))
        running.add(task)

        def finished(task: asyncio.Task[None]) -> None:
            running.discard(task)
            if not running and self._publishing.get(bank_id) is running:
                del self._publishing[bank_id]

        task.add_done_callback(finished)

    async def _publish_group(self, bank_id: str, requests: list[M]) -> None:
        """Publish a written group; what cannot be published stays pending in the graph.

        A cancelled publish (shutdown) leaves its facts pending too; reconciliation publishes
        them at the next start.
        """
        for attempt in range(PUBLISH_RETRIES + 1):
            _, failed = await _run_isolating(self._publish, bank_id, requests)
            if not failed:
                return
            errors = list(failed.values())
            if any(isinstance(e, NotFound) for e in errors):
                return  # the bank was deleted meanwhile: nothing is left to publish
            for error in errors:
                if not isinstance(error, Unavailable):  # it would fail again at once
                    log.error(
                        "publishing a retain into bank %s failed (%s); its facts stay pending "
                        "until reconciliation",
                        bank_id,
                        error,
                        exc_info=error,
                    )
            requests = [requests[i] for i, e in failed.items() if isinstance(e, Unavailable)]
            if not requests:
                return
            if attempt < PUBLISH_RETRIES:
                log.warning(
                    "publishing %d retains into bank %s failed (%s); trying again",
                    len(requests),
                    bank_id,
                    errors[0],
                )
                await asyncio.sleep(self._publish_retry_s)
        log.warning(
            "publishing %d retains into bank %s failed; their facts stay pending until "
            "reconciliation",
            len(requests),
            bank_id,
        )


async def _run_isolating(
    work: GroupWork[M], bank_id: str, requests: list[M]
) -> tuple[list[list[int]], dict[int, BaseException]]:
    """Run ``work`` on the group; after a failure, on each member alone.

    Returns the sets of members (their indexes) ``work`` succeeded on, the group or single
    members, and the error of each member it failed on.
    """
    try:
        await work(bank_id, requests)
    except Exception as exc:
        if not should_isolate(len(requests), exc):
            return [], dict.fromkeys(range(len(requests)), exc)
        log.warning(
            "a group of %d retains into bank %s failed (%s); trying them one by one",
            len(requests),
            bank_id,
            exc,
        )
    else:
        return [list(range(len(requests)))], {}
    succeeded: list[list[int]] = []
    failed: dict[int, BaseException] = {}
    for i, request in enumerate(requests):
        try:
            await work(bank_id, [request])
        except Exception as exc:
            failed[i] = exc
        else:
            succeeded.append([i])
    return succeeded, failed


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
