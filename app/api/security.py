"""Who may call the API, and from where: one ASGI middleware in front of every route.

Per request, in this order:

1. **Host**: the ``Host`` header must name an allowed host (loopback names by default,
   ``MNEMO_ALLOWED_HOSTS``), so that a page whose domain was re-pointed at 127.0.0.1 (DNS
   rebinding) is refused.
2. **Origin**: a request that changes something and carries an ``Origin`` header must come
   from the API's own origin or one listed in ``MNEMO_CORS_ORIGINS``: a web page cannot post
   to the service from a user's browser.
3. **API key** (when ``MNEMO_AUTH`` is ``required``): ``Authorization: Bearer <key>``; 401
   without a valid key, 403 when the route is outside the key's scope.
4. **Content type**: a route that reads a JSON body takes ``application/json`` only (415):
   a browser cannot send that cross-site without a CORS preflight, which is refused.

What a route needs is derived from the route itself, so routes added later are covered: a
route with a ``bank_id`` path parameter needs read access to that bank for GET and HEAD and
write access otherwise; every other route needs an admin key. A handler or controller
overrides this with ``opt={"access": ...}``: ``"open"`` (no key: health, the OpenAPI
document), ``"read"`` (a POST that only reads, like recall), ``"write"``, ``"admin"``, or
``"any_key"`` (any valid key; the handler checks banks itself with :func:`require_bank`).
The key's holder is on ``request.user`` (a :class:`Principal`, None when auth is off).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.connection import ASGIConnection
from litestar.exceptions import (
    ClientException,
    HTTPException,
    NotAuthorizedException,
    PermissionDeniedException,
)
from litestar.status_codes import HTTP_415_UNSUPPORTED_MEDIA_TYPE
from litestar.types import ASGIApp, Receive, Scope, Send

from app.access.principal import AccessKind, Principal, Requirement, denial
from app.config import Settings

READ_METHODS = frozenset({"GET", "HEAD"})
# OPTIONS answers only which methods a path has (and CORS preflights): never a key.
OPEN_METHODS = frozenset({"OPTIONS"})
SAFE_METHODS = READ_METHODS | OPEN_METHODS | {"TRACE"}
ACCESS_OPT = "access"
_OPT_KINDS: dict[str, AccessKind] = {
    "open": "open",
    "any_key": "any_key",
    "admin": "admin",
    "read": "bank_read",
    "write": "bank_write",
}
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="mnemo"'}


class HttpPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """What the middleware enforces, from the settings."""

    auth_required: bool
    allowed_hosts: frozenset[str]
    cors_origins: tuple[str, ...] = ()
    # Paths served without a key (the OpenAPI document and its viewers).
    open_prefixes: tuple[str, ...] = ("/schema",)

    @classmethod
    def from_settings(cls, settings: Settings) -> HttpPolicy:
        """The policy ``settings`` describe."""
        return cls(
            auth_required=settings.auth_required,
            allowed_hosts=settings.allowed_host_names,
            cors_origins=settings.cors_origin_list,
        )


def host_name(host: str) -> str:
    """``[::1]:8888`` → ``::1``; ``Example.com:80`` → ``example.com``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def host_allowed(host: str, allowed: frozenset[str]) -> bool:
    """True when ``host`` (a Host header) is allowed: exact names, ``*.suffix`` or ``*``."""
    name = host_name(host)
    if not name:
        return False
    if "*" in allowed or name in allowed:
        return True
    return any(a.startswith("*.") and name.endswith(a[1:]) for a in allowed)


def requirement(
    opt: dict[str, Any], method: str, path: str, path_params: dict[str, Any], policy: HttpPolicy
) -> Requirement:
    """What a request to this route needs (see the module docstring)."""
    declared = opt.get(ACCESS_OPT)
    if method in OPEN_METHODS or declared == "open" or path.startswith(policy.open_prefixes):
        return Requirement("open")
    kind = _OPT_KINDS.get(declared) if isinstance(declared, str) else None
    if kind in ("admin", "any_key"):
        return Requirement(kind)
    bank = path_params.get("bank_id")
    if isinstance(bank, str):
        if kind is None:
            kind = "bank_read" if method in READ_METHODS else "bank_write"
        return Requirement(kind, bank)
    return Requirement("admin")


