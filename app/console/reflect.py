"""Console pages for reflect and mental models.

The reflect playground shows an answer with the evidence it cites and how it was reached;
mental models are rendered pages with their versions and a refresh button.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, get, post
from litestar.response import Redirect, Template

from app.api.deps import BankId, ItemId
from app.console.common import (
    AnyRequest,
    choice,
    convert,
    field,
    form,
    offset_of,
    paging,
    query,
    redirect,
    render,
    runtime,
)
from app.console.recall import BUDGETS
from app.reflect.schemas import (
    CreateMentalModelRequest,
    ReflectRequest,
    RefreshMentalModelRequest,
)

MODELS_PER_PAGE = 25
VERSIONS_SHOWN = 20


class ReflectPage(Controller):
    """``/console/banks/{bank_id}/reflect``."""

    path = "/banks/{bank_id:str}/reflect"

    @get("/", name="console:reflect")
    async def reflect(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Without ``q`` the form; with it, the answer, its evidence and its trace."""
        rt = runtime(request)
        await rt.banks.get(bank_id)
        text = query(request, "q", max_length=rt.settings.max_query_chars)
        answer = None
        if text:
            values: dict[str, Any] = {
                "query": text,
                "budget": choice(request, "budget", BUDGETS) or "mid",
                "include": {"facts": {}},
                "trace": True,
            }
            answer = await rt.reflect.reflect(bank_id, convert(values, ReflectRequest))
        return render(request, "reflect.html", q=text or "", answer=answer, budgets=BUDGETS)


class MentalModelPages(Controller):
    """``/console/banks/{bank_id}/mental-models``."""

    path = "/banks/{bank_id:str}/mental-models"

    @get("/", name="console:mental-models")
    async def models(self, request: AnyRequest, bank_id: BankId) -> Template:
        """A bank's mental models, paged, and a form to add one."""
        page = await runtime(request).mental_models.page(
            bank_id, detail="metadata", limit=MODELS_PER_PAGE, offset=offset_of(request)
        )
        return render(
            request,
            "mental_models.html",
            page=page,
            paging=paging(request, total=page.total, limit=MODELS_PER_PAGE),
        )

    @post("/", name="console:mental-model-create")
    async def create(self, request: AnyRequest, bank_id: BankId) -> Redirect:
        """Create a model from a name and a question; its page is written in the background."""
        data = await form(request)
        made = await runtime(request).mental_models.create(
            bank_id,
            convert(
                {
                    "name": field(data, "name", required=True),
                    "source_query": field(data, "source_query", required=True),
                },
                CreateMentalModelRequest,
            ),
        )
        return redirect(f"/console/banks/{bank_id}/mental-models/{made.mental_model_id}", "queued")

    @get("/{model_id:str}", name="console:mental-model")
    async def model(self, request: AnyRequest, bank_id: BankId, model_id: ItemId) -> Template:
        """The page rendered, section by section, with its evidence and its versions."""
        rt = runtime(request)
        model = await rt.mental_models.get(bank_id, model_id, "full")
        versions = await rt.mental_models.history(bank_id, model_id)
        return render(
            request,
            "mental_model.html",
            model=model,
            versions=versions[:VERSIONS_SHOWN],
            versions_total=len(versions),
        )

    @post("/{model_id:str}/refresh", name="console:mental-model-refresh")
    async def refresh(self, request: AnyRequest, bank_id: BankId, model_id: ItemId) -> Redirect:
        """Queue a refresh (full or delta); the page shows the new version when it is done."""
        data = await form(request)
        mode = field(data, "mode")
        refresh = convert({"mode": mode} if mode else {}, RefreshMentalModelRequest)
        await runtime(request).mental_models.refresh(bank_id, model_id, refresh)
        return redirect(f"/console/banks/{bank_id}/mental-models/{model_id}", "queued")
