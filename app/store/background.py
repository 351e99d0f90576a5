"""Stopping background tasks: cancel until they end, and say where one will not.

A cancellation can be lost: Python 3.11's ``asyncio.wait_for`` returns the inner result when
it finishes just as the cancellation arrives, and a ``while True`` loop that lost its
cancellation runs on, so a stop that cancels once and waits can wait for ever (a service that
does not stop when asked). :func:`stop_tasks` cancels again until each task has ended, and
gives up on a task after ``timeout_s``, logging where it waits: what a background task leaves
undone (a lease, a pending delivery, a running operation) is finished by the next start.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Iterable

log = logging.getLogger(__name__)

# Seconds between cancellations: long enough for a task's cleanup (giving a lease back) to
# finish before it is cancelled again.
RECANCEL_S = 2.0
STOP_TIMEOUT_S = 20.0


async def stop_tasks(
    tasks: Iterable[asyncio.Task[object]], *, timeout_s: float = STOP_TIMEOUT_S
) -> None:
    """Cancel ``tasks`` until they have ended, or for ``timeout_s`` (then log and leave them)."""
    every = list(tasks)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    pending = {task for task in every if not task.done()}
    while pending:
        left = deadline - loop.time()
        if left <= 0:
            for task in pending:
                log.warning(
                    "%s did not stop in %.0f s; left running\n%s",
                    task.get_name(),
                    timeout_s,
                    _stack(task),
                )
            return
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=min(RECANCEL_S, left))
    for task in every:
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.error("%s had failed", task.get_name(), exc_info=task.exception())


async def finish_within(
    work: Callable[[], Awaitable[None]], *, name: str, timeout_s: float = STOP_TIMEOUT_S
) -> None:
    """Let ``work`` finish (a publish still running at shutdown), for ``timeout_s`` at most."""
    task = asyncio.ensure_future(work())
    task.set_name(name)
    done, _ = await asyncio.wait({task}, timeout=timeout_s)
    if not done:
        log.warning(
            "%s did not finish in %.0f s; left to the next start\n%s", name, timeout_s, _stack(task)
        )
    await stop_tasks([task], timeout_s=RECANCEL_S)


def _stack(task: asyncio.Task[object]) -> str:
    out = io.StringIO()
    task.print_stack(file=out)
    return out.getvalue()
