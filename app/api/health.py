"""Liveness, readiness and the version (Hindsight's ``/health/live`` and ``/version`` too)."""

from __future__ import annotations

import time

import msgspec
from litestar import Controller, Response, get
from litestar.openapi import ResponseSpec
from litestar.status_codes import HTTP_200_OK, HTTP_503_SERVICE_UNAVAILABLE

import app as package
from app.api.deps import RuntimeDep

# When this process started serving, for ``uptime_seconds``.
_STARTED = time.monotonic()


class Alive(msgspec.Struct, frozen=True):
    """The process answers."""

    status: str = "ok"


class Liveness(msgspec.Struct, frozen=True, kw_only=True):
    """The process answers: its version and how long it has run (Hindsight's shape)."""

    status: str = "alive"
    version: str
    uptime_seconds: float


class Ready(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Each dependency's state."""

    status: str
    neo4j: str
    vector_store: str
    embedder: str


class NotReady(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The 503 answer: which dependency is down (the error shape, with each one's state)."""

    status_code: int
    detail: str
    extra: dict[str, str]


class Features(msgspec.Struct, frozen=True, kw_only=True):
    """Which optional parts this service offers (Hindsight's feature flags, and Mnemo's)."""

    observations: bool = False
    mcp: bool = True
    worker: bool = False
    bank_config_api: bool = True
    bank_llm_health: bool = False
    file_upload_api: bool = False
    document_export_api: bool = False
    document_import_api: bool = False
    audit_log: bool = False
    llm_trace: bool = False
    store_document_text: bool = True
    reflect: bool = True
    mental_models: bool = True
    webhooks: bool = True
    llm: bool = False


class Version(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /version``: the API version and what it offers."""

    api_version: str
    service: str = "mnemo"
    features: Features


class HealthController(Controller):
    """``/health``, ``/health/live`` and ``/health/ready``, open to callers without a key.

    Probes send none; readiness names which dependency is down, never its address.
    """

    path = "/health"
    tags = ["health"]
    opt = {"access": "open"}

    @get("/", operation_id="health", summary="Liveness: the process answers")
    async def alive(self) -> Alive:
        """Always 200 while the process runs."""
        return Alive()

    @get("/live", operation_id="get_liveness", summary="Liveness with version and uptime")
    async def live(self) -> Liveness:
        """Always 200 while the process runs."""
        return Liveness(
            version=package.__version__, uptime_seconds=round(time.monotonic() - _STARTED, 3)
        )

    @get(
        "/ready",
        operation_id="get_readiness",
        summary="Readiness: Neo4j, vector store and embedder usable",
        responses={503: ResponseSpec(NotReady, description="A dependency is down")},
    )
    async def ready(self, runtime: RuntimeDep) -> Response[Ready | NotReady]:
        """200 when all dependencies answer, 503 naming what is down otherwise."""
        state = await runtime.readiness()
        words = {
            name: ("up" if getattr(state, name) else "down") for name in state.__struct_fields__
        }
        if state.ready:
            return Response(Ready(status="ready", **words), status_code=HTTP_200_OK)
        return Response(
            NotReady(
                status_code=HTTP_503_SERVICE_UNAVAILABLE,
                detail=f"not ready: {', '.join(state.down())} down",
                extra=words,
            ),
            status_code=HTTP_503_SERVICE_UNAVAILABLE,
        )


class VersionController(Controller):
    """``/version``: which Mnemo this is and what it offers."""

    path = "/version"
    tags = ["health"]
    opt = {"access": "open"}

    @get("/", operation_id="get_version", summary="API version and feature flags")
    async def version(self, runtime: RuntimeDep) -> Version:
        """Features follow the configuration (an LLM endpoint, for instance)."""
        return Version(
            api_version=package.__version__,
            features=Features(llm=runtime.settings.llm_configured),
        )
