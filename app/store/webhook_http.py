"""Sending webhook deliveries over HTTP (the only network call of the webhooks feature)."""

from __future__ import annotations

from collections.abc import Mapping

import httpx
import msgspec

# Enough of a receiver's answer to tell why it refused a delivery.
MAX_BODY_CHARS = 2000


class HttpAnswer(msgspec.Struct, frozen=True):
    """A receiver's answer: its status and the start of its body."""

    status: int
    body: str


class WebhookSender:
    """One pooled HTTP client for every delivery; opened and closed by the runtime."""

    def __init__(self) -> None:
        self._client = httpx.AsyncClient(follow_redirects=False)

    async def send(
        self,
        method: str,
        url: str,
        *,
        body: bytes,
        headers: Mapping[str, str],
        params: Mapping[str, str] | None,
        timeout_s: float,
    ) -> HttpAnswer:
        """Send one delivery; raises ``httpx.HTTPError`` when there is no answer in time."""
        response = await self._client.request(
            method, url, content=body, headers=dict(headers), params=params, timeout=timeout_s
        )
        return HttpAnswer(status=response.status_code, body=response.text[:MAX_BODY_CHARS])

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()
