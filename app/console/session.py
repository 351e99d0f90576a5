"""Signing in and out of the console with an API key (only asked when keys are required)."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.response import Redirect, Template

from app.console.access import COOKIE, PUBLIC
from app.console.common import AnyRequest, field, form, render, runtime
from app.errors import InvalidInput


def _next(value: str | None) -> str:
    """Where to go after signing in: a console path only (never another site)."""
    if value and value.startswith("/console/") and "//" not in value and "\\" not in value:
        return value
    return "/console/"


class SessionPages(Controller):
    """``/console/login`` and ``/console/logout``."""

    path = "/"
    opt = {PUBLIC: True}  # noqa: RUF012

    @get("/login", name="console:login")
    async def login_form(self, request: AnyRequest) -> Template:
        """The key form (or a note that this service asks for none)."""
        return render(
            request,
            "login.html",
            auth=runtime(request).settings.auth_required,
            next=_next(request.query_params.get("next")),
        )

    @post("/login", name="console:sign-in")
    async def login(self, request: AnyRequest) -> Redirect:
        """Check the key; keep it in an HttpOnly, SameSite=Strict session cookie."""
        data = await form(request)
        key = field(data, "key", required=True) or ""
        if await runtime(request).keys.verify(key) is None:
            raise InvalidInput("key: not a valid API key (unknown, revoked or mistyped)")
        response = Redirect(path=_next(field(data, "next")), status_code=303)
        response.set_cookie(
            COOKIE,
            key,
            path="/console",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    @post("/logout", name="console:sign-out")
    async def logout(self) -> Redirect:
        """Forget the key."""
        response = Redirect(path="/console/login", status_code=303)
        response.delete_cookie(COOKIE, path="/console")
        return response
