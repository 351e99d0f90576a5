"""What the MCP tools call: the service's own objects in process, or its HTTP API.

The tools are one set of functions over :class:`MemoryBackend`. Mounted on the service
(``/mcp``) they run on the service's runtime (:class:`ServiceBackend`); ``mnemo mcp`` over
stdio talks to a running service through the typed client (:class:`HttpBackend`), so it never
opens the stores a running service owns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

import msgspec

from app.access.principal import CURRENT_PRINCIPAL, Requirement, denial
from app.client import ApiError, MnemoClient
from app.curate.schemas.banks import Bank, BankPage, BankUpdate
from app.curate.schemas.entities import EntityDetail, EntityPage
from app.curate.schemas.memories import Memory, MemoryFilter, MemoryPage, MemoryUpdate
from app.curate.schemas.reviews import ReviewDecision, ReviewFilter, ReviewOutcome, ReviewPage
from app.errors import MnemoError
from app.recall.schemas import RecallRequest, RecallResponse
from app.reflect.schemas import ReflectRequest, ReflectResponse
from app.retain.schemas import RetainItem, RetainResponse

if TYPE_CHECKING:
    from app.runtime import Runtime

T = TypeVar("T")


class BackendError(Exception):
    """A refusal to pass on to the agent as the tool's error text."""


class MemoryBackend(Protocol):
    """The operations the MCP tools offer."""

    async def retain(self, bank_id: str, items: list[RetainItem]) -> RetainResponse:
        """Retain items (creating the bank on its first retain)."""
        ...

    async def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """Recall."""
        ...

    async def reflect(self, bank_id: str, request: ReflectRequest) -> ReflectResponse:
        """An answer drawn from the bank, with the memories it cites."""
        ...

    async def list_banks(self, limit: int, offset: int) -> BankPage:
        """A page of banks."""
        ...

    async def put_bank(self, bank_id: str, update: BankUpdate) -> Bank:
        """Create a bank or update the fields sent."""
        ...

    async def list_memories(
        self, bank_id: str, where: MemoryFilter, limit: int, offset: int
    ) -> MemoryPage:
        """A page of memories."""
        ...

    async def get_memory(self, bank_id: str, memory_id: str) -> Memory:
        """One memory."""
        ...

    async def update_memory(self, bank_id: str, memory_id: str, update: MemoryUpdate) -> Memory:
        """Edit, invalidate or restore a memory."""
        ...

    async def list_entities(
        self, bank_id: str, name: str | None, limit: int, offset: int
    ) -> EntityPage:
        """A page of entities."""
        ...

    async def get_entity(self, bank_id: str, entity_id: str) -> EntityDetail:
        """One entity."""
        ...

    async def list_reviews(
        self, bank_id: str, status: ReviewFilter, limit: int, offset: int
    ) -> ReviewPage:
        """A page of reviews."""
        ...

    async def decide_review(
        self, bank_id: str, review_id: str, decision: ReviewDecision
    ) -> ReviewOutcome:
        """Decide a review."""
        ...


class ServiceBackend:
    """The service's own runtime (the ``/mcp`` mount): the same calls as the HTTP handlers.

    The HTTP API checks keys per route; here each call checks the key of the MCP request
    (``CURRENT_PRINCIPAL``) against its bank with the same rules: read for lookups and recall,
    write for retain and edits, admin for creating banks. When keys are required and no key
    holder is known, every call is refused (closed, not open, if the key were ever lost).
    """

    def __init__(self, runtime: Callable[[], Runtime]) -> None:
        self._runtime = runtime

    def _rt(self, need: Requirement) -> Runtime:
        rt = self._runtime()
        if not rt.settings.auth_required:
            return rt
        principal = CURRENT_PRINCIPAL.get()
        if principal is None:
            raise BackendError("401: an API key is required")
        reason = denial(principal, need)
        if reason is not None:
            raise BackendError(f"403: {reason}")
        return rt

    def _read(self, bank_id: str) -> Runtime:
        return self._rt(Requirement("bank_read", bank_id))

    def _write(self, bank_id: str) -> Runtime:
        return self._rt(Requirement("bank_write", bank_id))

    async def retain(self, bank_id: str, items: list[RetainItem]) -> RetainResponse:
        """Check, create the bank if new, retain, and tell subscribers."""
        from app.webhooks.rules import retain_completed

        rt = self._write(bank_id)
        rt.retainer.check(items)
        await rt.banks.ensure(bank_id)
        response = await rt.retainer.retain(bank_id, items)
        rt.events.emit(bank_id, "retain.completed", retain_completed(response))
        return response

    async def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """Recall."""
        return await self._read(bank_id).recall.recall(bank_id, request)

    async def reflect(self, bank_id: str, request: ReflectRequest) -> ReflectResponse:
        """Reflect (reads the bank, writes nothing)."""
        return await self._runtime().reflect.reflect(bank_id, request)

    async def list_banks(self, limit: int, offset: int) -> BankPage:
        """A page of banks (a bank key sees its own banks only)."""
        rt = self._rt(Requirement("any_key"))
        principal = CURRENT_PRINCIPAL.get()
        page = await rt.banks.page(limit=limit, offset=offset)
        if not rt.settings.auth_required or principal is None or principal.admin:
            return page
        mine = [b for b in page.banks if principal.may_read(b.id)]
        return msgspec.structs.replace(page, banks=mine, total=len(mine))

    async def put_bank(self, bank_id: str, update: BankUpdate) -> Bank:
        """Create a bank or update the fields sent (an admin's job, as over HTTP)."""
        bank, _ = await self._rt(Requirement("admin")).banks.put(bank_id, update)
        return bank

    async def list_memories(
        self, bank_id: str, where: MemoryFilter, limit: int, offset: int
    ) -> MemoryPage:
        """A page of memories."""
        return await self._read(bank_id).memories.page(bank_id, where, limit=limit, offset=offset)

    async def get_memory(self, bank_id: str, memory_id: str) -> Memory:
        """One memory."""
        return await self._read(bank_id).memories.get(bank_id, memory_id)

    async def update_memory(self, bank_id: str, memory_id: str, update: MemoryUpdate) -> Memory:
        """Edit, invalidate or restore a memory."""
        return await self._write(bank_id).memories.update(bank_id, memory_id, update)

    async def list_entities(
        self, bank_id: str, name: str | None, limit: int, offset: int
    ) -> EntityPage:
        """A page of entities."""
        return await self._read(bank_id).entities.page(
            bank_id, name=name, limit=limit, offset=offset
        )

    async def get_entity(self, bank_id: str, entity_id: str) -> EntityDetail:
        """One entity."""
        return await self._read(bank_id).entities.get(bank_id, entity_id)

    async def list_reviews(
        self, bank_id: str, status: ReviewFilter, limit: int, offset: int
    ) -> ReviewPage:
        """A page of reviews."""
        return await self._read(bank_id).reviews.page(
            bank_id, status=status, limit=limit, offset=offset
        )

    async def decide_review(
        self, bank_id: str, review_id: str, decision: ReviewDecision
    ) -> ReviewOutcome:
        """Decide a review."""
        return await self._write(bank_id).reviews.decide(bank_id, review_id, decision)


