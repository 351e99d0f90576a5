"""The tools reflect's agent may call: reads of one bank, never writes, never another bank.

Every tool runs with the request's scope (bank, tags, fact types, "now") fixed by the code; the
model chooses only what to look for. Every memory a tool hands the model is remembered
(:attr:`Toolbox.memories`), because only those may be cited in the answer.

Tools: ``recall`` (query, types, time window), ``search_observations``,
``search_mental_models``, ``get_entity``, ``expand`` (a memory's graph neighbours), and
``done`` (the answer with the ids it cites), which ends the loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from app.domain.facts import FACT_TYPES, FactType
from app.domain.tags import TagsMatch
from app.recall.candidates import TimeWindow
from app.recall.ports import EntityFinder, GraphReader, QueryEmbedder
from app.recall.recipes import Budget
from app.recall.rows import from_epoch_ms, listed
from app.recall.schemas import DEFAULT_MAX_TOKENS, RecallRequest, RecallResult
from app.recall.service import RecallService
from app.reflect.budget import ReflectBudget
from app.reflect.extractive import Evidence, date_label
from app.reflect.model_index import SEARCH_MIN_SCORE, MentalModelIndex, ModelMatch

DONE = "done"
_FAR_PAST = datetime(1, 1, 1, tzinfo=UTC)
_FAR_FUTURE = datetime(9999, 12, 31, tzinfo=UTC)


def _function(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


_QUERY = {"type": "string", "description": "what to look for, in plain words"}
TOOL_SPECS: tuple[dict[str, Any], ...] = (
    _function(
        "recall",
        "Search the memory bank for facts relevant to a query (vector, keyword, graph and time "
        "channels fused). Optionally restrict the fact types or an event-time window.",
        {
            "query": _QUERY,
            "types": {
                "type": "array",
                "items": {"type": "string", "enum": list(FACT_TYPES)},
                "description": "fact types to search (default: all the request allows)",
            },
            "after": {"type": "string", "description": "ISO date: events on or after it"},
            "before": {"type": "string", "description": "ISO date: events on or before it"},
        },
        ["query"],
    ),
    _function(
        "search_observations",
        "Search consolidated observations: claims that several facts support.",
        {"query": _QUERY},
        ["query"],
    ),
    _function(
        "search_mental_models",
        "Search the bank's mental models: standing answers to recurring questions.",
        {"query": _QUERY},
        ["query"],
    ),
    _function(
        "get_entity",
        "Look up a person, organisation, place or thing by name: its other names, the entities "
        "it appears with, and its most recent memories.",
        {"name": {"type": "string"}, "id": {"type": "string", "description": "an entity id"}},
        [],
    ),
    _function(
        "expand",
        "Memories linked to one memory in the graph: same meaning, cause or effect, close in time.",
        {"memory_id": {"type": "string"}},
        ["memory_id"],
    ),
    _function(
        DONE,
        "Give the final answer (Markdown, citing memories as [id]) and the ids it rests on.",
        {
            "answer": {"type": "string"},
            "memory_ids": {"type": "array", "items": {"type": "string"}},
            "mental_model_ids": {"type": "array", "items": {"type": "string"}},
        },
        ["answer"],
    ),
)
TOOL_NAMES = frozenset(spec["function"]["name"] for spec in TOOL_SPECS)


class ToolError(Exception):
    """A tool call that cannot run as asked; the message goes back to the model."""


class ReadScope(msgspec.Struct, frozen=True, kw_only=True):
    """What every tool of one reflect may read: fixed by the request, not by the model."""

    bank_id: str
    budget: Budget
    tags: list[str] | None = None
    tags_match: TagsMatch = "any"
    fact_types: tuple[FactType, ...] = FACT_TYPES
    query_timestamp: datetime | None = None
    observation_tokens: int | None = None
    observation_entities: bool = True
    mental_models: bool = True
    excluded_models: frozenset[str] = frozenset()


class _RecallArgs(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    types: list[FactType] | None = None
    after: datetime | None = None
    before: datetime | None = None


class _QueryArgs(msgspec.Struct, frozen=True, kw_only=True):
    query: str


class _EntityArgs(msgspec.Struct, frozen=True, kw_only=True):
    name: str | None = None
    id: str | None = None


class _ExpandArgs(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str


class DoneArgs(msgspec.Struct, frozen=True, kw_only=True):
    """The agent's final answer."""

    answer: str
    memory_ids: list[str] = msgspec.field(default_factory=list)
    mental_model_ids: list[str] = msgspec.field(default_factory=list)


