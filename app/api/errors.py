"""One JSON shape for every error: ``{"status_code", "detail", "extra"?}``.

Domain errors (app.errors) are mapped here and nowhere else; anything unexpected becomes a 500
with no stack trace (it is logged server-side).
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException
from litestar.status_codes import HTTP_400_BAD_REQUEST, HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import ExceptionHandlersMap

from app.errors import Blocked, MnemoError

log = logging.getLogger(__name__)


def _body(status_code: int, detail: str, extra: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"status_code": status_code, "detail": detail}
    if extra:
        body["extra"] = extra
    return body


def domain_error(_: Request[Any, Any, Any], exc: MnemoError) -> Response[dict[str, Any]]:
    """Map a domain error to its HTTP status."""
    body = _body(exc.status_code, exc.detail, exc.extra)
    if isinstance(exc, Blocked) and exc.extra:
        # Clients look for the list where the API promises it: at the top.
        body["violations"] = exc.extra.get("violations", [])
    return Response(body, status_code=exc.status_code)


def http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[dict[str, Any]]:
    """Litestar's own errors (validation, 404 routes, 405, 413) in the same shape."""
    if exc.status_code >= 500 and isinstance(exc.__cause__, msgspec.ValidationError):
        # Litestar reads a bad body field named like a dependency ("banks", "entities") as a
        # fault of the dependency: it is the client's, and msgspec says where.
        return Response(
            _body(
                HTTP_400_BAD_REQUEST, f"Validation failed: {exc.__cause__}".replace("$.data", "$")
            ),
            status_code=HTTP_400_BAD_REQUEST,
        )
    return Response(
        _body(exc.status_code, exc.detail, exc.extra),
        status_code=exc.status_code,
        headers=exc.headers,
    )


def nested_too_deeply(
    request: Request[Any, Any, Any], exc: RecursionError
) -> Response[dict[str, Any]]:
    """A JSON body nested deeper than the decoder goes (hundreds of levels) is bad input."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return unexpected_error(request, exc)
    return Response(
        _body(HTTP_400_BAD_REQUEST, "the request body is nested too deeply"),
        status_code=HTTP_400_BAD_REQUEST,
    )


def unexpected_error(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    """Log the stack trace, answer a plain 500."""
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return Response(
        _body(HTTP_500_INTERNAL_SERVER_ERROR, "internal server error"),
        status_code=HTTP_500_INTERNAL_SERVER_ERROR,
    )


EXCEPTION_HANDLERS: ExceptionHandlersMap = {
    MnemoError: domain_error,
    HTTPException: http_error,
    RecursionError: nested_too_deeply,
    Exception: unexpected_error,
}
