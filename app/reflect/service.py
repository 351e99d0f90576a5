"""Reflect: an answer drawn from one bank, with the evidence it rests on.

Order of work for one request::

    check ─ bank config ─┬─ matching mental models (consulted first)
                         └─ LLM configured?  yes: agent loop over the bank's tools
                                             no:  recall observations ┐ extractive answer
                                                  recall facts ───────┘ (app.reflect.extractive)
                         ─ citations kept or dropped ─ structured output? ─ answer

Reflect reads one bank and writes nothing. With an LLM, a failed model call (timeout, HTTP
error) does not fail the request: the offline answer is returned and the trace says why.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.domain.banks import BankConfig, BankDirectory
from app.domain.facts import FACT_TYPES, FactType
from app.errors import InvalidInput
from app.recall.entities import NameIndexLookup
from app.recall.ports import EntityFinder, GraphReader, QueryEmbedder
from app.recall.rows import listed
from app.recall.schemas import RecallRequest
from app.recall.service import RecallService
from app.reflect.agent import AgentFailed, AgentLoop, AgentOutcome, system_prompt, user_prompt
from app.reflect.budget import ReflectBudget, budget_for
from app.reflect.citations import NOT_IN_BANK, keep_citations, remove_citations
from app.reflect.extractive import Evidence, answer, select
from app.reflect.model_index import MentalModelIndex, ModelMatch
from app.reflect.schemas import (
    DroppedCitation,
    ReflectBasedOn,
    ReflectLLMCall,
    ReflectMentalModel,
    ReflectRequest,
    ReflectResponse,
    ReflectToolCall,
    ReflectTrace,
    TokenUsage,
)
from app.reflect.tools import ReadScope, Toolbox, evidence_rows
from app.store.llm import LLM_FAILURES, CallLog, LlmClient, json_schema_problem

# The whole agent loop of one reflect must finish within this (MNEMO_REFLECT_TIMEOUT_S).
DEFAULT_TIMEOUT_S = 120.0


@dataclass
class Reflection:
    """One reflect's result before it is shaped for the API (mental models read it too)."""

    text: str
    evidence: list[Evidence]
    models: list[ModelMatch]
    mode: str
    structured_output: dict[str, Any] | None = None
    structured_output_error: str | None = None
    tool_calls: list[ReflectToolCall] = field(default_factory=list)
    llm_calls: list[ReflectLLMCall] = field(default_factory=list)
    iterations: int = 0
    dropped: list[DroppedCitation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)


class _Clock:
    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}

    def mark(self, name: str, since: float) -> None:
        self.timings[name] = round((time.perf_counter() - since) * 1000.0, 3)


