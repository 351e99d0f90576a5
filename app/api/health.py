"""Liveness and readiness."""

from __future__ import annotations

import msgspec
from litestar import Controller, Response, get
from litestar.status_codes import HTTP_200_OK, HTTP_503_SERVICE_UNAVAILABLE

from app.api.deps import RuntimeDep


class Alive(msgspec.Struct, frozen=True):
    """The process answers."""

    status: str = "ok"


class Ready(msgspec.Struct, frozen=True):
    """Each dependency's state."""

    status: str
    neo4j: str
    vector_store: str
    embedder: str


class HealthController(Controller):
    """``/health`` and ``/health/ready``."""

    path = "/health"
    tags = ["health"]

    @get("/", summary="Liveness: the process answers")
    async def alive(self) -> Alive:
        """Always 200 while the process runs."""
        return Alive()

    @get("/ready", summary="Readiness: Neo4j, vector store and embedder usable")
    async def ready(self, runtime: RuntimeDep) -> Response[Ready | dict[str, object]]:
        """200 when all dependencies answer, 503 naming what is down otherwise."""
        state = await runtime.readiness()
        words = {
            name: ("up" if getattr(state, name) else "down") for name in state.__struct_fields__
        }
        if state.ready:
            return Response(Ready(status="ready", **words), status_code=HTTP_200_OK)
        return Response(
            {
                "status_code": HTTP_503_SERVICE_UNAVAILABLE,
                "detail": f"not ready: {', '.join(state.down())} down",
                "extra": words,
            },
            status_code=HTTP_503_SERVICE_UNAVAILABLE,
        )
