"""Who uses the console: an API key asked once, kept in a session cookie, checked per page.

When the service requires keys (``MNEMO_AUTH``), the console's routes are open to the API's
middleware (a browser sends no ``Authorization`` header) and this guard does the work instead:
the key comes from an HttpOnly, SameSite=Strict session cookie scoped to ``/console``, is
verified by the same key service (its 5 s cache included), and must reach the bank in the path:
read for GET, write for anything else; creating a bank needs an admin key, as in the API.
Cross-site form posts are refused by the API's origin check, which still runs for these routes.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler

from app.access.principal import Principal, Requirement, denial
from app.console.common import PRINCIPAL, runtime

COOKIE = "mnemo_console"
# A handler with this opt needs no key (the login page, the stylesheet and script).
PUBLIC = "console_public"


async def principal_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal | None:
    """The key holder of this browser session; None when the service needs no key."""
    rt = connection.app.state.runtime
    if not rt.settings.auth_required:
        return None
    key = connection.cookies.get(COOKIE)
    found: Principal | None = await rt.keys.verify(key) if key else None
    if found is None:
        raise NotAuthorizedException("sign in with an API key to use the console")
    return found


async def guard(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Every console route but the public ones: a valid key that reaches the bank in the path."""
    if handler.opt.get(PUBLIC):
        return
    principal = await principal_of(connection)
    connection.state[PRINCIPAL] = principal
    if principal is None:
        return
    method = connection.scope.get("method", "GET")
    bank = connection.path_params.get("bank_id")
    if isinstance(bank, str):
        need = Requirement("bank_read" if method in ("GET", "HEAD") else "bank_write", bank)
    elif method in ("GET", "HEAD"):
        need = Requirement("any_key")
    else:
        need = Requirement("admin")
    reason = denial(principal, need)
    if reason is not None:
        raise PermissionDeniedException(reason)


def current(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal | None:
    """The key holder the guard found (None: no key needed, or a public page)."""
    found: Principal | None = connection.state.get(PRINCIPAL)
    return found


def auth_on(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """Whether the service asks for keys."""
    return runtime(connection).settings.auth_required
