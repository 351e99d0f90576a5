"""Entities: ``/v1/default/banks/{bank_id}/entities`` and the audit trail ``.../entity-merges``."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, get, post
from litestar.params import JSONBody, QueryParameter
from litestar.status_codes import HTTP_200_OK, HTTP_201_CREATED

from app.api.deps import BankId, Entities, ItemId, Limit, Offset
from app.curate.entities import (
    DEFAULT_GRAPH_NODES,
    DEFAULT_NEIGHBOURS,
    MAX_GRAPH_NODES,
    MAX_NEIGHBOURS,
)
from app.curate.schemas.entities import (
    EntityChange,
    EntityDetail,
    EntityGraph,
    EntityMergePage,
    EntityPage,
    MergeRequest,
    RecordKind,
    RevertRequest,
    SplitRequest,
)
from app.domain.paging import MAX_OFFSET

NameQuery = Annotated[
    str | None,
    QueryParameter(
        name="name",
        min_length=1,
        max_length=512,
        description="any of the entity's names: exact (normalised), or all its words",
    ),
]
TypeQuery = Annotated[
    str | None,
    QueryParameter(name="type", max_length=64, description="entity type (case-insensitive)"),
]
NeighboursQuery = Annotated[
    int,
    QueryParameter(
        name="neighbours", ge=0, le=MAX_NEIGHBOURS, description="co-occurring entities to show"
    ),
]
GraphLimit = Annotated[
    int,
    QueryParameter(
        name="limit", ge=1, le=MAX_GRAPH_NODES, description="nodes: the most mentioned entities"
    ),
]
MinCount = Annotated[
    int,
    QueryParameter(
        name="min_count", ge=1, le=MAX_OFFSET, description="edges counting at least this many"
    ),
]
KindQuery = Annotated[
    RecordKind | None, QueryParameter(name="kind", description="merge, split or revert")
]
EntityQuery = Annotated[
    str | None,
    QueryParameter(name="entity_id", max_length=256, description="records about this entity"),
]


class EntityController(Controller):
    """Inspect entities and repair resolution mistakes."""

    path = "/v1/default/banks/{bank_id:str}/entities"
    tags = ["entities"]

    @get(
        "/",
        operation_id="list_entities",
        summary="List entities: most mentioned first, filter by name and type, paged",
    )
    async def list_entities(
        self,
        bank_id: BankId,
        entities: Entities,
        name: NameQuery = None,
        entity_type: TypeQuery = None,
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> EntityPage:
        """404 when the bank does not exist."""
        return await entities.page(
            bank_id, name=name, entity_type=entity_type, limit=limit, offset=offset
        )

    @get(
        "/graph",
        operation_id="get_entity_graph",
        summary="The co-occurrence graph of the most mentioned entities (bounded)",
    )
    async def entity_graph(
        self,
        bank_id: BankId,
        entities: Entities,
        limit: GraphLimit = DEFAULT_GRAPH_NODES,
        min_count: MinCount = 1,
        entity_type: TypeQuery = None,
    ) -> EntityGraph:
        """Nodes by mention count, edges among them with at least ``min_count`` facts."""
        return await entities.graph(
            bank_id, limit=limit, min_count=min_count, entity_type=entity_type
        )

    @get(
        "/{entity_id:str}",
        operation_id="get_entity",
        summary="One entity: names with provenance, neighbours, reviews",
    )
    async def get_entity(
        self,
        bank_id: BankId,
        entity_id: ItemId,
        entities: Entities,
        neighbours: NeighboursQuery = DEFAULT_NEIGHBOURS,
    ) -> EntityDetail:
        """404 when absent; a merged-away id's 404 names the entity it was merged into."""
        return await entities.get(bank_id, entity_id, neighbours=neighbours)

    @post(
        "/{entity_id:str}/merge",
        status_code=HTTP_200_OK,
        operation_id="merge_entity",
        summary="Merge into another entity",
    )
    async def merge_entity(
        self, bank_id: BankId, entity_id: ItemId, entities: Entities, data: JSONBody[MergeRequest]
    ) -> EntityChange:
        """Mentions, names and co-occurrences move to ``into``; audited and revertible."""
        return await entities.merge(bank_id, entity_id, data)

    @post(
        "/{entity_id:str}/split",
        operation_id="split_entity",
        summary="Split some facts off into a new entity",
    )
    async def split_entity(
        self, bank_id: BankId, entity_id: ItemId, entities: Entities, data: JSONBody[SplitRequest]
    ) -> Response[EntityChange]:
        """201 with the new entity; 400 naming memory ids that do not mention this entity."""
        change = await entities.split(bank_id, entity_id, data)
        return Response(change, status_code=HTTP_201_CREATED)


class EntityMergeController(Controller):
    """The audit trail of merges, splits and reverts; reverting one."""

    path = "/v1/default/banks/{bank_id:str}/entity-merges"
    tags = ["entities"]

    @get(
        "/",
        operation_id="list_entity_merges",
        summary="Audit records of merges, splits and reverts, newest first",
    )
    async def list_entity_merges(
        self,
        bank_id: BankId,
        entities: Entities,
        kind: KindQuery = None,
        entity_id: EntityQuery = None,
        limit: Limit = 100,
        offset: Offset = 0,
    ) -> EntityMergePage:
        """404 when the bank does not exist."""
        return await entities.history(
            bank_id, kind=kind, entity_id=entity_id, limit=limit, offset=offset
        )

    @post(
        "/{merge_id:str}/revert",
        status_code=HTTP_200_OK,
        operation_id="revert_entity_merge",
        summary="Revert a merge or a split",
    )
    async def revert_entity_merge(
        self, bank_id: BankId, merge_id: ItemId, entities: Entities, data: JSONBody[RevertRequest]
    ) -> EntityChange:
        """Exact undo; 409 when already reverted or when a later repair must be reverted first."""
        return await entities.revert(bank_id, merge_id, data)