def bearer_key(authorization: str | None) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header (None: absent, or another scheme)."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def same_origin(origin: str, host: str, scheme: str) -> bool:
    """True when ``origin`` is the API's own (scheme and host as the request reached it)."""
    return origin == f"{scheme}://{host.strip().lower()}"


def require_bank(principal: Principal | None, bank_id: str, *, write: bool) -> None:
    """403 unless the key reaches ``bank_id`` (a no-op when auth is off).

    For routes with ``access: any_key`` that learn the bank from their body (MCP tools).
    """
    if principal is None:
        return
    reason = denial(principal, Requirement("bank_write" if write else "bank_read", bank_id))
    if reason is not None:
        raise PermissionDeniedException(reason)


def require_admin(principal: Principal | None, what: str) -> None:
    """403 unless the key is an admin key (a no-op when auth is off): ``what`` needs one."""
    if principal is None:
        return
    reason = denial(principal, Requirement("admin"))
    if reason is not None:
        raise PermissionDeniedException(f"{reason} ({what})")


class SecurityMiddleware:
    """Host, origin, API key and content-type checks (see the module docstring)."""

    def __init__(self, app: ASGIApp, policy: HttpPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request, then hand it on."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        connection: ASGIConnection[Any, Any, Any, Any] = ASGIConnection(scope)
        headers = connection.headers
        method = str(scope.get("method", "GET"))
        host = headers.get("host", "")
        if not host_allowed(host, self.policy.allowed_hosts):
            raise ClientException(
                f"Host {host_name(host)!r} is not served here (DNS rebinding protection); "
                "add it to MNEMO_ALLOWED_HOSTS",
                extra={"header": "host"},
            )
        self._check_origin(headers.get("origin"), host, scope.get("scheme", "http"), method)
        handler = scope.get("route_handler")
        opt: dict[str, Any] = getattr(handler, "opt", None) or {}
        need = requirement(opt, method, scope["path"], scope.get("path_params", {}), self.policy)
        scope["user"] = await self._principal(scope, headers.get("authorization"), need)
        if (
            method not in SAFE_METHODS
            and handler is not None
            and _reads_body(handler)
            and _has_body(headers)
        ):
            _check_json(headers.get("content-type"))
        await self.app(scope, receive, send)

    def _check_origin(self, origin: str | None, host: str, scheme: str, method: str) -> None:
        if origin is None or method in SAFE_METHODS:
            return
        origin = origin.rstrip("/").lower()
        if same_origin(origin, host, scheme) or origin in self.policy.cors_origins:
            return
        raise PermissionDeniedException(
            f"cross-origin request from {origin!r} refused; a browser origin that may call the "
            "API goes in MNEMO_CORS_ORIGINS",
            extra={"header": "origin"},
        )

    async def _principal(
        self, scope: Scope, authorization: str | None, need: Requirement
    ) -> Principal | None:
        if not self.policy.auth_required or need.kind == "open":
            return None
        key = bearer_key(authorization)
        if key is None:
            raise NotAuthorizedException(
                "an API key is required: send Authorization: Bearer <key> "
                "(keys are made with `mnemo keys create`)",
                headers=CHALLENGE,
            )
        principal: Principal | None = await scope["app"].state.runtime.keys.verify(key)
        if principal is None:
            raise NotAuthorizedException(
                "the API key is not valid (unknown, revoked or mistyped)", headers=CHALLENGE
            )
        reason = denial(principal, need)
        if reason is not None:
            raise PermissionDeniedException(reason)
        return principal


def _reads_body(handler: Any) -> bool:
    signature = getattr(handler, "parsed_fn_signature", None)
    return signature is not None and "data" in signature.parameters


def _has_body(headers: Any) -> bool:
    # A request without a body carries nothing to smuggle: an endpoint whose body is optional
    # (a refresh, a consolidation run) is called without one, and a required body that is
    # missing is the handler's 400.
    length = headers.get("content-length")
    return (length is not None and length.strip() != "0") or "transfer-encoding" in headers


def _check_json(content_type: str | None) -> None:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise HTTPException(
            status_code=HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            detail=f"this endpoint takes application/json, not {media or 'a body without type'}",
            extra={"header": "content-type"},
        )
