"""The app factory: settings in, a Litestar app out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar, asgi
from litestar.config.cors import CORSConfig
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin, SwaggerRenderPlugin
from litestar.plugins.prometheus import PrometheusConfig, PrometheusController
from litestar.types import Receive, Scope, Send

import app as package
from app.access.principal import CURRENT_PRINCIPAL
from app.api.admin import AdminController
from app.api.banks import BankController
from app.api.consolidation import ConsolidationController
from app.api.deps import DEPENDENCIES
from app.api.documents import DocumentController
from app.api.entities import EntityController, EntityMergeController
from app.api.errors import EXCEPTION_HANDLERS
from app.api.failfast import FailFastMiddleware
from app.api.health import HealthController, VersionController
from app.api.keys import KeyController
from app.api.memories import RetainController
from app.api.memory_items import MemoryItemController, TagController
from app.api.mental_models import MentalModelController
from app.api.openapi import OptionsMiddleware, document_errors, on_startup
from app.api.operations import OperationController
from app.api.recall import RecallController
from app.api.reflect import ReflectController
from app.api.reviews import ReviewController
from app.api.security import HttpPolicy, SecurityMiddleware
from app.api.security_events import SecurityEventController
from app.api.webhooks import WebhookController
from app.config import Settings, load_settings
from app.console import console_router, template_config
from app.mcp.backend import ServiceBackend
from app.mcp.server import build_server
from app.runtime import Runtime


class MetricsController(PrometheusController):
    """Prometheus text at ``/metrics``."""

    path = "/metrics"
    openmetrics_format = False


def create_app(settings: Settings | None = None) -> Litestar:
    """Build the API. The lifespan opens Neo4j, the vector store and the embedder."""
    settings = settings or load_settings()
    settings.check_auth()

    mcp = build_server(ServiceBackend(lambda: runtime_of(app)))
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/", stateless_http=True, json_response=True, host=settings.host
    )

    # Any valid key may connect; each tool checks the key reaches its bank (app/mcp/backend).
    @asgi(
        "/mcp", is_mount=True, copy_scope=True, include_in_schema=False, opt={"access": "any_key"}
    )
    async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        """The MCP server (streamable HTTP): the same memory, as tools for agents."""
        token = CURRENT_PRINCIPAL.set(scope.get("user"))
        try:
            await mcp_app(scope, receive, send)  # type: ignore[arg-type]
        finally:
            CURRENT_PRINCIPAL.reset(token)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with Runtime.open(settings) as runtime, mcp.session_manager.run():
            app.state.runtime = runtime
            yield

    metrics = PrometheusConfig(app_name="mnemo", prefix="mnemo", group_path=True)
    app = Litestar(
        route_handlers=[
            mcp_endpoint,
            HealthController,
            VersionController,
            BankController,
            RetainController,
            MemoryItemController,
            DocumentController,
            RecallController,
            ReflectController,
            MentalModelController,
            EntityController,
            EntityMergeController,
            ReviewController,
            OperationController,
            ConsolidationController,
            SecurityEventController,
            KeyController,
            AdminController,
            TagController,
            WebhookController,
            MetricsController,
            console_router(),
        ],
        lifespan=[lifespan],
        dependencies=DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
        on_startup=[on_startup(settings.auth_required)],
        middleware=[
            metrics.middleware,
            OptionsMiddleware,
            # Outside the key check, which may ask Neo4j.
            FailFastMiddleware,
            DefineMiddleware(SecurityMiddleware, policy=HttpPolicy.from_settings(settings)),
        ],
        # CORS stays closed (no headers: browsers refuse cross-origin reads) unless origins
        # are configured.
        cors_config=(
            CORSConfig(
                allow_origins=list(settings.cors_origin_list),
                allow_headers=["authorization", "content-type"],
                allow_credentials=False,
            )
            if settings.cors_origin_list
            else None
        ),
        # Bodies above this are refused with 413 before they are parsed.
        request_max_body_size=settings.max_request_bytes,
        openapi_config=OpenAPIConfig(
            title="Mnemo",
            version=package.__version__,
            description="Long-term memory for AI agents: retain, recall, reflect, inspect.",
            path="/schema",
            render_plugins=[ScalarRenderPlugin(), SwaggerRenderPlugin(path="/swagger")],
        ),
        template_config=template_config(),
        debug=False,
    )
    document_errors(app)
    return app


def runtime_of(app: Litestar) -> Runtime:
    """The runtime the lifespan opened on ``app``."""
    runtime: Runtime = app.state.runtime
    return runtime
