"""Pure request checks: size limits and empty content, with messages that name the item."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from app.errors import InvalidInput, PayloadTooLarge
from app.retain.schemas import RetainItem


class RetainLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Configured limits (MNEMO_MAX_ITEM_CHARS, MNEMO_MAX_ITEMS_PER_REQUEST)."""

    max_item_chars: int
    max_items_per_request: int


def check_text(text: str, limits: RetainLimits, field: str) -> None:
    """The limit on retained items applies to any text a fact gets (a memory edit too)."""
    if len(text) > limits.max_item_chars:
        raise PayloadTooLarge(
            f"{field} has {len(text)} characters; the limit is {limits.max_item_chars} "
            "(MNEMO_MAX_ITEM_CHARS)",
            extra={"field": field, "limit": limits.max_item_chars},
        )


def check_items(items: Sequence[RetainItem], limits: RetainLimits) -> None:
    """Refuse the whole request before anything is written."""
    if not items:
        raise InvalidInput("items must contain at least one item", extra={"field": "items"})
    if len(items) > limits.max_items_per_request:
        raise PayloadTooLarge(
            f"{len(items)} items in one request; the limit is {limits.max_items_per_request} "
            "(MNEMO_MAX_ITEMS_PER_REQUEST): split the request or use a bigger limit",
            extra={"field": "items", "limit": limits.max_items_per_request},
        )
    for i, item in enumerate(items):
        if not item.content.strip():
            raise InvalidInput(
                f"items[{i}].content is empty", extra={"field": f"items[{i}].content"}
            )
        if len(item.content) > limits.max_item_chars:
            raise PayloadTooLarge(
                f"items[{i}].content has {len(item.content)} characters; the limit is "
                f"{limits.max_item_chars} (MNEMO_MAX_ITEM_CHARS)",
                extra={"field": f"items[{i}].content", "limit": limits.max_item_chars},
            )
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        if item.document_id is None:
            continue
        if item.document_id in seen:
            raise InvalidInput(
                f"items[{i}] and items[{seen[item.document_id]}] name the same document_id "
                f"{item.document_id!r}; send one version of a document per request",
                extra={"field": f"items[{i}].document_id"},
            )
        seen[item.document_id] = i
