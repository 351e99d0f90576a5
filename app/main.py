"""The app factory: settings in, a Litestar app out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin, SwaggerRenderPlugin
from litestar.plugins.prometheus import PrometheusConfig, PrometheusController

import app as package
from app.api.banks import BankController
from app.api.deps import DEPENDENCIES
from app.api.documents import DocumentController
from app.api.entities import EntityController, EntityMergeController
from app.api.errors import EXCEPTION_HANDLERS
from app.api.health import HealthController, VersionController
from app.api.memories import RetainController
from app.api.memory_items import MemoryItemController, TagController
from app.api.operations import OperationController
from app.api.recall import RecallController
from app.api.reflect import MentalModelController, ReflectController
from app.api.reviews import ReviewController
from app.api.webhooks import WebhookController
from app.config import Settings, load_settings
from app.runtime import Runtime


class MetricsController(PrometheusController):
    """Prometheus text at ``/metrics``."""

    path = "/metrics"
    openmetrics_format = False


def create_app(settings: Settings | None = None) -> Litestar:
    """Build the API. The lifespan opens Neo4j, the vector store and the embedder."""
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with Runtime.open(settings) as runtime:
            app.state.runtime = runtime
            yield

    metrics = PrometheusConfig(app_name="mnemo", prefix="mnemo", group_path=True)
    return Litestar(
        route_handlers=[
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
