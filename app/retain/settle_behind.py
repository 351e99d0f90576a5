"""The settle behind the write: writes leave what they touched, and one settle covers many.

A settle (decision 0010) re-resolves every entity a write touched, and the block around it,
from the stored evidence. It costs about the same whatever the write carried, so inside each
write it was most of a small request's time (decision 0018). Here a write hands what it
touched (:class:`~app.resolve.port.PendingSettle`) to its bank's queue and returns; one task
per bank settles everything queued so far in one write transaction of its own:

- once no retain into the bank has been in progress for ``delay_s`` (a burst of small retains
  shares one settle, and a settle does not take the bank's write from a retain on its way to
  it), or once the oldest queued write has waited ``max_wait_s`` (steady writes still settle
  that often), or at once when the queue has touched ``max_entities`` entities (a settle's
  block is bounded, and a bigger union would be cut);
- at once when someone asks for the bank's identities (:meth:`SettleBehind.settled`: reads
  that show entities, and curation, wait for it, so a client reads what it wrote, settled),
  and at shutdown.

The facts a settle has not covered stay marked in the graph (``settle_pending``), so a crash
between a write and its settle is repaired at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator

import msgspec

from app.errors import NotFound, Unavailable
from app.resolve.port import PendingSettle

log = logging.getLogger(__name__)


class SettleTiming(msgspec.Struct, frozen=True, kw_only=True):
    """When a bank's queued settle runs."""

    delay_s: float = 0.25
    max_wait_s: float = 2.0
    max_entities: int = 64


# Times a settle is tried again while the store is unavailable, ``max_wait_s`` apart.
UNAVAILABLE_RETRIES = 3

SettleWork = Callable[[str, PendingSettle], Awaitable[None]]


class _BankQueue:
    """What one bank's writes left for its settle, and who waits for it."""

    __slots__ = (
        "failures",
        "first_at",
        "flush",
        "last_at",
        "next_done",
        "pending",
        "running_done",
        "wake",
    )

    def __init__(self) -> None:
        self.pending: PendingSettle | None = None
        self.first_at = 0.0
        self.last_at = 0.0
        self.flush = False
        self.failures = 0
        self.wake = asyncio.Event()
        # Callers waiting for the settle that will cover what is queued now, and for the one
        # running now (which covers what was queued before it started).
        self.next_done: list[asyncio.Future[None]] = []
        self.running_done: list[asyncio.Future[None]] = []


class SettleBehind:
    """Per-bank queues of pending settles, each drained by one task (see the module doc)."""

    def __init__(self, settle: SettleWork, timing: SettleTiming) -> None:
        self._settle = settle
        self.timing = timing
        self._queues: dict[str, _BankQueue] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._in_progress: Counter[str] = Counter()

    @contextlib.contextmanager
    def retaining(self, bank_id: str) -> Iterator[None]:
        """Around a retain into the bank, from its preparation to its answer."""
        self._in_progress[bank_id] += 1
        try:
            yield
        finally:
            self._in_progress[bank_id] -= 1
            if not self._in_progress[bank_id]:
                del self._in_progress[bank_id]
            queue = self._queues.get(bank_id)
            if queue is not None:
                queue.last_at = asyncio.get_running_loop().time()
                queue.wake.set()

    def add(self, bank_id: str, pending: PendingSettle) -> None:
        """Queue what a committed write touched; its bank's task settles it soon."""
        if not pending.touched and not pending.memory_ids:
            return
        queue = self._queues.setdefault(bank_id, _BankQueue())
        now = asyncio.get_running_loop().time()
        if queue.pending is None:
            queue.pending, queue.first_at = pending, now
        else:
            queue.pending = queue.pending.join(pending)
        queue.last_at = now
        queue.wake.set()
        if bank_id not in self._tasks:
            self._tasks[bank_id] = asyncio.create_task(
                self._drain(bank_id, queue), name=f"mnemo-settle-{bank_id}"
            )

    async def settled(self, bank_id: str) -> None:
        """Return once everything this process wrote to the bank so far is settled."""
        queue = self._queues.get(bank_id)
        if queue is None:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if queue.pending is not None:
            queue.next_done.append(done)
            queue.flush = True
            queue.wake.set()
        elif bank_id in self._tasks:
            queue.running_done.append(done)
        else:
            return
        await asyncio.shield(done)

    async def wait_idle(self) -> None:
        """Settle every bank's queue now and wait for it (shutdown, tests)."""
        while self._tasks:
            await asyncio.gather(*(self.settled(b) for b in list(self._tasks)))

    async def _drain(self, bank_id: str, queue: _BankQueue) -> None:
        try:
            while queue.pending is not None:
                await self._until_due(bank_id, queue)
                pending, queue.pending = queue.pending, None
                queue.flush = False
                waiting, queue.next_done = queue.next_done, []
                queue.running_done.extend(waiting)
                await self._run(bank_id, queue, pending)
                for done in queue.running_done:
                    if not done.done():
                        done.set_result(None)
                queue.running_done = []
        finally:
            del self._tasks[bank_id]
            del self._queues[bank_id]
            for done in [*queue.next_done, *queue.running_done]:
                if not done.done():
                    done.set_result(None)

    async def _until_due(self, bank_id: str, queue: _BankQueue) -> None:
        loop = asyncio.get_running_loop()
        while not queue.flush and queue.pending is not None:
            if len(queue.pending.touched) >= self.timing.max_entities:
                return
            due = queue.first_at + self.timing.max_wait_s
            if not self._in_progress[bank_id]:
                due = min(due, queue.last_at + self.timing.delay_s)
            left = due - loop.time()
            if left <= 0:
                return
            queue.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(queue.wake.wait(), left)

    async def _run(self, bank_id: str, queue: _BankQueue, pending: PendingSettle) -> None:
        try:
            await self._settle(bank_id, pending)
            queue.failures = 0
        except NotFound:
            return  # the bank was deleted meanwhile: nothing is left to settle
        except Unavailable as exc:
            # The store is away: try again a few times, a while apart; its facts stay marked
            # in the graph whatever happens, and the next start settles what is left.
            queue.failures += 1
            if queue.failures > UNAVAILABLE_RETRIES:
                log.warning("settling bank %s failed (%s); left for the next start", bank_id, exc)
                queue.failures = 0
                return
            log.warning("settling bank %s failed (%s); trying again", bank_id, exc)
            queue.pending = pending if queue.pending is None else pending.join(queue.pending)
            await asyncio.sleep(self.timing.max_wait_s)
        except Exception:
            # A settle that fails for another reason would fail again at once: its facts stay
            # marked, and the next start settles them.
            log.exception(
                "settling bank %s failed; its facts stay marked for the next start", bank_id
            )