class ReflectService:
    """Answers questions from a bank (``POST .../reflect``)."""

    def __init__(
        self,
        *,
        recall: RecallService,
        graph: GraphReader,
        banks: BankDirectory,
        embedder: QueryEmbedder,
        llm: LlmClient | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        entity_finder: EntityFinder | None = None,
    ) -> None:
        self._recall = recall
        self._graph = graph
        self._banks = banks
        self._embedder = embedder
        self._llm = llm
        self._timeout_s = timeout_s
        self._entities = entity_finder or NameIndexLookup(graph)
        self.models = MentalModelIndex(graph)

    @property
    def llm_configured(self) -> bool:
        """True when answers come from the agent loop rather than the extractive default."""
        return self._llm is not None

    def check(self, request: ReflectRequest) -> None:
        """Refuse what cannot be answered, naming the field (400)."""
        self._recall.check(RecallRequest(query=request.query))
        if request.tag_groups:
            raise InvalidInput(
                "tag_groups is not supported; filter with tags and tags_match",
                extra={"field": "tag_groups"},
            )
        if request.response_schema is not None:
            if self._llm is None:
                raise InvalidInput(
                    "response_schema needs an LLM: structured_output is written by a model from "
                    "the answer, and the offline answer only quotes memories. Set "
                    "MNEMO_LLM_BASE_URL, or leave response_schema out.",
                    extra={"field": "response_schema"},
                )
            problem = json_schema_problem(request.response_schema)
            if problem:
                raise InvalidInput(
                    f"response_schema is {problem}", extra={"field": "response_schema"}
                )

    async def reflect(self, bank_id: str, request: ReflectRequest) -> ReflectResponse:
        """Answer one reflect request."""
        result = await self.answer(bank_id, request)
        return shape(result, request)

    async def answer(
        self, bank_id: str, request: ReflectRequest, *, exclude_models: Collection[str] = ()
    ) -> Reflection:
        """Answer and keep everything the response or a mental model page may need.

        ``exclude_models``: mental models that must not be consulted (a model being refreshed
        never reads itself).
        """
        self.check(request)
        clock = _Clock()
        bank = await self._banks.config(bank_id)
        budget = budget_for(request.budget)
        tools = self._toolbox(_scope(bank_id, request, exclude_models), budget)
        if self._llm is None:
            result = await self._extractive(tools, request, budget, clock)
        else:
            result = await self._agent(self._llm, bank, tools, request, budget, clock)
        clock.mark("total", clock.started)
        result.timings_ms = {**clock.timings, **result.timings_ms}
        return result

    async def gather(
        self, bank_id: str, request: ReflectRequest, *, exclude_models: Collection[str] = ()
    ) -> list[Evidence]:
        """The evidence the offline answer would quote, without writing an answer.

        Observations first, then facts by source: what a delta refresh offers the model.
        """
        budget = budget_for(request.budget)
        tools = self._toolbox(_scope(bank_id, request, exclude_models), budget)
        observations, facts = await self._recall_both(tools, request.query)
        return [f for item in select(observations, facts, budget.quotes) for f in item.facts]

    def _toolbox(self, scope: ReadScope, budget: ReflectBudget) -> Toolbox:
        return Toolbox(
            recall=self._recall,
            graph=self._graph,
            entities=self._entities,
            models=self.models,
            embedder=self._embedder,
            scope=scope,
            budget=budget,
        )

    async def _recall_both(
        self, tools: Toolbox, query: str
    ) -> tuple[list[Evidence], list[Evidence]]:
        """Observations (with their own token budget) and facts, recalled concurrently."""
        scope = tools.scope
        observations, facts = await asyncio.gather(
            self._observations(tools, query),
            tools.recall_evidence(query, [t for t in scope.fact_types if t != "observation"]),
        )
        return observations, facts

    async def _observations(self, tools: Toolbox, query: str) -> list[Evidence]:
        """Recalled observations; none without a recall when the bank holds none."""
        scope = tools.scope
        if "observation" not in scope.fact_types:
            return []
        rows = await self._graph.run("reflect/has_observations", {"bank_id": scope.bank_id})
        if not rows or not rows[0]["found"]:
            return []
        return await tools.recall_evidence(
            query, ["observation"], max_tokens=scope.observation_tokens
        )

    # -- offline ------------------------------------------------------------------------------

    async def _extractive(
        self, tools: Toolbox, request: ReflectRequest, budget: ReflectBudget, clock: _Clock
    ) -> Reflection:
        start = time.perf_counter()
        (observations, facts), models = await asyncio.gather(
            self._recall_both(tools, request.query), self._consult(tools.scope, request.query)
        )
        clock.mark("recall", start)
        return self._quoted(request, budget, observations, facts, models, notes=[])

    def _quoted(
        self,
        request: ReflectRequest,
        budget: ReflectBudget,
        observations: Sequence[Evidence],
        facts: Sequence[Evidence],
        models: list[ModelMatch],
        *,
        notes: list[str],
    ) -> Reflection:
        items = select(observations, facts, budget.quotes)
        preface = [
            f"A standing answer matches this question: **{m.name}** (mental model `{m.id}`)."
            for m in models
        ]
        text, quoted = answer(request.query, items, max_tokens=request.max_tokens, preface=preface)
        return Reflection(text=text, evidence=quoted, models=models, mode="extractive", notes=notes)

    async def _consult(self, scope: ReadScope, query: str) -> list[ModelMatch]:
        if not scope.mental_models:
            return []
        return await self.models.matching(
            scope.bank_id,
            lambda: self.embed(query),
            tags=scope.tags,
            mode=scope.tags_match,
            exclude=scope.excluded_models,
        )

    # -- with an LLM --------------------------------------------------------------------------

    async def _agent(
        self,
        llm: LlmClient,
        bank: BankConfig,
        tools: Toolbox,
        request: ReflectRequest,
        budget: ReflectBudget,
        clock: _Clock,
    ) -> Reflection:
        start = time.perf_counter()
        models = await self._consult(tools.scope, request.query)
        clock.mark("consult", start)
        for model in models:
            tools.mental_models.setdefault(model.id, model)
        loop = AgentLoop(
            llm,
            tools,
            budget,
            max_tokens=request.max_tokens,
            deadline_s=self._timeout_s,
            tool_output=request.include is None
            or request.include.tool_calls is None
            or request.include.tool_calls.output,
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(bank)},
            {"role": "user", "content": user_prompt(request.query, request.context, models)},
        ]
        start = time.perf_counter()
        try:
            outcome = await loop.run(messages)
        except AgentFailed as failed:
            clock.mark("agent", start)
            # The model let us down: the offline answer still holds, and the trace says why.
            fallback = await self._extractive(tools, request, budget, clock)
            fallback.notes.insert(0, f"LLM failed ({failed.detail}); extractive answer instead")
            fallback.tool_calls, fallback.llm_calls = failed.tools, failed.calls
            fallback.usage = _usage(loop.call)
            if request.response_schema is not None:
                fallback.structured_output_error = f"no answer to structure: {failed.detail}"
            return fallback
        clock.mark("agent", start)
        start = time.perf_counter()
        result = await self._cited(tools, outcome, models)
        clock.mark("citations", start)
        calls = [loop.call]
        if request.response_schema is not None:
            start = time.perf_counter()
            await self._structure(llm, request, result, calls)
            clock.mark("structured_output", start)
        result.usage = _usage(*calls)
        return result

    async def _cited(
        self, tools: Toolbox, outcome: AgentOutcome, consulted: list[ModelMatch]
    ) -> Reflection:
        """Keep the citations a tool returned in this call and that are memories of the bank."""
        kept, dropped = keep_citations(outcome.memory_ids, tools.memories)
        evidence = await tools.hydrate(kept)
        found = {e.id for e in evidence}
        dropped += [DroppedCitation(id=i, reason=NOT_IN_BANK) for i in kept if i not in found]
        models = list(consulted)
        for model_id in outcome.mental_model_ids:
            match = tools.mental_models.get(model_id)
            if match is not None and match not in models:
                models.append(match)
        return Reflection(
            text=remove_citations(outcome.answer, [d.id for d in dropped]),
            evidence=evidence,
            models=models,
            mode="agent",
            tool_calls=outcome.tool_calls,
            llm_calls=outcome.llm_calls,
            iterations=outcome.iterations,
            dropped=dropped,
            notes=outcome.notes,
        )

    async def _structure(
        self, llm: LlmClient, request: ReflectRequest, result: Reflection, calls: list[CallLog]
    ) -> None:
        """Fill ``structured_output`` from the answer, validated against the caller's schema."""
        assert request.response_schema is not None
        call = CallLog()
        calls.append(call)
        evidence = "\n".join(f"- [{e.id}] {e.text}" for e in result.evidence)
        messages = [
            {
                "role": "system",
                "content": "Fill the JSON schema from the answer and its evidence below. Use "
                "only what they say; leave out what they do not say when the schema allows.",
            },
            {
                "role": "user",
                "content": f"Question: {request.query}\n\nAnswer:\n{result.text}\n\n"
                f"Evidence:\n{evidence or '(none)'}",
            },
        ]
        start = time.perf_counter()
        error: str | None = None
        try:
            result.structured_output = await llm.structured_json(
                request.response_schema, messages, call
            )
        except LLM_FAILURES as exc:
            error = llm.describe_failure(exc, call)
            result.structured_output_error = error
        result.llm_calls.append(
            ReflectLLMCall(
                scope="structured_output",
                duration_ms=round((time.perf_counter() - start) * 1000),
                input_tokens=call.prompt_tokens,
                output_tokens=call.completion_tokens,
                error=error,
            )
        )

    async def memories(self, bank_id: str, ids: Sequence[str]) -> list[Evidence]:
        """Valid memories of the bank among ``ids``, in that order."""
        if not ids:
            return []
        rows = await self._graph.run("reflect/memories", {"bank_id": bank_id, "ids": list(ids)})
        return evidence_rows(listed(rows, "memories"))

    async def embed(self, text: str) -> list[float]:
        """The embedding mental models are matched by."""
        vector = await self._embedder.embed_one(text)
        values: list[float] = vector.tolist()
        return values


