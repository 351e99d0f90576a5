"""Webhooks and deliveries as the API shows them, and what a client may set (no I/O)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from app.domain.events import EventType

Url = Annotated[str, msgspec.Meta(min_length=8, max_length=2000, pattern=r"^https?://")]
Secret = Annotated[str, msgspec.Meta(min_length=8, max_length=512)]
HeaderName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9-]{1,100}$")]
DeliveryStatus = Literal["pending", "delivered", "failed"]


class WebhookHttpConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a delivery is sent: method, timeout per attempt, extra headers and query params."""

    method: Literal["POST", "PUT"] = "POST"
    timeout_seconds: Annotated[int, msgspec.Meta(ge=1, le=60)] = 10
    headers: dict[HeaderName, str] | None = None
    params: dict[str, str] | None = None


class WebhookCreate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A subscription: where to send which events of the bank.

    ``secret`` signs every delivery (HMAC-SHA256 of the body, header ``X-Mnemo-Signature``);
    when it is not sent, one is made and shown once, in the answer to this request.
    ``event_types`` absent: every event type.
    """

    url: Url
    secret: Secret | None = None
    event_types: list[EventType] | None = None
    enabled: bool = True
    http_config: WebhookHttpConfig | None = None


class WebhookUpdate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Fields to change on a subscription; those not sent stay as they are."""

    url: Url | UnsetType = UNSET
    secret: Secret | UnsetType = UNSET
    event_types: list[EventType] | UnsetType = UNSET
    enabled: bool | UnsetType = UNSET
    http_config: WebhookHttpConfig | UnsetType = UNSET


class Webhook(msgspec.Struct, frozen=True, kw_only=True):
    """A subscription. ``secret`` is shown only in the answer that created or set it."""

    id: str
    bank_id: str
    url: str
    event_types: list[str]
    enabled: bool
    http_config: WebhookHttpConfig = msgspec.field(default_factory=WebhookHttpConfig)
    secret: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


class WebhookPage(msgspec.Struct, frozen=True):
    """One page of a bank's subscriptions, oldest first."""

    items: list[Webhook]
    total: int
    limit: int
    offset: int


class WebhookDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """What deleting a subscription removed (it and its delivery records)."""

    success: bool = True
    message: str = ""
    deleted_count: int = 0


class Delivery(msgspec.Struct, frozen=True, kw_only=True):
    """One event sent (or being sent) to one subscription, with its last attempt."""

    id: str
    event_id: str
    webhook_id: str
    url: str
    event_type: str
    status: DeliveryStatus
    attempts: int = 0
    next_retry_at: datetime | None = None
    last_error: str | None = None
    last_response_status: int | None = None
    last_response_body: str | None = None
    last_attempt_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


class DeliveryPage(msgspec.Struct, frozen=True, kw_only=True):
    """Deliveries of a subscription, newest first; ``next_cursor`` fetches the next page."""

    items: list[Delivery]
    next_cursor: str | None = None
