"""Pure rules of delivery: the signature, the retry schedule, the event data of a retain."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from app.retain.schemas import RetainResponse

SIGNATURE_HEADER = "X-Mnemo-Signature"
EVENT_HEADER = "X-Mnemo-Event"
DELIVERY_HEADER = "X-Mnemo-Delivery"


def sign(secret: str, body: bytes) -> str:
    """``sha256=`` and the hex HMAC-SHA256 of ``body`` keyed by ``secret``.

    A receiver recomputes it over the raw body it got and compares in constant time
    (``hmac.compare_digest``).
    """
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def backoff(attempt: int, *, base_s: float, cap_s: float) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based): doubling, capped."""
    return float(min(cap_s, base_s * 2 ** (attempt - 1)))


def is_success(status: int) -> bool:
    """A 2xx answer delivers; anything else (or no answer) is retried."""
    return 200 <= status < 300


def retain_completed(response: RetainResponse) -> dict[str, Any]:
    """``retain.completed`` data for a synchronous retain."""
    return {
        "operation_id": None,
        "async": False,
        "status": "completed",
        "items_count": response.items_count,
        "memory_unit_count": len(response.memory_ids),
        "memory_ids": response.memory_ids,
        "document_ids": [item.document_id for item in response.items],
    }
