"""Webhooks: ``/v1/default/banks/{bank_id}/webhooks`` and their ``.../deliveries``."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, delete, get, patch, post
from litestar.params import JSONBody, QueryParameter
from litestar.status_codes import HTTP_200_OK, HTTP_201_CREATED

from app.api.deps import BankId, ItemId, Limit, Offset, Webhooks
from app.webhooks.schemas import (
    DeliveryPage,
    Webhook,
    WebhookCreate,
    WebhookDeleted,
    WebhookPage,
    WebhookUpdate,
)

Cursor = Annotated[
    str | None, QueryParameter(max_length=20, description="next_cursor of the previous page")
]


class WebhookController(Controller):
    """Subscribe to a bank's events; see each delivery and its attempts."""

    path = "/v1/default/banks/{bank_id:str}/webhooks"
    tags = ["webhooks"]

    @post("/", operation_id="create_webhook", summary="Subscribe a URL to the bank's events")
    async def create_webhook(
        self, bank_id: BankId, webhooks: Webhooks, data: JSONBody[WebhookCreate]
    ) -> Response[Webhook]:
        """201 with the subscription and its signing secret (shown only here)."""
        return Response(await webhooks.create(bank_id, data), status_code=HTTP_201_CREATED)

    @get("/", operation_id="list_webhooks", summary="The bank's subscriptions")
    async def list_webhooks(
        self, bank_id: BankId, webhooks: Webhooks, limit: Limit = 100, offset: Offset = 0
    ) -> WebhookPage:
        """Oldest first; secrets are not shown; 404 when the bank does not exist."""
        return await webhooks.page(bank_id, limit=limit, offset=offset)

    @get("/{webhook_id:str}", operation_id="get_webhook", summary="One subscription")
    async def get_webhook(self, bank_id: BankId, webhook_id: ItemId, webhooks: Webhooks) -> Webhook:
        """404 when it is not in this bank."""
        return await webhooks.get(bank_id, webhook_id)

    @patch("/{webhook_id:str}", operation_id="update_webhook", summary="Change a subscription")
    async def update_webhook(
        self,
        bank_id: BankId,
        webhook_id: ItemId,
        webhooks: Webhooks,
        data: JSONBody[WebhookUpdate],
    ) -> Webhook:
        """Fields not sent stay as they are; a new secret is shown in this answer."""
        return await webhooks.update(bank_id, webhook_id, data)

    @delete(
        "/{webhook_id:str}",
        status_code=HTTP_200_OK,
        operation_id="delete_webhook",
        summary="Remove a subscription and its delivery records",
    )
    async def delete_webhook(
        self, bank_id: BankId, webhook_id: ItemId, webhooks: Webhooks
    ) -> WebhookDeleted:
        """404 when it is not in this bank."""
        return await webhooks.delete(bank_id, webhook_id)

    @get(
        "/{webhook_id:str}/deliveries",
        operation_id="list_webhook_deliveries",
        summary="A subscription's deliveries, newest first, with their last attempt",
    )
    async def list_deliveries(
        self,
        bank_id: BankId,
        webhook_id: ItemId,
        webhooks: Webhooks,
        limit: Limit = 100,
        cursor: Cursor = None,
    ) -> DeliveryPage:
        """``next_cursor`` pages on; 404 when the subscription is not in this bank."""
        return await webhooks.deliveries(bank_id, webhook_id, limit=limit, cursor=cursor)
