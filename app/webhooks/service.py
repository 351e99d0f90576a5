"""Webhook subscriptions (CRUD) and the dispatcher that delivers bank events to them.

Emitting an event only puts it on a queue: a retain never waits for a subscriber. A worker
task records one delivery per subscription (so a delivery is listed before its first attempt),
then sends each one in its own task: signed, with the subscription's timeout, retried with
doubling waits until it is answered 2xx or the attempts run out. Every attempt is recorded.
Deliveries still pending when the service stops are resumed when it starts; an event emitted
but not yet recorded when the process dies is lost.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import msgspec
from msgspec import UNSET

from app.domain.banks import BankDirectory
from app.domain.events import EVENT_TYPES, Event, EventType
from app.domain.paging import offset_of_cursor
from app.errors import InvalidInput, NotFound
from app.store.background import stop_tasks
from app.store.graph import Graph
from app.store.webhook_http import HttpAnswer, WebhookSender
from app.webhooks.rules import (
    DELIVERY_HEADER,
    EVENT_HEADER,
    SIGNATURE_HEADER,
    backoff,
    is_success,
    sign,
)
from app.webhooks.schemas import (
    Delivery,
    DeliveryPage,
    Webhook,
    WebhookCreate,
    WebhookDeleted,
    WebhookHttpConfig,
    WebhookPage,
    WebhookUpdate,
)

log = logging.getLogger(__name__)


class _Stored(msgspec.Struct, kw_only=True):
    """A Webhook node's properties."""

    id: str
    bank_id: str
    url: str
    secret: str
    event_types: list[str] = msgspec.field(default_factory=list)
    enabled: bool = True
    http_config_json: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def http_config(self) -> WebhookHttpConfig:
        if not self.http_config_json:
            return WebhookHttpConfig()
        return msgspec.json.decode(self.http_config_json, type=WebhookHttpConfig)


class _Row(msgspec.Struct):
    webhook: _Stored


class _PageRow(msgspec.Struct):
    total: int
    items: list[_Stored]


class _DeliveryRow(msgspec.Struct):
    delivery: Delivery


class _Pending(msgspec.Struct, kw_only=True):
    id: str
    bank_id: str
    event_type: str
    payload: str
    attempts: int = 0


class _UnfinishedRow(msgspec.Struct):
    delivery: _Pending
    webhook: _Stored


def _view(stored: _Stored, *, show_secret: bool = False) -> Webhook:
    return Webhook(
        id=stored.id,
        bank_id=stored.bank_id,
        url=stored.url,
        event_types=stored.event_types or list(EVENT_TYPES),
        enabled=stored.enabled,
        http_config=stored.http_config,
        secret=stored.secret if show_secret else None,
        created_at=stored.created_at,
        updated_at=stored.updated_at,
    )


