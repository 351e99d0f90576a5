"""What every console page shares: the runtime's services, paging, form parsing, rendering."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import urlencode

import msgspec
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.datastructures import FormMultiDict
from litestar.response import Redirect, Template
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.access.principal import Principal
from app.domain.paging import offset_of_cursor
from app.errors import InvalidInput
from app.runtime import Runtime

T = TypeVar("T")
# Where the console's guard leaves the key holder on the connection state.
PRINCIPAL = "console_principal"
AnyRequest = Request[Any, Any, Any]

# Rows per page of each listing; every listing the console shows is paged.
PAGE_SIZE = 25
# Notices a redirect after an action may show (the query names one, never free text).
NOTICES = {
    "created": "Bank created.",
    "edited": "Memory edited.",
    "invalidated": "Memory invalidated.",
    "restored": "Memory restored.",
    "deleted": "Document deleted with its facts.",
    "reprocessed": "Document reprocessed.",
    "merged": "Entities merged.",
    "split": "Facts split off into a new entity.",
    "reverted": "Change reverted.",
    "same": "Decided: the same entity (merged).",
    "different": "Decided: different entities (kept apart for good).",
    "unchanged": "Nothing to change.",
    "queued": "Queued: the page is (re)written in the background; reload to see it.",
}


def runtime(connection: ASGIConnection[Any, Any, Any, Any]) -> Runtime:
    """The services the lifespan opened."""
    rt: Runtime = connection.app.state.runtime
    return rt


class Paging(msgspec.Struct, frozen=True, kw_only=True):
    """Where a page sits in a listing, and the links to its neighbours."""

    offset: int
    limit: int
    total: int
    base: str
    params: dict[str, str]

    @property
    def first(self) -> int:
        """1-based position of the first row shown (0 when there is none)."""
        return self.offset + 1 if self.total else 0

    @property
    def last(self) -> int:
        """1-based position of the last row shown."""
        return min(self.offset + self.limit, self.total)

    def href(self, offset: int) -> str:
        """The same listing from ``offset``."""
        params = {k: v for k, v in self.params.items() if v and k != "offset"}
        if offset > 0:
            params["offset"] = str(offset)
        return f"{self.base}?{urlencode(params)}" if params else self.base

    @property
    def prev(self) -> str | None:
        """The previous page, if any."""
        return self.href(max(self.offset - self.limit, 0)) if self.offset > 0 else None

    @property
    def next(self) -> str | None:
        """The next page, if any."""
        return self.href(self.offset + self.limit) if self.last < self.total else None


class CursorPaging(msgspec.Struct, frozen=True, kw_only=True):
    """Where a page sits in a newest-first listing read by cursor, and the links around it.

    There is no "previous" link: the newest page is one click away, and an exact total is
    shown only when the index gives it without reading the rows (``total`` None: "more").
    """

    shown: int
    total: int | None
    next_cursor: str | None
    base: str
    params: dict[str, str]

    def _href(self, cursor: str | None) -> str:
        params = {
            k: v for k, v in self.params.items() if v and k not in ("offset", "cursor", "done")
        }
        if cursor:
            params["cursor"] = cursor
        return f"{self.base}?{urlencode(params)}" if params else self.base

    @property
    def at_start(self) -> bool:
        """Whether this is the newest page."""
        return not (self.params.get("cursor") or self.params.get("offset", "0") not in ("", "0"))

    @property
    def newest(self) -> str:
        """The newest page of the same listing."""
        return self._href(None)

    @property
    def next(self) -> str | None:
        """The page of older rows, if any."""
        return self._href(self.next_cursor) if self.next_cursor else None


def cursor_paging(
    request: AnyRequest, *, shown: int, total: int | None, next_cursor: str | None
) -> CursorPaging:
    """Cursor paging links for the listing this request shows."""
    return CursorPaging(
        shown=shown,
        total=total,
        next_cursor=next_cursor,
        base=request.url.path,
        params=dict(request.query_params.items()),
    )


def cursor_of(request: AnyRequest) -> str | None:
    """The ``cursor`` query value (the service says when it is not one it gave)."""
    return query(request, "cursor", max_length=1000)


def offset_of(request: AnyRequest) -> int:
    """The ``offset`` query value; anything but an offset in bounds reads as 0."""
    raw = request.query_params.get("offset", "0")
    return offset_of_cursor(raw) or 0


def query(request: AnyRequest, name: str, *, max_length: int = 2000) -> str | None:
    """A text query value, stripped; None when absent or empty; too long is a clear 400."""
    value = (request.query_params.get(name) or "").strip()
    if len(value) > max_length:
        raise InvalidInput(f"{name}: at most {max_length} characters")
    return value or None


def choice(request: AnyRequest, name: str, allowed: tuple[str, ...]) -> str | None:
    """A query value that must be one of ``allowed`` (None when absent)."""
    value = query(request, name, max_length=100)
    if value is not None and value not in allowed:
        raise InvalidInput(f"{name}: one of {', '.join(allowed)}")
    return value


def paging(request: AnyRequest, *, total: int, limit: int = PAGE_SIZE) -> Paging:
    """Paging links for the listing this request shows."""
    return Paging(
        offset=offset_of(request),
        limit=limit,
        total=total,
        base=request.url.path,
        params=dict(request.query_params.items()),
    )


async def form(request: AnyRequest) -> FormMultiDict:
    """The submitted form (URL-encoded or multipart)."""
    return await request.form()


def field(data: FormMultiDict, name: str, *, required: bool = False) -> str | None:
    """One form field, stripped; a missing required one is a clear 400 naming it."""
    value = data.get(name)
    text = value.strip() if isinstance(value, str) else ""
    if required and not text:
        raise InvalidInput(f"{name}: required")
    return text or None


def convert(values: Mapping[str, Any], into: type[T]) -> T:
    """A request Struct from form values, validated as the API validates JSON.

    msgspec's message names the field (``... - at `$.reason```), which becomes the 400's text.
    """
    try:
        return msgspec.convert(dict(values), into)
    except msgspec.ValidationError as exc:
        raise InvalidInput(str(exc)) from exc


def redirect(path: str, notice: str | None = None) -> Redirect:
    """See-other to ``path`` after an action, naming the notice to show there."""
    if notice:
        path += ("&" if "?" in path else "?") + urlencode({"done": notice})
    return Redirect(path=path, status_code=303)


def render(request: AnyRequest, template: str, status_code: int = 200, **context: Any) -> Template:
    """A page: the template with what every page shows (notice, active bank, paths)."""
    done = request.query_params.get("done")
    context.setdefault("bank_id", request.path_params.get("bank_id"))
    principal: Principal | None = request.state.get(PRINCIPAL)
    bank_id = context["bank_id"]
    context.update(
        notice=NOTICES.get(done or ""),
        path=request.url.path,
        request=request,
        principal=principal,
        # Actions a key may not take are not offered (the guard refuses their posts anyway).
        can_write=principal is None or (isinstance(bank_id, str) and principal.may_write(bank_id)),
        can_admin=principal is None or principal.admin,
    )
    return Template(template_name=template, context=context, status_code=status_code)


def server_timing(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: a ``Server-Timing`` header with the time spent before the response."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - started) * 1000
                headers = list(message.get("headers", []))
                headers.append((b"server-timing", f"app;dur={ms:.1f}".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, timed)

    return middleware
