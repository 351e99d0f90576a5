"""The app factory: settings in, a Litestar app out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar, asgi
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin, SwaggerRenderPlugin
from litestar.plugins.prometheus import PrometheusConfig, PrometheusController
from litestar.types import Receive, Scope, Send

import app as package
from app.api.banks import BankController
from app.api.deps import DEPENDENCIES
from app.api.documents import DocumentController
from app.api.entities import EntityController, EntityMergeController
from app.api.errors import EXCEPTION_HANDLERS
from app.api.health import HealthController, VersionController
from app.api.memories import RetainController
from app.api.memory_items import MemoryItemController, TagController
from app.api.openapi import document_errors
from app.api.operations import OperationController
from app.api.recall import RecallController
from app.api.reflect import MentalModelController, ReflectController
from app.api.reviews import ReviewController
from app.api.webhooks import WebhookController
from app.config import Settings, load_settings
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

    mcp = build_server(ServiceBackend(lambda: runtime_of(app)))
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/", stateless_http=True, json_response=True, host=settings.host
    )

    @asgi("/mcp", is_mount=True, copy_scope=True, include_in_schema=False)
    async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        """The MCP server (streamable HTTP): the same memory, as tools for agents."""
        await mcp_app(scope, receive, send)  # type: ignore[arg-type]

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
            EntityController,
            EntityMergeController,
            ReviewController,
            OperationController,
            TagController,
            WebhookController,
            ReflectController,
            MentalModelController,
            MetricsController,
        ],
        lifespan=[lifespan],
        dependencies=DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[metrics.middleware],
        # Bodies above this are refused with 413 before they are parsed.
        request_max_body_size=settings.max_request_bytes,
        openapi_config=OpenAPIConfig(
            title="Mnemo",
            version=package.__version__,
            description="Long-term memory for AI agents: retain, recall, inspect.",
            path="/schema",
            render_plugins=[ScalarRenderPlugin(), SwaggerRenderPlugin(path="/swagger")],
        ),
        debug=False,
    )
    document_errors(app)
    return app


def runtime_of(app: Litestar) -> Runtime:
    """The runtime the lifespan opened on ``app``."""
    runtime: Runtime = app.state.runtime
    return runtime
