"""The MCP tools: what an agent can do with its memory, described for the agent.

Every tool takes ``bank_id`` unless the server is fixed to one bank (``mnemo mcp --bank B``;
then the argument may be left out, and another bank is refused). Answers are JSON objects
trimmed to what an agent reads (ids, text, dates, names); refusals come back as tool errors
whose text says why (``404: memory 'x' not found in bank 'b'``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from datetime import datetime
from typing import Any, Literal, TypeVar

import msgspec
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import app as package
from app.curate.schemas.banks import BankUpdate
from app.curate.schemas.memories import Memory, MemoryFilter, MemoryUpdate
from app.curate.schemas.reviews import ReviewDecision
from app.mcp.backend import MemoryBackend, refusal
from app.recall.schemas import RecallRequest
from app.reflect.schemas import ReflectInclude, ReflectRequest
from app.retain.schemas import RetainItem

log = logging.getLogger(__name__)

T = TypeVar("T")

INSTRUCTIONS = """\
Mnemo is your long-term memory. Call `recall` before answering anything that may depend on what
you were told or did earlier (people, preferences, decisions, dates, projects); `reflect` when you
want a short answer drawn from memory, each statement citing the memory it rests on. Call `retain`
when you learn something worth keeping after this conversation: state it as a self-contained
sentence with names and dates, and give the time it happened as `timestamp` when you know it.
Memories live in banks (one per user, agent or project). If a memory is wrong or outdated, find
it with `recall` or `list_memories` and `invalidate_memory` it with a reason, then `retain` the
correction. `list_reviews` shows pairs of entities Mnemo was unsure are the same; decide them
with `decide_review` when you know the answer."""


def _jsonable(value: object) -> Any:
    return msgspec.to_builtins(value)


def _memory(m: Memory) -> dict[str, Any]:
    return {
        "id": m.id,
        "text": m.text,
        "type": m.type,
        "state": m.state,
        "occurred_start": _jsonable(m.occurred_start),
        "occurred_end": _jsonable(m.occurred_end),
        "mentioned_at": _jsonable(m.mentioned_at),
        "entities": [{"id": e.id, "name": e.name} for e in m.mentions],
        "tags": m.tags,
        "document_id": m.document_id,
        "state_reason": m.state_reason,
    }


class MemoryTools:
    """The tools, over one backend; ``bank`` fixes the bank every tool works on."""

    NAMES = (
        "retain",
        "recall",
        "reflect",
        "list_banks",
        "create_bank",
        "list_memories",
        "get_memory",
        "invalidate_memory",
        "list_entities",
        "get_entity",
        "list_reviews",
        "decide_review",
    )

    def __init__(self, backend: MemoryBackend, bank: str | None = None) -> None:
        self._backend = backend
        self._bank = bank

    def _bank_of(self, bank_id: str | None) -> str:
        if self._bank is not None:
            if bank_id not in (None, "", self._bank):
                raise ToolError(f"this server works on bank {self._bank!r} only, not {bank_id!r}")
            return self._bank
        if not bank_id:
            raise ToolError("bank_id is required (this server is not fixed to one bank)")
        return bank_id

    @staticmethod
    async def _guarded(call: Awaitable[T]) -> T:
        try:
            return await call
        except Exception as exc:
            text = refusal(exc)
            if text is None:
                raise
            raise ToolError(text) from exc

    async def retain(
        self,
        content: str,
        bank_id: str | None = None,
        timestamp: datetime | None = None,
        context: str | None = None,
        tags: list[str] | None = None,
        document_id: str | None = None,
    ) -> dict[str, Any]:
        """Store something worth remembering beyond this conversation.

        Use it for facts about people, preferences, decisions, events and plans. `content` is
        text (a note, a message, a whole conversation); Mnemo splits it into facts, links the
        people and things it names, and dates it from `timestamp` (when it happened or was
        said; ISO 8601). Sending the same `document_id` again replaces that document's facts.
        The bank is created on its first retain. Returns the ids of the new memories.
        """
        item = RetainItem(
            content=content,
            timestamp=timestamp,
            context=context,
            tags=tags,
            document_id=document_id,
        )
        answer = await self._guarded(self._backend.retain(self._bank_of(bank_id), [item]))
        warnings = [w for outcome in answer.items for w in outcome.warnings]
        return {
            "memory_ids": answer.memory_ids,
            "memory_count": len(answer.memory_ids),
            "warnings": warnings,
        }

    async def recall(
        self,
        query: str,
        bank_id: str | None = None,
        max_tokens: int = 2048,
        types: list[Literal["world", "experience", "observation"]] | None = None,
        tags: list[str] | None = None,
        query_timestamp: datetime | None = None,
    ) -> dict[str, Any]:
        """Find the memories relevant to a question, best first.

        Call it before answering from memory. Ask in plain words ("Where does Caroline
        live?", "what did we decide about the launch last week?"); time expressions are
        understood relative to `query_timestamp` (default: now). Returns up to `max_tokens`
        of facts, each with its id (for `get_memory` or `invalidate_memory`), text, dates and
        the entities it names. An empty list means the bank holds nothing relevant.
        """
        request = RecallRequest(
            query=query,
            max_tokens=max_tokens,
            types=list(types) if types else None,
            tags=tags,
            query_timestamp=query_timestamp,
        )
        answer = await self._guarded(self._backend.recall(self._bank_of(bank_id), request))
        return {
            "results": [
                {
                    "id": r.id,
                    "text": r.text,
                    "type": r.type,
                    "occurred_start": _jsonable(r.occurred_start),
                    "occurred_end": _jsonable(r.occurred_end),
                    "mentioned_at": _jsonable(r.mentioned_at),
                    "entities": r.entities,
                    "score": r.scores.get("final"),
                }
                for r in answer.results
            ]
        }

    async def reflect(
        self,
        query: str,
        bank_id: str | None = None,
        budget: Literal["low", "mid", "high"] = "mid",
        context: str | None = None,
        max_tokens: int = 4096,
        tags: list[str] | None = None,
        query_timestamp: datetime | None = None,
    ) -> dict[str, Any]:
        """Answer a question from memory, with the memories the answer rests on.

        Use it for questions that need a conclusion over several memories ("what does Dana
        care about?", "when did the launch slip, and why?"). `budget` trades depth for time
        (`low` reads the fewest memories, `high` the most). The answer is Markdown whose
        statements cite memory ids in brackets; `memories` lists exactly those memories, and
        `mental_models` the standing answers consulted. Without an LLM configured the answer
        quotes the strongest memories with their dates rather than reasoning over them.
        """
        request = ReflectRequest(
            query=query,
            budget=budget,
            context=context,
            max_tokens=max_tokens,
            tags=tags,
            query_timestamp=query_timestamp,
            include=ReflectInclude(facts={}),
        )
        answer = await self._guarded(self._backend.reflect(self._bank_of(bank_id), request))
        based_on = answer.based_on
        return {
            "text": answer.text,
            "memories": [
                {
                    "id": m.id,
                    "text": m.text,
                    "type": m.type,
                    "occurred_start": _jsonable(m.occurred_start),
                    "occurred_end": _jsonable(m.occurred_end),
                    "mentioned_at": _jsonable(m.mentioned_at),
                    "document_id": m.document_id,
                    "tags": m.tags,
                }
                for m in (based_on.memories if based_on else [])
            ],
            "mental_models": [
                {"id": mm.id, "name": mm.name, "text": mm.text}
                for mm in (based_on.mental_models if based_on else [])
            ],
        }

    async def list_banks(self, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        """List the memory banks (id, name, how many memories each holds).

        Use it to find which bank to work on when you were not told.
        """
        page = await self._guarded(self._backend.list_banks(limit, offset))
        return {
            "banks": [
                {"bank_id": b.id, "name": b.name, "memories": b.counts.memories} for b in page.banks
            ],
            "total": page.total,
        }

    async def create_bank(
        self,
        bank_id: str,
        name: str | None = None,
        mission: str | None = None,
        retain_mission: str | None = None,
    ) -> dict[str, Any]:
        """Create a memory bank, or update the fields given on an existing one.

        `bank_id`: 1-64 letters, digits, '_', '.' or '-'. `retain_mission` tells Mnemo what
        is worth keeping in this bank; `mission` what the bank's owner is for. Returns the
        bank's settings.
        """
        if self._bank is not None and bank_id != self._bank:
            raise ToolError(f"this server works on bank {self._bank!r} only, not {bank_id!r}")
        fields: dict[str, Any] = {
            "name": name,
            "mission": mission,
            "retain_mission": retain_mission,
        }
        update = msgspec.convert({k: v for k, v in fields.items() if v is not None}, BankUpdate)
        created = await self._guarded(self._backend.put_bank(bank_id, update))
        return {
            "bank_id": created.id,
            "name": created.name,
            "mission": created.mission,
            "retain_mission": created.retain_mission,
            "extraction_mode": created.retain_extraction_mode,
        }

    async def list_memories(
        self,
        bank_id: str | None = None,
        q: str | None = None,
        state: Literal["valid", "invalidated"] | None = None,
        entity_id: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> dict[str, Any]:
        """Browse stored memories, newest first (to answer a question, use `recall`).

        `q` keeps the memories whose text or entity names contain those words; `state`
        `invalidated` shows the ones taken out of recall; `entity_id` those naming an entity.
        """
        where = MemoryFilter(q=q, states=(state,) if state else None, entity_id=entity_id)
        page = await self._guarded(
            self._backend.list_memories(self._bank_of(bank_id), where, limit, offset)
        )
        return {"memories": [_memory(m) for m in page.items], "total": page.total}

    async def get_memory(self, memory_id: str, bank_id: str | None = None) -> dict[str, Any]:
        """One memory by id: text, dates, entities, tags, and state with its reason."""
        return _memory(
            await self._guarded(self._backend.get_memory(self._bank_of(bank_id), memory_id))
        )

    async def invalidate_memory(
        self, memory_id: str, reason: str, bank_id: str | None = None
    ) -> dict[str, Any]:
        """Take a wrong or outdated memory out of recall (kept for audit, restorable).

        Give the reason ("superseded: she moved to Porto in 2024"); retain the correct fact
        separately. Returns the memory as it now is.
        """
        update = MemoryUpdate(state="invalidated", reason=reason)
        return _memory(
            await self._guarded(
                self._backend.update_memory(self._bank_of(bank_id), memory_id, update)
            )
        )

    async def list_entities(
        self, bank_id: str | None = None, name: str | None = None, limit: int = 20, offset: int = 0
    ) -> dict[str, Any]:
        """The people, organisations, places and things the memories name, most mentioned first.

        `name` finds an entity by any name it has been called.
        """
        page = await self._guarded(
            self._backend.list_entities(self._bank_of(bank_id), name, limit, offset)
        )
        return {
            "entities": [
                {"id": e.id, "name": e.name, "type": e.type, "mentions": e.mention_count}
                for e in page.items
            ],
            "total": page.total,
        }

    async def get_entity(self, entity_id: str, bank_id: str | None = None) -> dict[str, Any]:
        """One entity: every name it has been called, its mention count, its usual company.

        Use `list_memories` with `entity_id` for its memories.
        """
        e = await self._guarded(self._backend.get_entity(self._bank_of(bank_id), entity_id))
        return {
            "id": e.id,
            "name": e.name,
            "type": e.type,
            "mentions": e.mention_count,
            "names": sorted({n.name for n in e.names}),
            "neighbours": [{"id": n.id, "name": n.name, "count": n.count} for n in e.neighbours],
            "open_reviews": e.open_reviews,
        }

    async def list_reviews(
        self,
        bank_id: str | None = None,
        status: Literal["open", "same", "different", "all"] = "open",
        limit: int = 20,
    ) -> dict[str, Any]:
        """Pairs of entities Mnemo was unsure are one, with the evidence on each side.

        For example two "Alex"es, or "Sarah" and "Sarah Chen"; decide them with
        `decide_review`.
        """
        page = await self._guarded(
            self._backend.list_reviews(self._bank_of(bank_id), status, limit, 0)
        )
        return {
            "reviews": [
                {
                    "id": r.id,
                    "status": r.status,
                    "reason": r.reason,
                    "a": _jsonable(r.entity_a),
                    "b": _jsonable(r.entity_b),
                }
                for r in page.items
            ],
            "total": page.total,
        }

    async def decide_review(
        self,
        review_id: str,
        decision: Literal["same", "different"],
        reason: str | None = None,
        bank_id: str | None = None,
    ) -> dict[str, Any]:
        """Settle a review: `same` merges the two entities, `different` keeps them apart.

        A merge moves their memories and names together and can be reverted; `different` is
        remembered for good.
        """
        outcome = await self._guarded(
            self._backend.decide_review(
                self._bank_of(bank_id), review_id, ReviewDecision(decision=decision, reason=reason)
            )
        )
        return {
            "review_id": outcome.review.id,
            "status": outcome.review.status,
            "merge_id": outcome.merge.id if outcome.merge else None,
        }


def build_server(backend: MemoryBackend, *, bank: str | None = None) -> MCPServer:
    """The MCP server over ``backend``; ``bank`` fixes the bank every tool works on."""
    server: MCPServer = MCPServer(
        name="mnemo", version=package.__version__, instructions=INSTRUCTIONS
    )
    tools = MemoryTools(backend, bank)
    for name in MemoryTools.NAMES:
        server.add_tool(getattr(tools, name), name=name)
    return server
