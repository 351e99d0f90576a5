"""The console's router: its pages, its assets, its error pages and its template engine."""

from __future__ import annotations

import json
import logging
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from litestar import Request, Router
from litestar.exceptions import HTTPException, NotAuthorizedException, ValidationException
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Redirect, Template
from litestar.static_files import create_static_files_router
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from litestar.template.config import TemplateConfig

from app.console.access import PUBLIC, guard
from app.console.banks import BankPages, OverviewPage
from app.console.charts import segments
from app.console.common import PRINCIPAL, server_timing
from app.console.documents import DocumentPages
from app.console.entities import AuditPages, EntityPages
from app.console.markdown import to_html
from app.console.memories import MemoryPages
from app.console.recall import RecallPage
from app.console.reflect import MentalModelPages, ReflectPage
from app.console.reviews import ReviewPages
from app.console.session import SessionPages
from app.errors import MnemoError

log = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent


def _when(value: datetime | date | None, with_time: bool = True) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")
    return value.isoformat()


def _pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True, default=str)


def _engine(engine: JinjaTemplateEngine) -> None:
    env = engine.engine
    env.filters.update(when=_when, pretty=_pretty, markdown=to_html)
    env.globals.update(segments=segments)
    env.trim_blocks = True
    env.lstrip_blocks = True


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    """Jinja over the console's templates (autoescaped), with its date and JSON filters."""
    return TemplateConfig(
        directory=HERE / "templates", engine=JinjaTemplateEngine, engine_callback=_engine
    )


def _page(
    request: Request[Any, Any, Any], status: int, message: str, extra: Any = None
) -> Template:
    return Template(
        template_name="error.html",
        context={
            "status": status,
            "message": message,
            "extra": extra,
            "back": request.headers.get("referer"),
            "bank_id": request.path_params.get("bank_id")
            if request.scope.get("path_params")
            else None,
            "path": request.url.path,
            "notice": None,
            "principal": request.state.get(PRINCIPAL),
        },
        status_code=status,
    )


def domain_error(request: Request[Any, Any, Any], exc: MnemoError) -> Template:
    """A domain error (400 naming the field, 404, 409…) as a readable page."""
    return _page(request, exc.status_code, exc.detail, exc.extra)


def sign_in_first(request: Request[Any, Any, Any], exc: NotAuthorizedException) -> Redirect:
    """No key in this browser session yet: the login page, then back here."""
    return Redirect(path=f"/console/login?{urlencode({'next': request.url.path})}", status_code=303)


def validation_error(request: Request[Any, Any, Any], exc: HTTPException) -> Template:
    """Litestar's own checks (a malformed bank id in the path…) as a readable page."""
    extra = exc.extra if isinstance(exc, ValidationException) else None
    return _page(request, exc.status_code, exc.detail, extra)


def unexpected(request: Request[Any, Any, Any], exc: Exception) -> Template:
    """Log the stack trace; show a plain 500 page."""
    log.exception("console error on %s %s", request.method, request.url.path, exc_info=exc)
    return _page(request, HTTP_500_INTERNAL_SERVER_ERROR, "Something went wrong on the server.")


def console_router() -> Router:
    """Every console route under ``/console``, its static assets under ``/console/static``."""
    assets = create_static_files_router(
        path="/static",
        directories=[HERE / "static"],
        name="console:static",
        opt={PUBLIC: True},
        include_in_schema=False,
    )
    return Router(
        path="/console",
        route_handlers=[
            SessionPages,
            BankPages,
            OverviewPage,
            MemoryPages,
            DocumentPages,
            EntityPages,
            AuditPages,
            ReviewPages,
            RecallPage,
            ReflectPage,
            MentalModelPages,
            assets,
        ],
        exception_handlers={
            NotAuthorizedException: sign_in_first,
            MnemoError: domain_error,
            HTTPException: validation_error,
            Exception: unexpected,
        },
        middleware=[server_timing],
        guards=[guard],
        # The API's key check reads Authorization headers, which a browser does not send; the
        # console's guard checks the session's key instead (its host and origin checks stay).
        opt={"access": "open"},
        include_in_schema=False,
    )