class WebhookService:
    """A bank's subscriptions and their delivery records."""

    def __init__(self, graph: Graph, banks: BankDirectory) -> None:
        self._graph = graph
        self._banks = banks

    async def create(self, bank_id: str, data: WebhookCreate) -> Webhook:
        """Subscribe; the answer shows the secret (made here when none was sent)."""
        await self._banks.require(bank_id)
        props = {
            "url": _deliverable(data.url),
            "secret": data.secret or secrets.token_urlsafe(32),
            "event_types": list(dict.fromkeys(data.event_types or ())),
            "enabled": data.enabled,
            "http_config_json": msgspec.json.encode(data.http_config).decode()
            if data.http_config
            else None,
        }
        row = await self._graph.row(
            "webhooks/create", {"bank_id": bank_id, "id": str(uuid.uuid4()), "props": props}, _Row
        )
        if row is None:
            raise NotFound(f"bank {bank_id!r} not found")
        return _view(row.webhook, show_secret=True)

    async def page(self, bank_id: str, *, limit: int, offset: int) -> WebhookPage:
        """A bank's subscriptions (secrets not shown)."""
        await self._banks.require(bank_id)
        row = await self._graph.row(
            "webhooks/list", {"bank_id": bank_id, "limit": limit, "offset": offset}, _PageRow
        )
        total, items = (row.total, row.items) if row else (0, [])
        return WebhookPage(items=[_view(w) for w in items], total=total, limit=limit, offset=offset)

    async def get(self, bank_id: str, webhook_id: str) -> Webhook:
        """One subscription; NotFound when it is not in this bank."""
        return _view(await self._stored(bank_id, webhook_id))

    async def update(self, bank_id: str, webhook_id: str, data: WebhookUpdate) -> Webhook:
        """Change the fields sent; a new secret is shown in this answer."""
        await self._stored(bank_id, webhook_id)
        props: dict[str, Any] = {}
        if data.url is not UNSET:
            props["url"] = _deliverable(data.url)
        if data.secret is not UNSET:
            props["secret"] = data.secret
        if data.event_types is not UNSET:
            props["event_types"] = list(dict.fromkeys(data.event_types))
        if data.enabled is not UNSET:
            props["enabled"] = data.enabled
        if data.http_config is not UNSET:
            props["http_config_json"] = msgspec.json.encode(data.http_config).decode()
        row = await self._graph.row(
            "webhooks/update", {"bank_id": bank_id, "id": webhook_id, "props": props}, _Row
        )
        if row is None:
            raise NotFound(f"webhook {webhook_id!r} not found in bank {bank_id!r}")
        return _view(row.webhook, show_secret=data.secret is not UNSET)

    async def delete(self, bank_id: str, webhook_id: str) -> WebhookDeleted:
        """Remove the subscription and its delivery records."""
        await self._stored(bank_id, webhook_id)
        rows = await self._graph.run("webhooks/delete", {"bank_id": bank_id, "id": webhook_id})
        deleted = int(rows[0]["deleted"]) if rows else 0
        return WebhookDeleted(
            message=f"webhook {webhook_id!r} deleted with {deleted - 1} delivery records",
            deleted_count=deleted,
        )

    async def deliveries(
        self, bank_id: str, webhook_id: str, *, limit: int, cursor: str | None
    ) -> DeliveryPage:
        """The subscription's deliveries, newest first; ``cursor`` comes from the last page."""
        await self._stored(bank_id, webhook_id)
        offset = _offset(cursor)
        rows = await self._graph.rows(
            "webhooks/deliveries",
            {"bank_id": bank_id, "webhook_id": webhook_id, "limit": limit, "offset": offset},
            _DeliveryRow,
        )
        more = len(rows) > limit
        return DeliveryPage(
            items=[r.delivery for r in rows[:limit]],
            next_cursor=str(offset + limit) if more else None,
        )

    async def _stored(self, bank_id: str, webhook_id: str) -> _Stored:
        await self._banks.require(bank_id)
        row = await self._graph.row("webhooks/get", {"bank_id": bank_id, "id": webhook_id}, _Row)
        if row is None:
            raise NotFound(f"webhook {webhook_id!r} not found in bank {bank_id!r}")
        return row.webhook


def _offset(cursor: str | None) -> int:
    if cursor is None or cursor == "":
        return 0
    offset = offset_of_cursor(cursor)
    if offset is None:
        raise InvalidInput("cursor must be a value of next_cursor", extra={"field": "cursor"})
    return offset


class RetryPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """How often and how patiently a delivery is retried."""

    max_attempts: int = 5
    base_s: float = 2.0
    cap_s: float = 300.0