def parse_args(kind: type[Any], arguments: Mapping[str, Any]) -> Any:
    """Arguments as the tool's Struct; ``ToolError`` naming the field when they do not fit."""
    try:
        return msgspec.convert(dict(arguments), kind, strict=False)
    except msgspec.ValidationError as exc:
        raise ToolError(f"invalid arguments: {exc}") from None


def evidence_of(result: RecallResult) -> Evidence:
    """A recall result as reflect quotes it."""
    return Evidence(
        id=result.id,
        text=result.text,
        type=result.type,
        context=result.context,
        occurred_start=result.occurred_start,
        occurred_end=result.occurred_end,
        mentioned_at=result.mentioned_at,
        document_id=result.document_id,
        chunk_id=result.chunk_id,
        tags=list(result.tags),
        metadata=result.metadata,
    )


def evidence_rows(rows: Sequence[dict[str, Any]]) -> list[Evidence]:
    """Rows of ``reflect/memories`` (times as epoch milliseconds) as evidence."""
    out = []
    for row in rows:
        metadata = row.get("metadata_json")
        out.append(
            Evidence(
                id=row["id"],
                text=row["text"],
                type=row["type"],
                context=row.get("context"),
                occurred_start=from_epoch_ms(row.get("occurred_start")),
                occurred_end=from_epoch_ms(row.get("occurred_end")),
                mentioned_at=from_epoch_ms(row.get("mentioned_at")),
                document_id=row.get("document_id"),
                chunk_id=row.get("chunk_id"),
                tags=list(row.get("tags") or []),
                metadata=_metadata(metadata),
            )
        )
    return out


def _metadata(raw: str | None) -> dict[str, object] | None:
    if not raw:
        return None
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return {"raw": raw}
    return value if isinstance(value, dict) else {"value": value}


def shown(evidence: Evidence) -> dict[str, Any]:
    """How a memory is shown to the model: id, text, type, date."""
    item: dict[str, Any] = {"id": evidence.id, "text": evidence.text, "type": evidence.type}
    label = date_label(evidence)
    if label:
        item["date"] = label
    if evidence.tags:
        item["tags"] = evidence.tags
    return item


