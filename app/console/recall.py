"""Console recall playground: a query with the API's options, and why each fact came back."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, get
from litestar.response import Template

from app.api.deps import BankId
from app.console.common import AnyRequest, choice, convert, query, render, runtime
from app.console.memories import FACT_TYPES, TAGS_MATCH
from app.recall.candidates import CHANNELS
from app.recall.schemas import RecallRequest, RecallResult

BUDGETS = ("low", "mid", "high")


class FusedRow(msgspec.Struct, frozen=True, kw_only=True):
    """One fused fact as the playground lists it: kept in the answer or cut by the budget."""

    position: int
    id: str
    final: float
    rrf: float
    hits: dict[str, Any]
    boosts: dict[str, float]
    result: RecallResult | None


def recall_request(request: AnyRequest, text: str) -> RecallRequest:
    """The playground's form as a recall request with the trace on."""
    values: dict[str, Any] = {"query": text, "trace": True}
    values["budget"] = choice(request, "budget", BUDGETS) or "mid"
    if max_tokens := query(request, "max_tokens", max_length=10):
        numeric = max_tokens.isascii() and max_tokens.isdecimal()
        values["max_tokens"] = int(max_tokens) if numeric else max_tokens
    types = [t for t in request.query_params.getall("type", []) if t]
    if types:
        values["types"] = types
    if tag := query(request, "tag", max_length=200):
        values["tags"] = [tag]
        values["tags_match"] = choice(request, "tags_match", TAGS_MATCH) or "any"
    if at := query(request, "at", max_length=40):
        values["query_timestamp"] = at
    return convert(values, RecallRequest)


class RecallPage(Controller):
    """``/console/banks/{bank_id}/recall``."""

    path = "/banks/{bank_id:str}/recall"

    @get("/", name="console:recall")
    async def recall(self, request: AnyRequest, bank_id: BankId) -> Template:
        """Without ``q`` the empty form; with it, the answer, ranks per channel and timings."""
        rt = runtime(request)
        await rt.banks.get(bank_id)
        text = query(request, "q", max_length=rt.settings.max_query_chars)
        context: dict[str, Any] = {
            "q": text or "",
            "budgets": BUDGETS,
            "fact_types": FACT_TYPES,
            "tags_matches": TAGS_MATCH,
            "channels": CHANNELS,
            "answer": None,
        }
        if text:
            req = recall_request(request, text)
            answer = await rt.recall.recall(bank_id, req)
            context.update(answer=answer, req=req, rows=_rows(answer.results, answer.trace))
        return render(request, "recall.html", **context)


def _rows(results: list[RecallResult], trace: Any) -> list[FusedRow]:
    by_id = {r.id: r for r in results}
    if trace is None:
        return []
    rows: list[FusedRow] = []
    for i, fused in enumerate(trace.fusion, start=1):
        rows.append(
            FusedRow(
                position=i,
                id=fused.id,
                final=fused.final,
                rrf=fused.rrf,
                hits={c: h for c, h in fused.channels.items()},
                boosts=msgspec.structs.asdict(fused.boosts),
                result=by_id.get(fused.id),
            )
        )
    return rows