class Dispatcher:
    """Delivers bank events to the subscriptions that want them (the runtime's event sink)."""

    def __init__(
        self,
        graph: Graph,
        sender: WebhookSender,
        policy: RetryPolicy,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._graph = graph
        self._sender = sender
        self._policy = policy
        self._clock = clock
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()

    def emit(self, bank_id: str, event_type: EventType, data: dict[str, Any]) -> None:
        """Queue the event and return at once."""
        event = Event(
            id=str(uuid.uuid4()),
            type=event_type,
            bank_id=bank_id,
            created_at=self._clock(),
            data=data,
        )
        self._queue.put_nowait(event)

    async def start(self, *, resume: bool = True) -> None:
        """Resume pending deliveries (unless ``resume`` is false) and start taking events.

        A process beside the service (``mnemo worker``) delivers only its own events: resuming
        too would send the service's pending deliveries twice.
        """
        if resume:
            for row in await self._graph.rows("webhooks/unfinished", {}, _UnfinishedRow):
                self._spawn(row.webhook, row.delivery)
        self._worker = asyncio.create_task(self._work(), name="mnemo-webhooks")

    async def stop(self) -> None:
        """Stop; deliveries in progress stay pending and resume at the next start."""
        await stop_tasks(t for t in (self._worker, *self._sending) if t is not None)
        self._worker = None

    async def wait_idle(self) -> None:
        """Wait until every queued event is recorded and every delivery settled (tests)."""
        await self._queue.join()
        while self._sending:
            await asyncio.gather(*list(self._sending), return_exceptions=True)

    async def _work(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                await self._record(event)
            except asyncio.CancelledError:
                raise
            except Exception:  # one bad event must not stop the deliveries of the others
                log.exception("webhook event %s of bank %s not recorded", event.type, event.bank_id)
            finally:
                self._queue.task_done()

    async def _record(self, event: Event) -> None:
        rows = await self._graph.rows(
            "webhooks/subscribed", {"bank_id": event.bank_id, "event_type": event.type}, _Row
        )
        if not rows:
            return
        payload = msgspec.json.encode(event).decode()
        pending = [
            (
                row.webhook,
                _Pending(
                    id=str(uuid.uuid4()),
                    bank_id=event.bank_id,
                    event_type=event.type,
                    payload=payload,
                ),
            )
            for row in rows
        ]
        await self._graph.run(
            "webhooks/record_deliveries",
            {
                "bank_id": event.bank_id,
                "deliveries": [
                    {
                        "id": p.id,
                        "event_id": event.id,
                        "webhook_id": w.id,
                        "url": w.url,
                        "event_type": event.type,
                        "payload": payload,
                    }
                    for w, p in pending
                ],
            },
        )
        for webhook, delivery in pending:
            self._spawn(webhook, delivery)

    def _spawn(self, webhook: _Stored, delivery: _Pending) -> None:
        task = asyncio.create_task(self._deliver(webhook, delivery))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _deliver(self, webhook: _Stored, delivery: _Pending) -> None:
        """Attempt until answered 2xx or out of attempts, recording each attempt."""
        body = delivery.payload.encode()
        config = webhook.http_config
        headers = {
            **(config.headers or {}),
            "Content-Type": "application/json",
            "User-Agent": "mnemo-webhooks",
            SIGNATURE_HEADER: sign(webhook.secret, body),
            EVENT_HEADER: delivery.event_type,
            DELIVERY_HEADER: delivery.id,
        }
        attempt = delivery.attempts
        while attempt < self._policy.max_attempts:
            attempt += 1
            answer, error = await self._attempt(webhook, config, body, headers)
            delivered = answer is not None and is_success(answer.status)
            wait = backoff(attempt, base_s=self._policy.base_s, cap_s=self._policy.cap_s)
            retry = not delivered and attempt < self._policy.max_attempts
            status = "delivered" if delivered else ("pending" if retry else "failed")
            next_at = (self._clock() + timedelta(seconds=wait)).isoformat() if retry else None
            await self._graph.run(
                "webhooks/attempted",
                {
                    "bank_id": delivery.bank_id,
                    "id": delivery.id,
                    "status": status,
                    "attempts": attempt,
                    "error": error,
                    "response_status": answer.status if answer else None,
                    "response_body": answer.body if answer else None,
                    "next_retry_at": next_at,
                },
            )
            if not retry:
                return
            await asyncio.sleep(wait)

    async def _attempt(
        self, webhook: _Stored, config: WebhookHttpConfig, body: bytes, headers: dict[str, str]
    ) -> tuple[HttpAnswer | None, str | None]:
        try:
            answer = await self._sender.send(
                config.method,
                webhook.url,
                body=body,
                headers=headers,
                params=config.params,
                timeout_s=config.timeout_seconds,
            )
        except httpx.TimeoutException:
            return None, f"no answer within {config.timeout_seconds} s"
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return None, f"{type(exc).__name__}: {exc}"[:500]
        if is_success(answer.status):
            return answer, None
        return answer, f"answered {answer.status}"


def _deliverable(url: str) -> str:
    """``url`` when a delivery can be sent to it; else a 400 (the pattern admits bad hosts)."""
    try:
        httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise InvalidInput(f"url cannot be delivered to: {exc}", extra={"field": "url"}) from exc
    return url