class Toolbox:
    """The tools of one reflect, bound to its scope; remembers what it handed out."""

    def __init__(
        self,
        *,
        recall: RecallService,
        graph: GraphReader,
        entities: EntityFinder,
        models: MentalModelIndex,
        embedder: QueryEmbedder,
        scope: ReadScope,
        budget: ReflectBudget,
    ) -> None:
        self._recall = recall
        self._graph = graph
        self._entities = entities
        self._models = models
        self._embedder = embedder
        self.scope = scope
        self._budget = budget
        self.memories: dict[str, Evidence] = {}
        self.mental_models: dict[str, ModelMatch] = {}

    def specs(self) -> list[dict[str, Any]]:
        """The tool definitions to send (no mental model search when they are excluded)."""
        return [
            spec
            for spec in TOOL_SPECS
            if self.scope.mental_models or spec["function"]["name"] != "search_mental_models"
        ]

    def remember(self, found: Sequence[Evidence]) -> list[dict[str, Any]]:
        """Record memories as handed to the model; returns them as shown."""
        for evidence in found:
            self.memories.setdefault(evidence.id, evidence)
        return [shown(e) for e in found]

    async def call(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Run one tool; ``ToolError`` for a call that cannot run as asked."""
        if name == "recall":
            return await self._recall_tool(parse_args(_RecallArgs, arguments))
        if name == "search_observations":
            return await self._observations(parse_args(_QueryArgs, arguments))
        if name == "search_mental_models":
            if not self.scope.mental_models:
                raise ToolError("mental models are excluded from this reflect")
            return await self._search_models(parse_args(_QueryArgs, arguments))
        if name == "get_entity":
            return await self._entity(parse_args(_EntityArgs, arguments))
        if name == "expand":
            return await self._expand(parse_args(_ExpandArgs, arguments))
        raise ToolError(f"unknown tool {name!r}; tools: {', '.join(sorted(TOOL_NAMES))}")

    # -- the tools ----------------------------------------------------------------------------

    async def recall_evidence(
        self,
        query: str,
        types: Sequence[FactType],
        *,
        window: TimeWindow | None = None,
        max_tokens: int | None = None,
    ) -> list[Evidence]:
        """Recall within the scope (shared by the tools and the offline answer)."""
        if not types:
            return []
        request = RecallRequest(
            query=query,
            types=list(types),
            budget=self.scope.budget,
            tags=self.scope.tags,
            tags_match=self.scope.tags_match,
            query_timestamp=self.scope.query_timestamp,
            temporal_window=window,
            max_tokens=max_tokens or DEFAULT_MAX_TOKENS,
        )
        response = await self._recall.recall(self.scope.bank_id, request)
        return [evidence_of(r) for r in response.results]

    async def _recall_tool(self, args: _RecallArgs) -> dict[str, Any]:
        types = [t for t in (args.types or self.scope.fact_types) if t in self.scope.fact_types]
        if not types:
            raise ToolError(f"types must be among {', '.join(self.scope.fact_types)}")
        window = None
        if args.after is not None or args.before is not None:
            start, end = args.after or _FAR_PAST, args.before or _FAR_FUTURE
            if end < start:
                raise ToolError("'before' is earlier than 'after'")
            window = TimeWindow(start=start, end=end)
        found = await self.recall_evidence(args.query, types, window=window)
        return {"memories": self.remember(found[: self._budget.tool_results])}

    async def _observations(self, args: _QueryArgs) -> dict[str, Any]:
        if "observation" not in self.scope.fact_types:
            raise ToolError("observations are excluded from this reflect (fact_types)")
        found = await self.recall_evidence(
            args.query, ["observation"], max_tokens=self.scope.observation_tokens
        )
        return {"observations": self.remember(found[: self._budget.tool_results])}

    async def _search_models(self, args: _QueryArgs) -> dict[str, Any]:
        async def embedded() -> list[float]:
            vector = await self._embedder.embed_one(args.query)
            values: list[float] = vector.tolist()
            return values

        found = await self._models.matching(
            self.scope.bank_id,
            embedded,
            tags=self.scope.tags,
            mode=self.scope.tags_match,
            exclude=self.scope.excluded_models,
            min_score=SEARCH_MIN_SCORE,
        )
        for match in found:
            self.mental_models.setdefault(match.id, match)
        return {
            "mental_models": [
                {"id": m.id, "name": m.name, "question": m.source_query, "content": m.content}
                for m in found
            ]
        }

    async def _entity(self, args: _EntityArgs) -> dict[str, Any]:
        entity_id = args.id
        if entity_id is None:
            if not args.name or not args.name.strip():
                raise ToolError("give 'name' or 'id'")
            found = await self._entities.find(self.scope.bank_id, args.name, 1)
            if not found:
                return {"entity": None, "note": f"no entity named {args.name!r} in this bank"}
            entity_id = found[0].id
        rows = await self._graph.run("reflect/entity", {**self._filters(), "id": entity_id})
        if not rows:
            return {"entity": None, "note": f"no entity {entity_id!r} in this bank"}
        row = rows[0]
        memories = await self.hydrate(row["memory_ids"])
        return {
            "entity": {
                "id": row["id"],
                "name": row["name"],
                "type": row["type"],
                "mentions": row["mention_count"],
                "names": sorted(set(row["names"])),
                "appears_with": [n for n in row["related"] if n],
            },
            "memories": self.remember(memories),
        }

    async def _expand(self, args: _ExpandArgs) -> dict[str, Any]:
        rows = await self._graph.run(
            "reflect/neighbours", {**self._filters(), "id": args.memory_id}
        )
        if not rows:
            raise ToolError(f"no memory {args.memory_id!r} in this bank")
        links = [link for link in rows[0]["links"] if link]
        memories = {e.id: e for e in await self.hydrate([link["id"] for link in links])}
        shown_links = []
        for link in links:
            evidence = memories.get(link["id"])
            if evidence is not None:
                shown_links.append({**self.remember([evidence])[0], "link": link["kind"].lower()})
        return {"memories": shown_links}

    async def hydrate(self, ids: Sequence[str]) -> list[Evidence]:
        """Valid memories of this bank among ``ids``, in that order."""
        if not ids:
            return []
        rows = await self._graph.run(
            "reflect/memories", {"bank_id": self.scope.bank_id, "ids": list(ids)}
        )
        return evidence_rows(listed(rows, "memories"))

    def _filters(self) -> dict[str, Any]:
        return {
            "bank_id": self.scope.bank_id,
            "limit": self._budget.tool_results,
            "fact_types": list(self.scope.fact_types),
            "tags": self.scope.tags or None,
            "tags_match": self.scope.tags_match,
        }