class HttpBackend:
    """A running service's HTTP API (``mnemo mcp`` over stdio), through the typed client."""

    def __init__(self, client: MnemoClient) -> None:
        self._client = client

    async def _call(self, fn: Callable[[], T]) -> T:
        try:
            return await asyncio.to_thread(fn)
        except ApiError as exc:
            raise BackendError(f"{exc.status_code}: {exc.detail}") from exc

    async def retain(self, bank_id: str, items: list[RetainItem]) -> RetainResponse:
        """Retain items (the service creates the bank on its first retain)."""
        return await self._call(lambda: self._client.retain(bank_id, items))

    async def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        """Recall."""
        return await self._call(lambda: self._client.recall(bank_id, request))

    async def reflect(self, bank_id: str, request: ReflectRequest) -> ReflectResponse:
        """Reflect."""
        return await self._call(lambda: self._client.reflect(bank_id, request))

    async def list_banks(self, limit: int, offset: int) -> BankPage:
        """A page of banks."""
        return await self._call(lambda: self._client.list_banks(limit=limit, offset=offset))

    async def put_bank(self, bank_id: str, update: BankUpdate) -> Bank:
        """Create a bank or update the fields sent."""
        return await self._call(lambda: self._client.put_bank(bank_id, update))

    async def list_memories(
        self, bank_id: str, where: MemoryFilter, limit: int, offset: int
    ) -> MemoryPage:
        """A page of memories."""
        return await self._call(
            lambda: self._client.list_memories(
                bank_id,
                types=where.types,
                q=where.q,
                state=where.states[0] if where.states else None,
                entity_id=where.entity_id,
                tags=where.tags,
                tags_match=where.tags_match,
                limit=limit,
                offset=offset,
            )
        )

    async def get_memory(self, bank_id: str, memory_id: str) -> Memory:
        """One memory."""
        return await self._call(lambda: self._client.memory(bank_id, memory_id))

    async def update_memory(self, bank_id: str, memory_id: str, update: MemoryUpdate) -> Memory:
        """Edit, invalidate or restore a memory."""
        return await self._call(lambda: self._client.update_memory(bank_id, memory_id, update))

    async def list_entities(
        self, bank_id: str, name: str | None, limit: int, offset: int
    ) -> EntityPage:
        """A page of entities."""
        return await self._call(
            lambda: self._client.list_entities(bank_id, name=name, limit=limit, offset=offset)
        )

    async def get_entity(self, bank_id: str, entity_id: str) -> EntityDetail:
        """One entity."""
        return await self._call(lambda: self._client.get_entity(bank_id, entity_id))

    async def list_reviews(
        self, bank_id: str, status: ReviewFilter, limit: int, offset: int
    ) -> ReviewPage:
        """A page of reviews."""
        return await self._call(
            lambda: self._client.list_reviews(bank_id, status=status, limit=limit, offset=offset)
        )

    async def decide_review(
        self, bank_id: str, review_id: str, decision: ReviewDecision
    ) -> ReviewOutcome:
        """Decide a review."""
        return await self._call(
            lambda: self._client.decide_review(
                bank_id, review_id, decision.decision, decision.reason
            )
        )


def refusal(exc: Exception) -> str | None:
    """The text an agent should read for an expected refusal (None: an unexpected error)."""
    if isinstance(exc, MnemoError):
        return f"{exc.status_code}: {exc.detail}"
    if isinstance(exc, BackendError):
        return str(exc)
    return None