def _scope(bank_id: str, request: ReflectRequest, exclude_models: Collection[str]) -> ReadScope:
    types: tuple[FactType, ...] = (
        tuple(dict.fromkeys(request.fact_types)) if request.fact_types else FACT_TYPES
    )
    return ReadScope(
        bank_id=bank_id,
        budget=request.budget,
        tags=list(dict.fromkeys(request.tags)) if request.tags else None,
        tags_match=request.tags_match,
        fact_types=types,
        query_timestamp=request.query_timestamp,
        observation_tokens=request.reflect_search_observations_max_tokens,
        observation_entities=request.reflect_search_observations_include_entities is not False,
        mental_models=not request.exclude_mental_models,
        excluded_models=frozenset([*(request.exclude_mental_model_ids or ()), *exclude_models]),
    )


def _usage(*calls: CallLog) -> TokenUsage:
    prompt = sum(c.prompt_tokens for c in calls)
    completion = sum(c.completion_tokens for c in calls)
    return TokenUsage(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def based_on(result: Reflection) -> ReflectBasedOn:
    """Exactly what the answer quotes or cites, and the mental models it consulted."""
    return ReflectBasedOn(
        memories=list(result.evidence),
        mental_models=[
            ReflectMentalModel(id=m.id, text=m.content, name=m.name) for m in result.models
        ],
    )


def shape(result: Reflection, request: ReflectRequest) -> ReflectResponse:
    """The API's answer: evidence when ``include.facts``, trace when asked for."""
    include = request.include
    with_trace = request.trace or (include is not None and include.tool_calls is not None)
    trace = None
    if with_trace:
        trace = ReflectTrace(
            tool_calls=result.tool_calls,
            llm_calls=result.llm_calls,
            mode="agent" if result.mode == "agent" else "extractive",
            iterations=result.iterations,
            dropped_citations=result.dropped,
            timings_ms=result.timings_ms,
            notes=result.notes,
        )
    return ReflectResponse(
        text=result.text,
        based_on=based_on(result) if include is not None and include.facts is not None else None,
        structured_output=result.structured_output,
        structured_output_error=result.structured_output_error,
        usage=result.usage,
        trace=trace,
    )
