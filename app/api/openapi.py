"""The error answers each operation really gives, written into the OpenAPI document.

Success codes come from each handler (200, 201 for a new webhook or split entity). The error
codes are declared here once, by rule: every bank-scoped path can answer 404 for an unknown
bank; every request with a body or parameters 400 for bad input (naming the field); some
operations add their own (413 on retain, 409 on repairs and decisions, 503 on recall and
readiness, 501 for what is not available yet).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec


class ErrorBody(msgspec.Struct, frozen=True, kw_only=True):
    """Every error: its status, what went wrong, and (often) the field or value at fault."""

    status_code: int
    detail: str
    extra: dict[str, Any] | None = None


# Operation id → error statuses beyond 400/404, with what each means there.
_EXTRA: dict[str, dict[int, str]] = {
    "retain_memories": {
        413: "an item or the request is over MNEMO_MAX_ITEM_CHARS / MNEMO_MAX_ITEMS_PER_REQUEST",
        502: "the LLM endpoint answered with something unusable",
        503: "a store or the LLM endpoint is unavailable",
    },
    "recall_memories": {503: "no retrieval channel answered"},
    "get_readiness": {503: "a dependency is down (named in the answer)"},
    "merge_entity": {409: "the entities cannot be merged (names a blocker)"},
    "split_entity": {409: "the split conflicts with the current state"},
    "revert_entity_merge": {409: "already reverted, or a later repair must be reverted first"},
    "decide_review": {409: "the review was already decided"},
    "update_memory": {409: "the memory changed while the edit was prepared"},
    "reflect": {501: "reflect is not available yet"},
    "clear_memory_observations": {501: "removing observations is not available yet"},
    "reprocess_document": {503: "a store or the LLM endpoint is unavailable"},
}
_NO_ERRORS = {"health", "get_liveness", "get_version"}
# These create the bank they name instead of answering 404 for it.
_CREATES_BANK = {"create_or_update_bank", "retain_memories"}


def _spec(description: str) -> ResponseSpec:
    return ResponseSpec(data_container=ErrorBody, description=description, generate_examples=False)


def document_errors(app: Litestar) -> None:
    """Add the error responses to every handler of ``app`` (before the schema is built)."""
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if not isinstance(handler, HTTPRouteHandler) or not handler.include_in_schema:
                continue
            operation = handler.operation_id if isinstance(handler.operation_id, str) else ""
            if operation in _NO_ERRORS or route.path.startswith("/metrics"):
                continue
            responses: dict[int, ResponseSpec] = {}
            if route.path.startswith("/v1/"):
                responses[400] = _spec("bad input; `extra` names the field")
            if "{bank_id" in route.path and operation not in _CREATES_BANK:
                responses[404] = _spec("the bank (or the item in it) does not exist")
            for status, description in _EXTRA.get(operation, {}).items():
                responses[status] = _spec(description)
            handler.responses = {**responses, **(handler.responses or {})}
