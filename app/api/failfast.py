"""Requests that need Neo4j fail fast with a 503 while it does not answer.

The liveness watcher (``app/store/liveness.py``) knows within a few seconds that Neo4j is down
or hung. While it is, a request is refused at once; a request already waiting when it goes
down is ended with the same 503 (unless its answer has started). Health, metrics and the API
document do not need Neo4j and are never held back.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import Unavailable

DETAIL = "Neo4j is unavailable (it does not answer); try again"
EXEMPT_PREFIXES = ("/schema", "/metrics", "/health")


class FailFastMiddleware:
    """503 at once while Neo4j does not answer (see the module docstring)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the request unless Neo4j is down; end it if Neo4j goes down meanwhile."""
        if scope["type"] != ScopeType.HTTP or scope["path"].startswith(EXEMPT_PREFIXES):
            await self.app(scope, receive, send)
            return
        runtime: Any = getattr(scope["app"].state, "runtime", None)
        if runtime is None:
            await self.app(scope, receive, send)
            return
        liveness = runtime.liveness
        if liveness.down:
            raise Unavailable(DETAIL)
        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        request = asyncio.ensure_future(self.app(scope, receive, watched_send))
        went_down = asyncio.ensure_future(liveness.down_event.wait())
        try:
            await asyncio.wait({request, went_down}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            went_down.cancel()
        if request.done() or started:
            await request
            return
        request.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await request
        raise Unavailable(DETAIL)
