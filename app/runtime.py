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
from app.curate.documents import DocumentService
from app.curate.entities import EntityService
from app.curate.memories import MemoryService
from app.curate.reviews import ReviewService
from app.recall.service import RecallService
from app.resolve.graph_resolver import GraphResolver
from app.retain.extract.llm import LlmExtractor
from app.retain.extract.local import ChunksExtractor, LocalExtractor
from app.retain.extract.port import (
    ConcurrentLlmExtraction,
    Extractor,
    OfflineExtraction,
    ProcessExtraction,
)
from app.retain.limits import RetainLimits
from app.retain.operations import OperationRunner
from app.retain.pipeline import RetainPipeline
from app.retain.reconcile import Reconciler
from app.store.cypher import CypherRegistry
from app.store.embeddings import Embedder
from app.store.graph import Graph
from app.store.llm import LlmClient
from app.store.vector_factory import make_vector_store
from app.store.vectors import VectorStore
from app.store.webhook_http import WebhookSender
from app.webhooks.service import Dispatcher, RetryPolicy, WebhookService

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
        self,
        settings: Settings,
        graph: Graph,
        vectors: VectorStore,
        embedder: Embedder,
        extractors: dict[str, Extractor],
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.banks = BankService(graph, vectors, llm_configured=settings.llm_configured)
        self.retainer = RetainPipeline(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            banks=self.banks,
            extractors=extractors,
            resolver=GraphResolver(),
            limits=RetainLimits(
                max_item_chars=settings.max_item_chars,
                max_items_per_request=settings.max_items_per_request,
            ),
            fault_injection=settings.fault_injection,
        )
        self.webhook_sender = WebhookSender()
        self.events = Dispatcher(
            graph,
            self.webhook_sender,
            RetryPolicy(
                max_attempts=settings.webhook_max_attempts,
                base_s=settings.webhook_retry_base_s,
            ),
        )
        self.webhooks = WebhookService(graph, self.banks)
        self.operations = OperationRunner(graph, self.retainer, self.events)
        # A repair links facts by the same policy as the retain it finishes.
        self.reconciler = Reconciler(graph, vectors, embedder, self.retainer.link_policy)
        self.memories = MemoryService(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            banks=self.banks,
            retainer=self.retainer,
        )
        self.entities = EntityService(graph, self.banks)
        self.reviews = ReviewService(graph, self.banks, self.entities)
        self.documents = DocumentService(
            graph=graph, vectors=vectors, banks=self.banks, retainer=self.retainer
        )
        self.recall = RecallService(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            banks=self.banks,
            max_query_chars=settings.max_query_chars,
        )

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings, *, background: bool = True) -> AsyncIterator[Runtime]:
        """Connect to Neo4j, open the vector store, load the models; close all on exit.

        ``background``: repair pending vector writes and resume unfinished operations (the
        service does; one-shot commands such as ``mnemo reconcile`` do their own work).
        """
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
            extractors = await _extractors(settings, stack)
            runtime = cls(settings, graph, vectors, embedder, extractors)
            stack.push_async_callback(runtime.webhook_sender.aclose)
            if background:
                await runtime.events.start()
                stack.push_async_callback(runtime.events.stop)
                if settings.reconcile_on_start:
                    await runtime.reconciler.repair_pending()
                await runtime.operations.start()
                stack.push_async_callback(runtime.operations.stop)
            yield runtime

    async def readiness(self) -> Readiness:
        """Probe each dependency."""
        return Readiness(
            neo4j=await self.graph.healthy(),
            vector_store=await self.vectors.healthy(),
            embedder=await self.embedder.healthy(),
        )


async def _extractors(settings: Settings, stack: AsyncExitStack) -> dict[str, Extractor]:
    """One extractor per extraction mode; the LLM modes only when an endpoint is configured."""
    local: Extractor
    if settings.local_extraction_worker:
        worker = await ProcessExtraction.start(settings.spacy_model)
        stack.push_async_callback(worker.close)
        local = worker
    else:
        local = OfflineExtraction(await LocalExtractor.aload(settings.spacy_model))
    extractors: dict[str, Extractor] = {
        "local": local,
        "chunks": OfflineExtraction(ChunksExtractor()),
    }
    if settings.llm_configured:
        llm = LlmClient.from_settings(settings)
        stack.push_async_callback(llm.aclose)
        shared = ConcurrentLlmExtraction(LlmExtractor(llm), concurrency=settings.llm_concurrency)
        extractors.update(dict.fromkeys(("concise", "verbose", "custom", "verbatim"), shared))
    return extractors
