"""The OpenAPI document says what the API answers, and OPTIONS says which methods a path has.

Two passes, one document. Before the schema is built, ``document_errors`` gives each handler
the error answers it really gives, by rule: every bank-scoped path can answer 404 for an
unknown bank; every request with a body or parameters 400 for bad input (naming the field);
some operations add their own (413 on retain, 409 on repairs and decisions, 503 on recall and
readiness, 501 for what is not available yet). At start-up, ``complete_document`` adds what
every route answers alike, once, so the document cannot drift from the routes: 401/403 when
keys are required, 404, 409, 413/415/422 for routes that take a body, 503 when a dependency is
down, all with the one error shape (``ErrorBody``). Request Structs that refuse unknown fields
say so (``additionalProperties: false``), the metrics are Prometheus text, and the bearer
scheme is declared when keys are required.

Litestar's automatic OPTIONS answer can name only the methods of the first handler of a path
(its ``Allow`` is computed from the route as it was when that handler was added), so OPTIONS
is answered here from the finished route table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec
from litestar import Litestar
from litestar.enums import ScopeType
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import (
    Components,
    OpenAPI,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Reference,
    Schema,
    SecurityScheme,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.response.base import ASGIResponse
from litestar.types import ASGIApp, Receive, Scope, Send


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
    "reflect": {503: "no retrieval channel answered"},
    "create_mental_model": {409: "a mental model with this id exists in the bank"},
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


# The one error shape of the document (``ErrorBody`` above, with memory defense's violations).
ERROR = "ErrorBody"
# "{bank_id:str}" in a route's path is "{bank_id}" in the template a request matched.
_PARAM_TYPE = re.compile(r":[a-z]+}")
OPEN_PREFIXES = ("/health", "/schema")
_DESCRIPTIONS = {
    "401": "No API key, or not a valid one (when the service requires keys)",
    "403": "The key does not reach this bank or route; or a cross-origin request",
    "404": "The bank, or the item in it, does not exist",
    "409": "The request conflicts with the current state",
    "413": "The body, or an item in it, is over a configured size limit",
    "415": "The body is not application/json",
    "422": "Memory defense blocked the content (see violations)",
    "503": "A dependency (Neo4j, the vector store, the embedder) is not usable now",
}
_METHODS = ("get", "put", "post", "delete", "patch")


def _error_schema() -> Schema:
    return Schema(
        type=OpenAPIType.OBJECT,
        required=["status_code", "detail"],
        properties={
            "status_code": Schema(type=OpenAPIType.INTEGER),
            "detail": Schema(type=OpenAPIType.STRING),
            "extra": Schema(),
            "violations": Schema(type=OpenAPIType.ARRAY, items=Schema(type=OpenAPIType.OBJECT)),
        },
        description="Every error answer: its status, what is wrong, and details",
    )


def _error_response(code: str) -> OpenAPIResponse:
    return OpenAPIResponse(
        description=_DESCRIPTIONS.get(code, "Error"),
        content={
            "application/json": OpenAPIMediaType(schema=Reference(f"#/components/schemas/{ERROR}"))
        },
    )


def _codes(path: str, method: str, operation: Operation, auth_required: bool) -> list[str]:
    if path.startswith(OPEN_PREFIXES) or path == "/metrics":
        return ["503"] if path == "/health/ready" else []
    codes = ["404", "503"]
    if auth_required:
        codes += ["401", "403"]
    if method != "get":
        codes += ["403", "409"]
    if operation.request_body is not None:
        codes += ["413", "415", "422"]
    return codes


def complete_document(document: OpenAPI, *, auth_required: bool) -> None:
    """Add what every route answers alike (see the module docstring), in place."""
    components = document.components
    if not isinstance(components, Components):
        components = document.components = Components()
    components.schemas = dict(components.schemas or {})
    components.schemas[ERROR] = _error_schema()
    if auth_required:
        components.security_schemes = {
            "bearer": SecurityScheme(type="http", scheme="bearer", description="an API key")
        }
    for path, item in (document.paths or {}).items():
        for method in _METHODS:
            operation = getattr(item, method, None)
            if not isinstance(operation, Operation):
                continue
            responses = operation.responses = dict(operation.responses or {})
            for code in _codes(path, method, operation, auth_required):
                responses.setdefault(code, _error_response(code))
            if "400" in responses:
                responses["400"] = _error_response("400")
                responses["400"].description = "The request is malformed or names bad values"
            if auth_required and not path.startswith(OPEN_PREFIXES):
                operation.security = [{"bearer": []}]
    metrics = (document.paths or {}).get("/metrics")
    if metrics is not None and isinstance(metrics.get, Operation):
        metrics.get.responses = {
            "200": OpenAPIResponse(
                description="Prometheus text exposition format",
                content={"text/plain": OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))},
            ),
            **({"401": _error_response("401"), "403": _error_response("403")}
               if auth_required else {}),
        }  # fmt: skip
    _close_request_structs(components.schemas)


def _close_request_structs(schemas: Mapping[str, Schema | Reference]) -> None:
    """Structs that refuse unknown fields say so: ``additionalProperties: false``."""
    closed = {
        cls.__name__
        for cls in _subclasses(msgspec.Struct)
        if getattr(getattr(cls, "__struct_config__", None), "forbid_unknown_fields", False)
    }
    for name, schema in schemas.items():
        if isinstance(schema, Schema) and name.rsplit("_", 1)[-1] in closed:
            schema.additional_properties = False


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    todo: list[type] = [cls]
    while todo:
        sub: type
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def on_startup(auth_required: bool) -> Any:
    """A start-up hook that completes the app's document before anyone reads it."""

    def complete(app: Litestar) -> None:
        complete_document(app.openapi_schema, auth_required=auth_required)

    return complete


class OptionsMiddleware:
    """``OPTIONS``: 204 with ``Allow`` naming every method of the path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._allow: dict[str, str] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer OPTIONS from the route table; hand everything else on."""
        if scope["type"] != ScopeType.HTTP or scope.get("method") != "OPTIONS":
            await self.app(scope, receive, send)
            return
        if self._allow is None:
            self._allow = {
                _PARAM_TYPE.sub("}", str(route.path)): ", ".join(
                    sorted(getattr(route, "methods", ()))
                )
                for route in scope["app"].routes
            }
        template = str(scope.get("path_template", ""))
        allow = self._allow.get(template) or self._allow.get(scope["path"])
        if allow is None:
            await self.app(scope, receive, send)
            return
        response = ASGIResponse(status_code=204, headers={"Allow": allow})
        await response(scope, receive, send)
