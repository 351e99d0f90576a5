"""The lifespan-managed clients: Neo4j driver, vector store, embedder and the services on them.

One ``Runtime`` is opened when the app starts and closed when it stops; handlers receive its
services by dependency injection. Nothing here is a module-level global.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable
from contextlib import AsyncExitStack, asynccontextmanager

import msgspec

from app.access.keys import KeyService
from app.config import WILDCARD_HOSTS, Settings
from app.consolidate.language import Tagger
from app.consolidate.service import ConsolidationService, Consolidator
from app.consolidate.worker import ConsolidationWorker, WorkerSettings
from app.curate.banks import BankService
from app.curate.browse import BrowseService
from app.curate.documents import DocumentService
from app.curate.entities import EntityService
from app.curate.memories import MemoryService
from app.curate.reviews import ReviewService
from app.curate.security import SecurityEventService
from app.recall.service import RecallService
from app.reflect.mental_models import REFRESH, MentalModelService
from app.reflect.service import ReflectService
from app.resolve.graph_resolver import GraphResolver
from app.retain.extract.llm import LlmExtractor
from app.retain.extract.local import ChunksExtractor, LocalExtractor
from app.retain.extract.port import (
    ConcurrentLlmExtraction,
    Extractor,
    OfflineExtraction,
    ProcessExtraction,
)
from app.retain.group_commit import GroupLimits
from app.retain.limits import RetainLimits
from app.retain.operations import OperationRunner
from app.retain.pipeline import RetainPipeline
from app.retain.reconcile import Reconciler
from app.retain.settle_behind import SettleTiming
from app.store.background import finish_within
from app.store.cypher import CypherRegistry
from app.store.data_lock import DataFolderLock
from app.store.embeddings import Embedder
from app.store.graph import Graph
from app.store.liveness import Liveness
from app.store.llm import LlmClient
from app.store.vector_factory import make_vector_store
from app.store.vector_watch import WatchedVectorStore
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
        llm: LlmClient | None = None,
        consolidation_llm: LlmClient | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.liveness = Liveness(graph.ping)
        self.vectors = vectors
        self.embedder = embedder
        self.banks = BankService(
            graph, vectors, llm_configured=settings.llm_configured, published=self._published
        )
        self.retainer = RetainPipeline(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            banks=self.banks,
            extractors=extractors,
            resolver=GraphResolver(embed=embedder.embed, stored_vectors=vectors.vectors),
            limits=RetainLimits(
                max_item_chars=settings.max_item_chars,
                max_items_per_request=settings.max_items_per_request,
            ),
            groups=GroupLimits(
                max_facts=settings.retain_group_max_facts,
                wait_s=settings.retain_group_wait_ms / 1000,
            ),
            settle=SettleTiming(
                delay_s=settings.settle_delay_ms / 1000,
                max_wait_s=settings.settle_max_wait_ms / 1000,
                max_entities=settings.settle_max_entities,
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
        self.reconciler = Reconciler(
            graph,
            vectors,
            embedder,
            self.retainer.link_policy,
            settle_marked=self.retainer.settle_marked,
        )
        self.memories = MemoryService(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            banks=self.banks,
            retainer=self.retainer,
        )
        self.keys = KeyService(graph)
        self.security_events = SecurityEventService(graph, self.banks)
        self.entities = EntityService(graph, self.banks, settled=self.retainer.settled)
        self.browse = BrowseService(
            graph, self.banks, chart_max_age_s=settings.console_chart_max_age_s
        )
        self.reviews = ReviewService(graph, self.banks, self.entities)
        self.documents = DocumentService(
            graph=graph, vectors=vectors, banks=self.banks, retainer=self.retainer
        )
        self.recall = RecallService(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            banks=self.banks,
            published=self.retainer.published,
            max_query_chars=settings.max_query_chars,
        )
        self.consolidator = Consolidator(
            graph=graph,
            vectors=vectors,
            embedder=embedder,
            banks=self.banks,
            tagger=Tagger(settings.spacy_model),
            llm=consolidation_llm,
        )
        self.consolidation = ConsolidationService(graph=graph, vectors=vectors, banks=self.banks)
        self.worker = ConsolidationWorker(
            graph,
            self.consolidator,
            WorkerSettings(
                batch_size=settings.consolidation_batch_size,
                poll_s=settings.consolidation_poll_s,
                lease_s=settings.consolidation_lease_s,
                yield_factor=settings.consolidation_yield,
            ),
            events=self.events,
        )
        self.reflect = ReflectService(
            recall=self.recall,
            graph=graph,
            banks=self.banks,
            embedder=embedder,
            llm=llm,
            timeout_s=settings.reflect_timeout_s,
        )
        self.mental_models = MentalModelService(
            graph=graph,
            reflect=self.reflect,
            operations=self.operations,
            llm=llm,
            events=self.events,
        )
        self.operations.register(REFRESH, self.mental_models.run_operation)

    async def _published(self, bank_id: str) -> None:
        """What the bank's retains wrote is searchable (the bank service is built first)."""
        await self.retainer.published(bank_id)

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings, *, background: bool = True) -> AsyncIterator[Runtime]:
        """Connect to Neo4j, open the vector store, load the models; close all on exit.

        ``background``: repair pending vector writes, resume unfinished operations and run the
        consolidation worker when ``MNEMO_CONSOLIDATION_WORKER`` says so (the service does;
        one-shot commands such as ``mnemo reconcile`` do their own work).
        """
        async with AsyncExitStack() as stack:
            if settings.qdrant_url is None:
                # The embedded shard has one owner: a second process is refused here, before
                # it opens anything.
                lock = DataFolderLock.acquire(
                    settings.data_path, url=service_url(settings) if background else None
                )
                stack.callback(lock.release)
            graph = Graph.from_settings(settings, CypherRegistry.load())
            stack.push_async_callback(graph.close)
            await graph.bootstrap_schema()
            vectors = WatchedVectorStore(make_vector_store(settings))
            await vectors.open()
            stack.push_async_callback(vectors.close)
            embedder = await Embedder.load(settings)
            extractors = await _extractors(settings, stack)
            llm = consolidation_llm = None
            if settings.llm_configured:
                # Reflect and consolidation each have their own client: an agent loop must not
                # queue behind extraction calls, nor background consolidation behind either.
                llm = LlmClient.from_settings(settings)
                stack.push_async_callback(llm.aclose)
                consolidation_llm = LlmClient.from_settings(settings)
                stack.push_async_callback(consolidation_llm.aclose)
            runtime = cls(settings, graph, vectors, embedder, extractors, llm, consolidation_llm)
            await runtime.liveness.start()
            stack.push_async_callback(runtime.liveness.stop)
            stack.push_async_callback(runtime.browse.close)
            if settings.admin_key:
                await runtime.keys.ensure(settings.admin_key, name="MNEMO_ADMIN_KEY")
            stack.push_async_callback(runtime.webhook_sender.aclose)
            # Closed before the stores: a publish still running (its caller gone) finishes, for
            # a bounded time (decision 0024).
            stack.push_async_callback(
                finish_within, runtime.retainer.wait_idle, name="mnemo-shutdown-publish"
            )
            if background:
                await runtime.events.start()
                stack.push_async_callback(runtime.events.stop)
                if settings.reconcile_on_start:
                    await runtime.reconciler.repair_pending()
                    await runtime.retainer.settle_marked()
                await runtime.operations.start()
                stack.push_async_callback(runtime.operations.stop)
                if settings.consolidation_worker:
                    # Standing answers built on what consolidation changed are refreshed by the
                    # operations this process runs (a model's trigger decides whether).
                    runtime.worker.after_run(runtime.mental_models.after_consolidation)
                    await runtime.worker.start()
                    stack.push_async_callback(runtime.worker.stop)
            yield runtime

    async def readiness(self) -> Readiness:
        """Probe each dependency, all at once, each bounded by :data:`PROBE_TIMEOUT_S`."""
        neo4j, vectors, embedder = await asyncio.gather(
            _bounded(self.liveness.check()) if not self.liveness.down else _false(),
            _bounded(self.vectors.healthy()),
            _bounded(self.embedder.healthy()),
        )
        return Readiness(neo4j=neo4j, vector_store=vectors, embedder=embedder)


# A readiness probe that has no answer by then reads as "down": /health/ready answers in 2 s.
PROBE_TIMEOUT_S = 1.5


async def _bounded(probe: Awaitable[bool]) -> bool:
    try:
        return await asyncio.wait_for(probe, PROBE_TIMEOUT_S)
    except TimeoutError:
        return False


async def _false() -> bool:
    return False


def service_url(settings: Settings) -> str:
    """Where a service with these settings answers (a wildcard host → loopback)."""
    host = "127.0.0.1" if settings.host in WILDCARD_HOSTS else settings.host
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"


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
