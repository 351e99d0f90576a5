"""Mental models: standing answers, written by reflect, refreshed, versioned, read in one query.

A model is a question (``source_query``) and a page of sections with stable ids
(:mod:`app.reflect.sections`). Creating or refreshing one queues an operation
(``refresh_mental_model``); the operation runs reflect on the question and writes a new
version when the page changed:

- **full** (LLM): the agent's answer becomes the page; sections keep their ids by title.
- **delta** (LLM): the model gets the current sections and the evidence that arrived since the
  last refresh and answers with edit operations by section id; untouched sections stay
  byte-for-byte the same, invalid operations are skipped and listed. Without content or after
  the question changed, a delta refresh runs as a full one.
- **offline**: the page is laid out from reflect's extractive answer (:mod:`app.reflect.pages`)
  and applied to the stored page as operations, so history shows what changed by section.

Each version is a ``MentalModelVersion`` node; ``(:MentalModel)-[:BASED_ON]->(:Memory)`` links
the evidence of the current version. Consolidation calls :meth:`MentalModelService.
after_consolidation` after a run with the memories it touched; models whose trigger asks for it
and that would read one of them are refreshed, no more often than their minimum interval.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import msgspec
from msgspec import UNSET
from pydantic import Field

from app.domain.events import EventSink, NoEvents
from app.domain.tags import TagsMatch
from app.errors import Conflict, InvalidInput, MnemoError, NotFound
from app.recall.rows import listed
from app.reflect.extractive import Evidence
from app.reflect.model_index import question_text
from app.reflect.pages import offline_page
from app.reflect.schemas import (
    AsyncOperationSubmitResponse,
    CreateMentalModelRequest,
    CreateMentalModelResponse,
    DeltaOperations,
    Detail,
    MentalModelListResponse,
    MentalModelResponse,
    MentalModelTrigger,
    MentalModelTriggerInput,
    MentalModelVersion,
    ReflectInclude,
    ReflectRequest,
    RefreshMentalModelRequest,
    RefreshMode,
    Section,
    SectionChange,
    UpdateMentalModelRequest,
)
from app.reflect.sections import (
    apply_operations,
    apply_with_ids,
    compare,
    operations_between,
    page_memory_ids,
    parse,
    render,
)
from app.reflect.service import Reflection, ReflectService, based_on
from app.reflect.tools import evidence_rows
from app.retain.operations import WorkOutcome
from app.store.graph import Graph, Tx
from app.store.llm import LLM_FAILURES, CallLog, LlmClient, RepairingModel

log = logging.getLogger(__name__)

REFRESH = "refresh_mental_model"
# A refresh that lost a race with another writer of the same model reads it again this often.
REFRESH_ATTEMPTS = 3
_UNSUPPORTED_TRIGGER = ("refresh_cron", "full_refresh_cron", "tag_groups", "response_schema")


class Operations(Protocol):
    """Where refreshes are queued (``app.retain.operations.OperationRunner``)."""

    async def submit_work(self, bank_id: str, kind: str, request_json: str) -> str:
        """Record and queue an operation; its id."""
        ...


class RefreshRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What a refresh operation records: which model, why, and a mode override."""

    mental_model_id: str
    reason: str
    mode: RefreshMode | None = None


class RefreshOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What one refresh did (Hindsight's outcome names)."""

    mental_model_id: str
    outcome: str
    mode: str
    version: int
    fallback_reason: str | None = None
    skipped_operations: list[dict[str, Any]] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class ConsolidationRefresh(msgspec.Struct, frozen=True, kw_only=True):
    """What :meth:`MentalModelService.after_consolidation` queued and what it left alone."""

    queued: dict[str, str] = msgspec.field(default_factory=dict)
    skipped: dict[str, str] = msgspec.field(default_factory=dict)


class MentalModelDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """What deleting a model removed."""

    mental_model_id: str
    deleted_versions: int


class _Stored(msgspec.Struct, kw_only=True):
    """A MentalModel node's properties as stored."""

    id: str
    bank_id: str
    name: str
    source_query: str
    created_at: datetime
    tags: list[str] = msgspec.field(default_factory=list)
    max_tokens: int = 2048
    trigger_json: str = "{}"
    content: str = ""
    sections_json: str = "[]"
    version: int = 0
    refreshed_query: str | None = None
    last_refreshed_at: datetime | None = None
    last_full_refreshed_at: datetime | None = None
    last_refresh_failed_at: datetime | None = None
    last_memory_seen_at: datetime | None = None
    last_operation_id: str | None = None
    refresh_error: str | None = None
    trace_json: str | None = None

    @property
    def trigger(self) -> MentalModelTrigger:
        return msgspec.json.decode(self.trigger_json, type=MentalModelTrigger)

    @property
    def sections(self) -> list[Section]:
        return msgspec.json.decode(self.sections_json, type=list[Section])


class _Row(msgspec.Struct):
    model: _Stored
    memories: list[dict[str, Any]] = msgspec.field(default_factory=list)


class _ListRow(msgspec.Struct):
    total: int
    items: list[_Stored]


class _Candidate(msgspec.Struct, kw_only=True):
    id: str
    source_query: str
    trigger_json: str = "{}"
    tags: list[str] = msgspec.field(default_factory=list)
    last_refreshed_at: datetime | None = None
    memory_ids: list[str] = msgspec.field(default_factory=list)


class _VersionProps(msgspec.Struct, kw_only=True):
    version: int
    created_at: datetime
    content: str
    previous_content: str | None = None
    reason: str = "refresh"
    mode: str = "full"
    changes_json: str = "[]"
    unchanged_sections: int = 0
    delta_json: str | None = None
    memory_ids: list[str] = msgspec.field(default_factory=list)
    operation_id: str | None = None


class _DeltaPlan(RepairingModel):
    """A delta refresh's answer: edit operations by section id (checked when applied)."""

    operations: list[dict[str, Any]] = Field(default_factory=list)


DELTA_INSTRUCTIONS = """\
You keep a knowledge page current. It answers a standing question from a memory bank and is \
made of sections, each with a stable id. New memories arrived since the page was written. \
Answer with edit operations, as JSON {"operations": [...]}, that bring the page up to date \
with the new memories; leave sections the new memories do not affect alone (no operation). \
Operations: {"op": "add", "title", "text", "after": section id or null for first, \
"memory_ids"}, {"op": "replace", "id", "text", "memory_ids"}, {"op": "append", "id", "text", \
"memory_ids"}, {"op": "remove", "id"}, {"op": "rename", "id", "title"}, {"op": "move", "id", \
"after"}. Texts are Markdown that cite memories as [id]; memory_ids lists the memories a text \
rests on, from the new memories or those the section already cites. Return {"operations": []} \
when nothing needs to change."""


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Draft:
    """A refresh's new page before it is saved."""

    sections: list[Section]
    mode: str
    fallback_reason: str | None = None
    delta: DeltaOperations | None = None
    reflection: Reflection | None = None
    unchanged_reason: str | None = None


class MentalModelService:
    """CRUD, refresh and history of a bank's mental models."""

    def __init__(
        self,
        *,
        graph: Graph,
        reflect: ReflectService,
        operations: Operations,
        llm: LlmClient | None = None,
        events: EventSink | None = None,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._graph = graph
        self._reflect = reflect
        self._operations = operations
        self._llm = llm
        self._events: EventSink = events or NoEvents()
        self._clock = clock

    # -- CRUD ---------------------------------------------------------------------------------

    async def create(
        self, bank_id: str, request: CreateMentalModelRequest
    ) -> CreateMentalModelResponse:
        """Record the model and queue the operation that writes its first version."""
        query = self._source_query(request.source_query)
        trigger = merge_trigger(MentalModelTrigger(), request.trigger)
        model_id = request.id or str(uuid.uuid4())
        props = {
            "name": request.name,
            "source_query": query,
            "tags": list(dict.fromkeys(request.tags or ())),
            "max_tokens": request.max_tokens,
            "trigger_json": msgspec.json.encode(trigger).decode(),
            "refresh_after_consolidation": trigger.refresh_after_consolidation,
            "embedding": await self._reflect.embed(question_text(request.name, query)),
            "content": "",
            "sections_json": "[]",
        }

        async def work(tx: Tx) -> list[dict[str, Any]]:
            return await tx.run(
                "mental_models/create", {"bank_id": bank_id, "id": model_id, "props": props}
            )

        if not await self._graph.write(bank_id, work):
            raise Conflict(
                f"mental model {model_id!r} exists in bank {bank_id!r}", extra={"field": "id"}
            )
        operation_id = await self._queue(bank_id, model_id, "created", None)
        return CreateMentalModelResponse(mental_model_id=model_id, operation_id=operation_id)

    async def get(
        self, bank_id: str, model_id: str, detail: Detail = "full"
    ) -> MentalModelResponse:
        """One model, read with one query (no recall, no LLM)."""
        row = await self._graph.row("mental_models/get", {"bank_id": bank_id, "id": model_id}, _Row)
        if row is None:
            await self._require_bank(bank_id)
            raise NotFound(f"mental model {model_id!r} not found in bank {bank_id!r}")
        return _response(row.model, detail, row.memories)

    async def page(
        self,
        bank_id: str,
        *,
        tags: Sequence[str] | None = None,
        tags_match: TagsMatch = "any",
        detail: Detail = "metadata",
        limit: int = 100,
        offset: int = 0,
    ) -> MentalModelListResponse:
        """A bank's models, oldest first; tags filter them with recall's semantics."""
        await self._require_bank(bank_id)
        row = await self._graph.row(
            "mental_models/list",
            {
                "bank_id": bank_id,
                "tags": list(tags) if tags else None,
                "tags_match": tags_match,
                "offset": offset,
                "limit": limit,
            },
            _ListRow,
        )
        items = [] if row is None else [_response(m, detail, None) for m in row.items]
        total = 0 if row is None else row.total
        return MentalModelListResponse(items=items, total=total, limit=limit, offset=offset)

    async def patch(
        self, bank_id: str, model_id: str, request: UpdateMentalModelRequest
    ) -> MentalModelResponse:
        """Change the fields sent; a new question gets a new embedding."""
        current = await self._stored(bank_id, model_id)
        props: dict[str, Any] = {}
        if request.name is not UNSET:
            props["name"] = request.name
        if request.source_query is not UNSET:
            props["source_query"] = self._source_query(request.source_query)
        if request.max_tokens is not UNSET:
            props["max_tokens"] = request.max_tokens
        if request.tags is not UNSET:
            props["tags"] = list(dict.fromkeys(request.tags or ()))
        if request.trigger is not UNSET:
            trigger = merge_trigger(current.trigger, request.trigger)
            props["trigger_json"] = msgspec.json.encode(trigger).decode()
            props["refresh_after_consolidation"] = trigger.refresh_after_consolidation
        if "name" in props or "source_query" in props:
            props["embedding"] = await self._reflect.embed(
                question_text(
                    props.get("name", current.name), props.get("source_query", current.source_query)
                )
            )
        if props:
            await self._update(bank_id, model_id, props)
        return await self.get(bank_id, model_id, "content")

    async def delete(self, bank_id: str, model_id: str) -> MentalModelDeleted:
        """Delete the model and its versions; memories stay."""

        async def work(tx: Tx) -> list[dict[str, Any]]:
            return await tx.run("mental_models/delete", {"bank_id": bank_id, "id": model_id})

        rows = await self._graph.write(bank_id, work)
        if not rows:
            raise NotFound(f"mental model {model_id!r} not found in bank {bank_id!r}")
        return MentalModelDeleted(mental_model_id=model_id, deleted_versions=rows[0]["versions"])

    async def refresh(
        self, bank_id: str, model_id: str, request: RefreshMentalModelRequest | None = None
    ) -> AsyncOperationSubmitResponse:
        """Queue a refresh (``mode`` overrides the model's own this once)."""
        await self._stored(bank_id, model_id)
        mode = request.mode if request is not None else None
        operation_id = await self._queue(bank_id, model_id, "refresh", mode)
        return AsyncOperationSubmitResponse(operation_id=operation_id, status="queued")

    async def history(self, bank_id: str, model_id: str) -> list[MentalModelVersion]:
        """Every version, newest first: when, why, how, and what changed by section."""
        rows = await self._graph.run("mental_models/versions", {"bank_id": bank_id, "id": model_id})
        if not rows:
            await self._require_bank(bank_id)
            raise NotFound(f"mental model {model_id!r} not found in bank {bank_id!r}")
        versions = msgspec.convert(rows[0]["versions"], list[_VersionProps], strict=False)
        return [_version(v) for v in versions]

    # -- consolidation ------------------------------------------------------------------------

    async def after_consolidation(
        self, bank_id: str, memory_ids: Collection[str]
    ) -> ConsolidationRefresh:
        """Queue refreshes of the models a consolidation run affects.

        Call it after a consolidation run with the ids of the memories the run created,
        changed or deleted (observations and their source facts). A model whose trigger has
        ``refresh_after_consolidation`` is refreshed when one of them is among its current
        evidence or among what it would read now (its question recalled with its scope), and
        its last refresh is at least ``min_refresh_interval_seconds`` old.
        """
        touched = set(memory_ids)
        queued: dict[str, str] = {}
        skipped: dict[str, str] = {}
        if not touched:
            return ConsolidationRefresh()
        rows = await self._graph.run("mental_models/consolidation_candidates", {"bank_id": bank_id})
        now = self._clock()
        for model in msgspec.convert(listed(rows, "models"), list[_Candidate], strict=False):
            trigger = msgspec.json.decode(model.trigger_json, type=MentalModelTrigger)
            wait = _interval_left(trigger, model.last_refreshed_at, now)
            if wait is not None:
                skipped[model.id] = (
                    f"refreshed less than min_refresh_interval_seconds "
                    f"({trigger.min_refresh_interval_seconds}) ago; next in {wait:.0f} s"
                )
                continue
            if touched.isdisjoint(model.memory_ids):
                would_read = await self._reflect.gather(
                    bank_id,
                    _reflect_request(model.source_query, model.tags, trigger, None),
                    exclude_models={model.id},
                )
                if touched.isdisjoint(e.id for e in would_read):
                    skipped[model.id] = "reads none of the memories the run touched"
                    continue
            queued[model.id] = await self._queue(bank_id, model.id, "consolidation", None)
        return ConsolidationRefresh(queued=queued, skipped=skipped)

    # -- refreshing ---------------------------------------------------------------------------

    async def run_operation(
        self, bank_id: str, operation_id: str, request_json: str
    ) -> WorkOutcome:
        """The ``refresh_mental_model`` operation handler (``OperationRunner.register``)."""
        request = msgspec.json.decode(request_json, type=RefreshRequest)
        try:
            outcome = await self.refresh_now(
                bank_id,
                request.mental_model_id,
                reason=request.reason,
                mode=request.mode,
                operation_id=operation_id,
            )
        except MnemoError as exc:
            return WorkOutcome(failed=True, errors=[exc.detail])
        self._events.emit(
            bank_id,
            "mental_model.refreshed",
            {
                "mental_model_id": outcome.mental_model_id,
                "operation_id": operation_id,
                "reason": request.reason,
                "outcome": outcome.outcome,
                "mode": outcome.mode,
                "version": outcome.version,
            },
        )
        warnings = [f"outcome: {outcome.outcome} ({outcome.mode}, version {outcome.version})"]
        if outcome.fallback_reason:
            warnings.append(f"delta refresh ran as full: {outcome.fallback_reason}")
        warnings += [
            f"skipped operation {op.get('op')!r} on {op.get('id', op.get('title'))!r}: "
            f"{op['reason']}"
            for op in outcome.skipped_operations
        ]
        warnings += outcome.warnings
        return WorkOutcome(failed=outcome.outcome.startswith("refresh_failed"), warnings=warnings)

    async def refresh_now(
        self,
        bank_id: str,
        model_id: str,
        *,
        reason: str = "refresh",
        mode: RefreshMode | None = None,
        operation_id: str | None = None,
    ) -> RefreshOutcome:
        """Refresh one model now; a version is written only when the page changed."""
        for attempt in range(1, REFRESH_ATTEMPTS + 1):
            model = await self._stored(bank_id, model_id)
            try:
                draft = await self._draft(bank_id, model, mode)
            except LLM_FAILURES as exc:
                return await self._failed(bank_id, model, f"LLM: {type(exc).__name__}: {exc}")
            except MnemoError as exc:
                return await self._failed(bank_id, model, exc.detail)
            try:
                return await self._save(bank_id, model, draft, reason, operation_id)
            except Conflict:
                if attempt == REFRESH_ATTEMPTS:
                    raise
                log.info("mental model %s changed during its refresh; refreshing again", model_id)
        raise AssertionError("unreachable")

    async def _draft(self, bank_id: str, model: _Stored, override: RefreshMode | None) -> _Draft:
        trigger = model.trigger
        wanted = override or trigger.mode
        current = model.sections
        fallback = None
        if wanted == "delta" and not current:
            fallback = "no_baseline_content"
        elif wanted == "delta" and model.refreshed_query not in (None, model.source_query):
            fallback = "source_query_changed"
        request = _reflect_request(model.source_query, model.tags, trigger, model.max_tokens)
        if self._llm is None:
            reflection = await self._reflect.answer(bank_id, request, exclude_models={model.id})
            page = offline_page(model.source_query, reflection.evidence)
            operations = operations_between(current, page)
            delta = None
            if wanted == "delta" and fallback is None:
                delta = DeltaOperations(applied=operations)
            return _Draft(
                sections=apply_with_ids(current, operations),
                mode="offline",
                delta=delta,
                reflection=reflection,
            )
        if wanted == "full" or fallback is not None:
            reflection = await self._reflect.answer(bank_id, request, exclude_models={model.id})
            page = parse(
                reflection.text, previous=current, memory_ids=[e.id for e in reflection.evidence]
            )
            return _Draft(
                sections=page, mode="full", fallback_reason=fallback, reflection=reflection
            )
        return await self._delta(bank_id, model, request, current)

    async def _delta(
        self, bank_id: str, model: _Stored, request: ReflectRequest, current: list[Section]
    ) -> _Draft:
        """Ask the model for edit operations against the page, from the new evidence only."""
        assert self._llm is not None
        offered = await self._reflect.gather(bank_id, request, exclude_models={model.id})
        since = model.last_refreshed_at
        if since is not None and offered:
            rows = await self._graph.run(
                "reflect/created_since",
                {"bank_id": bank_id, "ids": [e.id for e in offered], "since": since},
            )
            fresh = set(rows[0]["ids"]) if rows else set()
            offered = [e for e in offered if e.id in fresh]
        if not offered:
            return _Draft(
                sections=current, mode="delta", unchanged_reason="content_preserved_no_new_facts"
            )
        call = CallLog()
        plan = await self._llm.structured(
            _DeltaPlan, _delta_messages(model.source_query, current, offered), call
        )
        allowed = {e.id for e in offered} | set(page_memory_ids(current))
        sections, applied, skipped = apply_operations(current, plan.operations, allowed)
        return _Draft(
            sections=sections,
            mode="delta",
            delta=DeltaOperations(applied=applied, skipped=skipped),
        )

    async def _save(
        self,
        bank_id: str,
        model: _Stored,
        draft: _Draft,
        reason: str,
        operation_id: str | None,
    ) -> RefreshOutcome:
        now = self._clock()
        current = model.sections
        changes, unchanged = compare(current, draft.sections)
        status: dict[str, Any] = {
            "last_refreshed_at": now,
            "last_memory_seen_at": now,
            "refreshed_query": model.source_query,
            "last_operation_id": operation_id,
            "refresh_error": None,
        }
        if draft.mode == "full" or (draft.mode == "offline" and draft.delta is None):
            status["last_full_refreshed_at"] = now
        skipped = list(draft.delta.skipped) if draft.delta else []
        if draft.reflection is not None and model.trigger.keep_trace:
            status["trace_json"] = msgspec.json.encode(
                {"mode": draft.mode, "notes": draft.reflection.notes, "skipped": skipped}
            ).decode()
        if not changes and draft.sections == current:
            await self._update(bank_id, model.id, status)
            return RefreshOutcome(
                mental_model_id=model.id,
                outcome=draft.unchanged_reason or "content_unchanged",
                mode=draft.mode,
                version=model.version,
                fallback_reason=draft.fallback_reason,
                skipped_operations=skipped,
            )
        content = render(draft.sections)
        memory_ids = page_memory_ids(draft.sections)
        version_props = {
            "content": content,
            "previous_content": model.content or None,
            "sections_json": msgspec.json.encode(draft.sections).decode(),
            "reason": reason,
            "mode": draft.mode,
            "changes_json": msgspec.json.encode(changes).decode(),
            "unchanged_sections": unchanged,
            "delta_json": msgspec.json.encode(draft.delta).decode() if draft.delta else None,
            "memory_ids": memory_ids,
            "operation_id": operation_id,
        }
        props = {
            **status,
            "content": content,
            "sections_json": version_props["sections_json"],
        }

        async def work(tx: Tx) -> list[dict[str, Any]]:
            return await tx.run(
                "mental_models/save_version",
                {
                    "bank_id": bank_id,
                    "id": model.id,
                    "base_version": model.version,
                    "props": props,
                    "version_id": str(uuid.uuid4()),
                    "version_props": version_props,
                    "memory_ids": memory_ids,
                },
            )

        rows = await self._graph.write(bank_id, work)
        if not rows:
            raise Conflict(f"mental model {model.id!r} changed during its refresh")
        return RefreshOutcome(
            mental_model_id=model.id,
            outcome="content_written",
            mode=draft.mode,
            version=int(rows[0]["version"]),
            fallback_reason=draft.fallback_reason,
            skipped_operations=skipped,
        )

    async def _failed(self, bank_id: str, model: _Stored, why: str) -> RefreshOutcome:
        await self._update(
            bank_id, model.id, {"last_refresh_failed_at": self._clock(), "refresh_error": why}
        )
        return RefreshOutcome(
            mental_model_id=model.id,
            outcome="refresh_failed_error",
            mode=model.trigger.mode,
            version=model.version,
            warnings=[why],
        )

    # -- helpers ------------------------------------------------------------------------------

    def _source_query(self, text: str) -> str:
        """The question, refused as reflect would refuse it (empty, too long)."""
        try:
            self._reflect.check(ReflectRequest(query=text))
        except InvalidInput as exc:
            detail = exc.detail.replace("query", "source_query", 1)
            raise InvalidInput(
                detail, extra={**(exc.extra or {}), "field": "source_query"}
            ) from None
        return text.strip()

    async def _queue(
        self, bank_id: str, model_id: str, reason: str, mode: RefreshMode | None
    ) -> str:
        request = RefreshRequest(mental_model_id=model_id, reason=reason, mode=mode)
        return await self._operations.submit_work(
            bank_id, REFRESH, msgspec.json.encode(request).decode()
        )

    async def _stored(self, bank_id: str, model_id: str) -> _Stored:
        row = await self._graph.row("mental_models/get", {"bank_id": bank_id, "id": model_id}, _Row)
        if row is None:
            await self._require_bank(bank_id)
            raise NotFound(f"mental model {model_id!r} not found in bank {bank_id!r}")
        return row.model

    async def _update(self, bank_id: str, model_id: str, props: dict[str, Any]) -> None:
        async def work(tx: Tx) -> list[dict[str, Any]]:
            return await tx.run(
                "mental_models/update", {"bank_id": bank_id, "id": model_id, "props": props}
            )

        if not await self._graph.write(bank_id, work):
            raise NotFound(f"mental model {model_id!r} not found in bank {bank_id!r}")

    async def _require_bank(self, bank_id: str) -> None:
        rows = await self._graph.run("banks/exists", {"bank_id": bank_id})
        if not rows:
            raise NotFound(f"bank {bank_id!r} not found")


# -- pure helpers -----------------------------------------------------------------------------


def merge_trigger(
    stored: MentalModelTrigger, sent: MentalModelTriggerInput | None
) -> MentalModelTrigger:
    """``stored`` with the fields ``sent`` names; refuses what Mnemo does not do."""
    if sent is None:
        return stored
    changes: dict[str, Any] = {}
    for name in sent.__struct_fields__:
        value = getattr(sent, name)
        if value is UNSET:
            continue
        if name in _UNSUPPORTED_TRIGGER and value:
            raise InvalidInput(
                f"trigger.{name} is not supported by Mnemo",
                extra={"field": f"trigger.{name}"},
            )
        if name == "tags_match" and value is None:
            value = "any"
        changes[name] = value
    return msgspec.structs.replace(stored, **changes)


def _interval_left(
    trigger: MentalModelTrigger, last: datetime | None, now: datetime
) -> float | None:
    """Seconds until the model may refresh again, or None when it may now."""
    interval = trigger.min_refresh_interval_seconds
    if not interval or last is None:
        return None
    left = (last + timedelta(seconds=interval) - now).total_seconds()
    return left if left > 0 else None


def _reflect_request(
    query: str, tags: Sequence[str], trigger: MentalModelTrigger, max_tokens: int | None
) -> ReflectRequest:
    return ReflectRequest(
        query=query,
        budget=trigger.budget,
        max_tokens=max_tokens or 2048,
        include=ReflectInclude(facts={}),
        tags=list(tags) or None,
        tags_match=trigger.tags_match,
        fact_types=trigger.fact_types,
        exclude_mental_models=trigger.exclude_mental_models,
        exclude_mental_model_ids=trigger.exclude_mental_model_ids,
        reflect_search_observations_max_tokens=trigger.reflect_search_observations_max_tokens,
        reflect_search_observations_include_entities=(
            trigger.reflect_search_observations_include_entities
        ),
    )


def _delta_messages(
    query: str, sections: Sequence[Section], evidence: Sequence[Evidence]
) -> list[dict[str, str]]:
    page = "\n\n".join(
        f"[section id: {s.id}] (cites: {', '.join(s.memory_ids) or 'none'})\n## {s.title}\n\n"
        f"{s.text}"
        for s in sections
    )
    new = "\n".join(f"- [{e.id}] {e.text}" for e in evidence)
    return [
        {"role": "system", "content": DELTA_INSTRUCTIONS},
        {
            "role": "user",
            "content": f"Standing question: {query}\n\nCurrent page:\n\n{page}\n\n"
            f"New memories since the last refresh:\n{new}",
        },
    ]


def _response(
    stored: _Stored, detail: Detail, memories: list[dict[str, Any]] | None
) -> MentalModelResponse:
    failed, refreshed = stored.last_refresh_failed_at, stored.last_refreshed_at
    never_written = refreshed is None
    failed_last = failed is not None and (refreshed is None or failed > refreshed)
    base = MentalModelResponse(
        id=stored.id,
        bank_id=stored.bank_id,
        name=stored.name,
        source_query=stored.source_query,
        tags=stored.tags,
        last_refreshed_at=stored.last_refreshed_at,
        last_memory_seen_at=stored.last_memory_seen_at,
        last_refresh_failed_at=stored.last_refresh_failed_at,
        last_full_refreshed_at=stored.last_full_refreshed_at,
        created_at=stored.created_at,
        is_stale=never_written or failed_last,
        version=stored.version,
        last_operation_id=stored.last_operation_id,
    )
    if detail == "metadata":
        return base
    with_content = msgspec.structs.replace(
        base,
        content=stored.content,
        sections=stored.sections,
        max_tokens=stored.max_tokens,
        trigger=stored.trigger,
    )
    if detail == "content":
        return with_content
    evidence = evidence_rows(
        sorted(
            (m for m in memories or () if m.get("state") == "valid"),
            key=lambda m: m.get("rank", 0),
        )
    )
    reflection = Reflection(text=stored.content, evidence=evidence, models=[], mode="stored")
    reflect_response: dict[str, Any] = {
        "text": stored.content,
        "based_on": msgspec.to_builtins(based_on(reflection)),
    }
    if stored.trace_json:
        reflect_response["trace"] = msgspec.json.decode(stored.trace_json)
    if stored.refresh_error:
        reflect_response["last_refresh_error"] = stored.refresh_error
    return msgspec.structs.replace(with_content, reflect_response=reflect_response)


def _version(props: _VersionProps) -> MentalModelVersion:
    return MentalModelVersion(
        version=props.version,
        changed_at=props.created_at,
        previous_content=props.previous_content,
        content=props.content,
        reason=props.reason,
        mode=props.mode,
        changes=msgspec.json.decode(props.changes_json, type=list[SectionChange]),
        unchanged_sections=props.unchanged_sections,
        delta_operations=(
            msgspec.json.decode(props.delta_json, type=DeltaOperations)
            if props.delta_json
            else None
        ),
        memory_ids=props.memory_ids,
        operation_id=props.operation_id,
    )
