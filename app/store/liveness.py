"""Is Neo4j answering right now? A watcher that pings it, so that requests fail fast.

The driver alone waits long when Neo4j is down (it retries a transaction for seconds) and
forever when it hangs (a stopped process keeps its TCP connections open). The watcher pings
with ``RETURN 1`` twice a second, each ping bounded by a deadline: a ping that fails (the
server refuses connections) marks Neo4j down at once, and no successful ping for
:data:`UNRESPONSIVE_S` marks it down too (hung). Requests are then refused with a 503 at once,
and those already waiting on Neo4j are ended (``down_event``). The first ping that succeeds
again marks it up: recovery needs no restart.

Silence counts only while this process could have heard an answer: time during which the event
loop itself did not run (a busy machine, a long synchronous step, a paused process) is left out,
so a stalled service never mistakes its own stall for a hung Neo4j and ends requests with 503s.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from prometheus_client import Gauge

from app.store.background import stop_tasks

log = logging.getLogger(__name__)

PING_INTERVAL_S = 0.5
# A ping slower than this counts as no answer.
PING_TIMEOUT_S = 1.5
# No answer for this long: Neo4j is unresponsive.
UNRESPONSIVE_S = 3.5

NEO4J_UP = Gauge("mnemo_neo4j_up", "1 while Neo4j answers the liveness ping, else 0")


class Liveness:
    """The answer to "does Neo4j respond?", kept current by a background task."""

    def __init__(
        self,
        ping: Callable[[], Awaitable[object]],
        *,
        interval: float = PING_INTERVAL_S,
        timeout: float = PING_TIMEOUT_S,
        unresponsive_after: float = UNRESPONSIVE_S,
    ) -> None:
        self._ping = ping
        self._interval = interval
        self._timeout = timeout
        self._unresponsive_after = unresponsive_after
        self._last_answer = time.monotonic()
        # When the loop last ran a liveness step (the watchdog ticks every interval / 2).
        self._last_step = self._last_answer
        self._failed = False
        self.down_event = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        NEO4J_UP.set(1)

    @property
    def down(self) -> bool:
        """True while Neo4j refuses connections or has not answered for a while."""
        return self.down_event.is_set()

    async def start(self) -> None:
        """Start pinging (and watching the time since the last answer)."""
        self._tasks = [
            asyncio.create_task(self._pinger(), name="mnemo-neo4j-ping"),
            asyncio.create_task(self._watchdog(), name="mnemo-neo4j-watchdog"),
        ]

    async def stop(self) -> None:
        """Stop both tasks."""
        await stop_tasks(self._tasks)
        self._tasks = []

    async def check(self) -> bool:
        """Ping once now (bounded by the timeout); True when Neo4j answered."""
        try:
            await asyncio.wait_for(self._ping(), self._timeout)
        except TimeoutError:
            self._update()
            return False
        except Exception as exc:
            log.debug("Neo4j ping failed: %s", exc)
            self._failed = True
            self._update()
            return False
        self._last_answer = time.monotonic()
        self._failed = False
        self._update()
        return True

    async def _pinger(self) -> None:
        while True:
            await self.check()
            await asyncio.sleep(self._interval)

    async def _watchdog(self) -> None:
        while True:
            self._update()
            await asyncio.sleep(self._interval / 2)

    def _update(self) -> None:
        now = time.monotonic()
        # A gap between two steps well beyond the watchdog's tick is time the loop did not run:
        # no answer could have been read in it, so it is not Neo4j's silence.
        stalled = now - self._last_step - self._interval
        if stalled > 0:
            self._last_answer += stalled
        self._last_step = now
        silent = now - self._last_answer > self._unresponsive_after
        down = self._failed or silent
        if down and not self.down_event.is_set():
            log.warning("Neo4j is not answering; requests that need it get 503 until it does")
            self.down_event.set()
            NEO4J_UP.set(0)
        elif not down and self.down_event.is_set():
            log.warning("Neo4j answers again")
            self.down_event.clear()
            NEO4J_UP.set(1)
