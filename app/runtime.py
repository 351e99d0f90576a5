"""The lifespan-managed clients: Neo4j driver, vector store, embedder and the services on them.

One ``Runtime`` is opened when the app starts and closed when it stops; handlers receive its
services by dependency injection. Nothing here is a module-level global.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import msgspec

from app.config import Settings
from app.curate.banks import BankService
from app.store.cypher import CypherRegistry
from app.store.embeddings import Embedder
from app.store.graph import Graph
from app.store.vector_factory import make_vector_store
from app.store.vectors import VectorStore

log = logging.getLogger(__name__)


class Readiness(msgspec.Struct, frozen=True):
    """Which dependencies answer right now."""

    neo4j: bool
    vector_store: bool
    embedder: bool

    @property
    def ready(self) -> bool:
        """True when every dependency is usable."""
        return self.neo4j and self.vector_store and self.embedder

    def down(self) -> list[str]:
        """Names of the dependencies that do not answer."""
        return [name for name in self.__struct_fields__ if not getattr(self, name)]


class Runtime:
    """Everything a request may need, built once per process."""

    def __init__(
        self, settings: Settings, graph: Graph, vectors: VectorStore, embedder: Embedder
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.banks = BankService(graph, vectors, llm_configured=settings.llm_configured)

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings) -> AsyncIterator[Runtime]:
        """Connect to Neo4j, open the vector store, load the embedder; close all on exit."""
        async with AsyncExitStack() as stack:
            graph = Graph.connect(
                settings.bolt_uri,
                registry=CypherRegistry.load(),
                database=settings.neo4j_database,
                user=settings.neo4j_user,
                password=settings.neo4j_password,
            )
            stack.push_async_callback(graph.close)
            await graph.bootstrap_schema()
            vectors = make_vector_store(settings)
            await vectors.open()
            stack.push_async_callback(vectors.close)
            embedder = await Embedder.load(settings)
            yield cls(settings, graph, vectors, embedder)

    async def readiness(self) -> Readiness:
        """Probe each dependency."""
        return Readiness(
            neo4j=await self.graph.healthy(),
            vector_store=await self.vectors.healthy(),
            embedder=await self.embedder.healthy(),
        )
