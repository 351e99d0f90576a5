"""Mental models: ``/v1/default/banks/{bank_id}/mental-models``."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, delete, get, patch, post
from litestar.params import JSONBody, QueryParameter
from litestar.status_codes import HTTP_200_OK

from app.api.deps import BankId, ItemId, Limit, MentalModels, Offset
from app.domain.tags import TagsMatch
from app.reflect.mental_models import MentalModelDeleted
from app.reflect.schemas import (
    AsyncOperationSubmitResponse,
    CreateMentalModelRequest,
    CreateMentalModelResponse,
    Detail,
    MentalModelListResponse,
    MentalModelResponse,
    MentalModelVersion,
    RefreshMentalModelRequest,
    UpdateMentalModelRequest,
)

Tags = Annotated[list[str] | None, QueryParameter(description="filter by the models' tags")]
TagsMode = Annotated[TagsMatch, QueryParameter(description="how tags match (as in recall)")]
DetailLevel = Annotated[Detail, QueryParameter(description="metadata, content or full")]
KnowledgePages = Annotated[bool, QueryParameter(description="accepted; Mnemo has none")]


class MentalModelController(Controller):
    """Standing answers: written by reflect, refreshed, versioned, read with one query."""

    path = "/v1/default/banks/{bank_id:str}/mental-models"
    tags = ["mental models"]

    @post(
        "/",
        status_code=HTTP_200_OK,
        operation_id="create_mental_model",
        summary="Create a mental model (its page is generated)",
    )
    async def create_mental_model(
        self,
        bank_id: BankId,
        data: JSONBody[CreateMentalModelRequest],
        mental_models: MentalModels,
    ) -> CreateMentalModelResponse:
        """The page is written by the operation named in the answer."""
        return await mental_models.create(bank_id, data)

    @get("/", operation_id="list_mental_models", summary="A bank's mental models, one page")
    async def list_mental_models(
        self,
        bank_id: BankId,
        mental_models: MentalModels,
        tags: Tags = None,
        tags_match: TagsMode = "any",
        detail: DetailLevel = "metadata",
        limit: Limit = 100,
        offset: Offset = 0,
        exclude_knowledge_pages: KnowledgePages = False,
    ) -> MentalModelListResponse:
        """``detail``: metadata (default), content, full. Mnemo has no knowledge pages."""
        return await mental_models.page(
            bank_id, tags=tags, tags_match=tags_match, detail=detail, limit=limit, offset=offset
        )

    @get(
        "/{mental_model_id:str}",
        operation_id="get_mental_model",
        summary="One mental model (one database query)",
    )
    async def get_mental_model(
        self,
        bank_id: BankId,
        mental_model_id: ItemId,
        mental_models: MentalModels,
        detail: DetailLevel = "full",
    ) -> MentalModelResponse:
        """``detail=full`` (default) includes the evidence in ``reflect_response.based_on``."""
        return await mental_models.get(bank_id, mental_model_id, detail)

    @patch(
        "/{mental_model_id:str}",
        operation_id="update_mental_model",
        summary="Change a mental model's settings",
    )
    async def update_mental_model(
        self,
        bank_id: BankId,
        mental_model_id: ItemId,
        data: JSONBody[UpdateMentalModelRequest],
        mental_models: MentalModels,
    ) -> MentalModelResponse:
        """Fields not sent keep their value; the trigger is merged field by field."""
        return await mental_models.patch(bank_id, mental_model_id, data)

    @delete(
        "/{mental_model_id:str}",
        status_code=HTTP_200_OK,
        operation_id="delete_mental_model",
        summary="Delete a mental model",
    )
    async def delete_mental_model(
        self, bank_id: BankId, mental_model_id: ItemId, mental_models: MentalModels
    ) -> MentalModelDeleted:
        """Its versions go with it; memories stay."""
        return await mental_models.delete(bank_id, mental_model_id)

    @post(
        "/{mental_model_id:str}/refresh",
        status_code=HTTP_200_OK,
        operation_id="refresh_mental_model",
        summary="Refresh a mental model (queued)",
    )
    async def refresh_mental_model(
        self,
        bank_id: BankId,
        mental_model_id: ItemId,
        mental_models: MentalModels,
        data: JSONBody[RefreshMentalModelRequest | None] = None,
    ) -> AsyncOperationSubmitResponse:
        """Follow the operation at ``GET .../operations/{operation_id}``."""
        return await mental_models.refresh(bank_id, mental_model_id, data)

    @get(
        "/{mental_model_id:str}/history",
        operation_id="get_mental_model_history",
        summary="Every version, newest first",
    )
    async def get_mental_model_history(
        self, bank_id: BankId, mental_model_id: ItemId, mental_models: MentalModels
    ) -> list[MentalModelVersion]:
        """When, why, how and what changed by section, for each version."""
        return await mental_models.history(bank_id, mental_model_id)
