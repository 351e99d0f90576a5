"""Dependency providers: handlers ask for a service by name and get it from the runtime."""

from __future__ import annotations

from typing import Annotated

from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, PathParameter, QueryParameter

from app.access.keys import KeyService
from app.consolidate.service import ConsolidationService
from app.curate.banks import BankService
from app.curate.documents import DocumentService
from app.curate.entities import EntityService
from app.curate.memories import MemoryService
from app.curate.reviews import ReviewService
from app.curate.security import SecurityEventService
from app.domain.banks import BANK_ID_PATTERN
from app.domain.paging import MAX_OFFSET
from app.recall.service import RecallService
from app.reflect.mental_models import MentalModelService
from app.reflect.service import ReflectService
from app.retain.operations import OperationRunner
from app.retain.pipeline import RetainPipeline
from app.runtime import Runtime
from app.webhooks.service import Dispatcher, WebhookService

# Every bank-scoped path declares its id with this type: the pattern is checked before any
# handler runs, and a bad id is a 400 that names the parameter.
BankId = Annotated[
    str,
    PathParameter(
        pattern=BANK_ID_PATTERN,
        min_length=1,
        max_length=64,
        description="1-64 characters of letters, digits, '_', '.' or '-' (not '.' or '..')",
    ),
]
Banks = NamedDependency[BankService]
Retainer = NamedDependency[RetainPipeline]
Operations = NamedDependency[OperationRunner]
Recaller = NamedDependency[RecallService]
RuntimeDep = NamedDependency[Runtime]
Memories = NamedDependency[MemoryService]
Documents = NamedDependency[DocumentService]
Entities = NamedDependency[EntityService]
Reviews = NamedDependency[ReviewService]
Reflector = NamedDependency[ReflectService]
MentalModels = NamedDependency[MentalModelService]
Consolidation = NamedDependency[ConsolidationService]
Keys = NamedDependency[KeyService]
SecurityEvents = NamedDependency[SecurityEventService]
Webhooks = NamedDependency[WebhookService]
Events = NamedDependency[Dispatcher]
# Ids of memories, entities, documents, operations… inside a bank.
ItemId = FromPath[str]
Limit = Annotated[int, QueryParameter(ge=1, le=1000, description="page size")]
Offset = Annotated[int, QueryParameter(ge=0, le=MAX_OFFSET, description="items to skip")]
Cursor = Annotated[
    str | None,
    QueryParameter(
        max_length=1000,
        description="next_cursor of the previous page: the page after it (cheap at any depth)",
    ),
]


def runtime(state: State) -> Runtime:
    """The runtime the lifespan opened."""
    rt: Runtime = state.runtime
    return rt


def banks(state: State) -> BankService:
    """Bank CRUD."""
    return runtime(state).banks


def retainer(state: State) -> RetainPipeline:
    """The retain pipeline."""
    return runtime(state).retainer


def operations(state: State) -> OperationRunner:
    """Async operations."""
    return runtime(state).operations


def recaller(state: State) -> RecallService:
    """The recall service."""
    return runtime(state).recall


def memories(state: State) -> MemoryService:
    """Listing, reading and curating facts."""
    return runtime(state).memories


def documents(state: State) -> DocumentService:
    """Documents and what they produced."""
    return runtime(state).documents


def entities(state: State) -> EntityService:
    """Entities: inspection and repairs."""
    return runtime(state).entities


def reviews(state: State) -> ReviewService:
    """Entity-resolution reviews."""
    return runtime(state).reviews


def reflector(state: State) -> ReflectService:
    """The reflect service."""
    return runtime(state).reflect


def mental_models(state: State) -> MentalModelService:
    """Mental models."""
    return runtime(state).mental_models


def consolidation(state: State) -> ConsolidationService:
    """Consolidation requests (queue a run, clear a fact's observations)."""
    return runtime(state).consolidation


def security_events(state: State) -> SecurityEventService:
    """Memory defense's events."""
    return runtime(state).security_events


def keys(state: State) -> KeyService:
    """API keys."""
    return runtime(state).keys


def webhooks(state: State) -> WebhookService:
    """Webhook subscriptions."""
    return runtime(state).webhooks


def events(state: State) -> Dispatcher:
    """Where bank events go (webhook deliveries)."""
    return runtime(state).events


DEPENDENCIES = {
    "keys": Provide(keys, sync_to_thread=False),
    "security_events": Provide(security_events, sync_to_thread=False),
    "runtime": Provide(runtime, sync_to_thread=False),
    "banks": Provide(banks, sync_to_thread=False),
    "retainer": Provide(retainer, sync_to_thread=False),
    "operations": Provide(operations, sync_to_thread=False),
    "memories": Provide(memories, sync_to_thread=False),
    "documents": Provide(documents, sync_to_thread=False),
    "entities": Provide(entities, sync_to_thread=False),
    "reviews": Provide(reviews, sync_to_thread=False),
    "recaller": Provide(recaller, sync_to_thread=False),
    "reflector": Provide(reflector, sync_to_thread=False),
    "mental_models": Provide(mental_models, sync_to_thread=False),
    "consolidation": Provide(consolidation, sync_to_thread=False),
    "webhooks": Provide(webhooks, sync_to_thread=False),
    "events": Provide(events, sync_to_thread=False),
}
