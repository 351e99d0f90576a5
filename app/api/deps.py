"""Dependency providers: handlers ask for a service by name and get it from the runtime."""

from __future__ import annotations

from typing import Annotated

from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, PathParameter, QueryParameter

from app.curate.banks import BANK_ID_PATTERN, BankService
from app.retain.operations import OperationRunner
from app.retain.pipeline import RetainPipeline
from app.runtime import Runtime

# Every bank-scoped path declares its id with this type: the pattern is checked before any
# handler runs, and a bad id is a 400 that names the parameter.
BankId = Annotated[
    str,
    PathParameter(
        pattern=BANK_ID_PATTERN,
        min_length=1,
        max_length=64,
        description="1-64 characters of letters, digits, '_', '.' or '-'",
    ),
]
Banks = NamedDependency[BankService]
Retainer = NamedDependency[RetainPipeline]
Operations = NamedDependency[OperationRunner]
RuntimeDep = NamedDependency[Runtime]
# Ids of memories, entities, documents, operations… inside a bank.
ItemId = FromPath[str]
Limit = Annotated[int, QueryParameter(ge=1, le=1000, description="page size")]
Offset = Annotated[int, QueryParameter(ge=0, description="items to skip")]


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


DEPENDENCIES = {
    "runtime": Provide(runtime, sync_to_thread=False),
    "banks": Provide(banks, sync_to_thread=False),
    "retainer": Provide(retainer, sync_to_thread=False),
    "operations": Provide(operations, sync_to_thread=False),
}
