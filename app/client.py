"""A small typed client for Mnemo's HTTP API (used by the CLI, the benchmarks and the tests).

Answers decode into the same msgspec Structs the server encodes (``Bank``, ``Memory``,
``EntityDetail``…), so a field the server renames breaks the type checker, not a user. An error
answer raises :class:`ApiError` with the server's status code, detail and extra; a server that
cannot be reached raises ``httpx.TransportError``.

``iter_*`` methods walk every page of a listing. Ids go into paths percent-encoded (document ids
may contain ``/``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import httpx
import msgspec

from app.curate.schemas.banks import Bank, BankDeleted, BankPage, BankUpdate
from app.curate.schemas.documents import (
    Document,
    DocumentDeleted,
    DocumentPage,
    DocumentReprocessed,
    DocumentSummary,
)
from app.curate.schemas.entities import (
    EntityChange,
    EntityDetail,
    EntityGraph,
    EntityMergePage,
    EntityMergeRecord,
    EntityPage,
    EntitySummary,
    MergeRequest,
    RecordKind,
    RevertRequest,
    SplitRequest,
)
from app.curate.schemas.memories import Memory, MemoryHistory, MemoryPage, MemoryUpdate
from app.curate.schemas.reviews import (
    Review,
    ReviewDecision,
    ReviewFilter,
    ReviewOutcome,
    ReviewPage,
)
from app.domain.facts import FactType, MemoryState
from app.domain.tags import TagsMatch
from app.recall.schemas import RecallRequest, RecallResponse
from app.reflect.schemas import (
    CreateMentalModelRequest,
    CreateMentalModelResponse,
    MentalModelListResponse,
    MentalModelResponse,
    MentalModelVersion,
    ReflectInclude,
    ReflectRequest,
    ReflectResponse,
)
from app.retain.schemas import Operation, OperationPage, RetainItem, RetainRequest, RetainResponse

T = TypeVar("T")
BANKS = "/v1/default/banks"
# The largest page the API serves.
MAX_PAGE = 1000


class ApiError(Exception):
    """The API answered with an error status (``detail`` and ``extra`` as the server sent)."""

    def __init__(self, status_code: int, detail: str, extra: Any = None) -> None:
        super().__init__(f"{status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail
        self.extra = extra


class _ErrorBody(msgspec.Struct):
    """The server's one error shape (app/api/errors.py)."""

    detail: Any = None
    extra: Any = None


def api_error(response: httpx.Response) -> ApiError:
    """The :class:`ApiError` for an error answer, whatever its body (JSON, text or nothing)."""
    detail: str = response.reason_phrase or f"HTTP {response.status_code}"
    extra: Any = None
    try:
        body = msgspec.json.decode(response.content, type=_ErrorBody)
    except (msgspec.DecodeError, msgspec.ValidationError):
        text = response.text.strip()
        if text:
            detail = text[:2000]
    else:
        if body.detail is not None:
            detail = body.detail if isinstance(body.detail, str) else str(body.detail)
        extra = body.extra
    return ApiError(response.status_code, detail, extra)


def segment(value: str) -> str:
    """An id as one percent-encoded path segment."""
    return quote(value, safe="")


def drop_none(params: Mapping[str, Any]) -> dict[str, Any]:
    """Query parameters without the unset ones (None or an empty list)."""
    return {k: v for k, v in params.items() if v is not None and v != [] and v != ()}


class MnemoClient:
    """Synchronous client; use as a context manager or call ``close()``.

    ``api_key`` is sent as ``Authorization: Bearer <key>`` (needed when the service requires
    keys). ``transport`` replaces the network (``httpx.MockTransport`` in unit tests).
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 300.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"authorization": f"Bearer {api_key}"} if api_key else None
        self._http = httpx.Client(
            base_url=self.base_url, timeout=timeout, transport=transport, headers=headers
        )

    def __enter__(self) -> MnemoClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # -- plumbing -----------------------------------------------------------------------------

    def send(
        self,
        method: str,
        path: str,
        *,
        body: object = None,
        params: Mapping[str, Any] | None = None,
    ) -> bytes:
        """Send a request; the raw answer body (raises :class:`ApiError` on 4xx/5xx)."""
        content = None if body is None else msgspec.json.encode(body)
        response = self._http.request(
            method,
            path,
            content=content,
            params=drop_none(params or {}),
            headers={"content-type": "application/json"} if content is not None else None,
        )
        if response.status_code >= 400:
            raise api_error(response)
        return response.content

    def request(
        self,
        method: str,
        path: str,
        *,
        body: object = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """Send a request and return the decoded JSON answer (None when it has no body)."""
        content = self.send(method, path, body=body, params=params)
        return msgspec.json.decode(content) if content else None

    def call(
        self,
        into: type[T],
        method: str,
        path: str,
        *,
        body: object = None,
        params: Mapping[str, Any] | None = None,
    ) -> T:
        """Send a request and decode the answer into ``into``."""
        return msgspec.json.decode(self.send(method, path, body=body, params=params), type=into)

    @staticmethod
    def _pages(fetch: Any, limit: int = MAX_PAGE, *, field: str = "items") -> Iterator[Any]:
        """Items of every page ``fetch(limit=, offset=)`` answers (under ``field``)."""
        offset = 0
        while True:
            items = getattr(fetch(limit=limit, offset=offset), field)
            yield from items
            if len(items) < limit:
                return
            offset += limit

    @staticmethod
    def _cursor_pages(fetch: Any, limit: int = MAX_PAGE) -> Iterator[Any]:
        """Items of every page, each asked for with the ``next_cursor`` of the one before.

        A cursor page costs its own rows, not the rows before it, and what is stored meanwhile
        does not shift later pages (by offset, an item would be repeated or skipped).
        """
        cursor = None
        while True:
            page = fetch(limit=limit, cursor=cursor)
            yield from page.items
            cursor = page.next_cursor
            if not cursor:
                return

    # -- service ------------------------------------------------------------------------------

    def ready(self) -> bool:
        """True when the service and its dependencies answer."""
        try:
            self.send("GET", "/health/ready")
        except (ApiError, httpx.TransportError):
            return False
        return True

    # -- banks --------------------------------------------------------------------------------

    def put_bank(self, bank_id: str, update: BankUpdate | None = None) -> Bank:
        """Create a bank or update the fields set in ``update``."""
        return self.call(Bank, "PUT", f"{BANKS}/{segment(bank_id)}", body=update or BankUpdate())

    def patch_bank(self, bank_id: str, update: BankUpdate) -> Bank:
        """Update some fields of an existing bank."""
        return self.call(Bank, "PATCH", f"{BANKS}/{segment(bank_id)}", body=update)

    def get_bank(self, bank_id: str) -> Bank:
        """One bank with its configuration and counts."""
        return self.call(Bank, "GET", f"{BANKS}/{segment(bank_id)}")

    def list_banks(self, *, limit: int = 100, offset: int = 0) -> BankPage:
        """A page of banks, ordered by id."""
        return self.call(BankPage, "GET", BANKS, params={"limit": limit, "offset": offset})

    def iter_banks(self) -> Iterator[Bank]:
        """Every bank."""
        return self._pages(self.list_banks, field="banks")

    def delete_bank(self, bank_id: str) -> BankDeleted:
        """Delete a bank and all it holds."""
        return self.call(BankDeleted, "DELETE", f"{BANKS}/{segment(bank_id)}")

    # -- retain -------------------------------------------------------------------------------

    def retain(
        self, bank_id: str, items: Sequence[RetainItem], *, run_async: bool = False
    ) -> RetainResponse:
        """Retain items (``run_async``: answer at once with an operation id)."""
        request = RetainRequest(items=list(items), async_=run_async)
        return self.call(
            RetainResponse, "POST", f"{BANKS}/{segment(bank_id)}/memories", body=request
        )

    def operation(self, bank_id: str, operation_id: str) -> Operation:
        """Status of an async operation."""
        return self.call(
            Operation, "GET", f"{BANKS}/{segment(bank_id)}/operations/{segment(operation_id)}"
        )

    def operations(self, bank_id: str, *, limit: int = 100, offset: int = 0) -> OperationPage:
        """A bank's operations, newest first."""
        return self.call(
            OperationPage,
            "GET",
            f"{BANKS}/{segment(bank_id)}/operations",
            params={"limit": limit, "offset": offset},
        )

    # -- recall -------------------------------------------------------------------------------

    def recall(self, bank_id: str, request: RecallRequest | str) -> RecallResponse:
        """The facts relevant to a query (a plain string uses every default)."""
        body = RecallRequest(query=request) if isinstance(request, str) else request
        return self.call(
            RecallResponse, "POST", f"{BANKS}/{segment(bank_id)}/memories/recall", body=body
        )

    # -- reflect and mental models ------------------------------------------------------------

    def reflect(self, bank_id: str, request: ReflectRequest | str) -> ReflectResponse:
        """An answer from the bank with its evidence (a plain string asks for the evidence)."""
        body = (
            ReflectRequest(query=request, include=ReflectInclude(facts={}))
            if isinstance(request, str)
            else request
        )
        return self.call(ReflectResponse, "POST", f"{BANKS}/{segment(bank_id)}/reflect", body=body)

    def create_mental_model(
        self, bank_id: str, request: CreateMentalModelRequest
    ) -> CreateMentalModelResponse:
        """A new mental model; its page is written by the operation the answer names."""
        return self.call(
            CreateMentalModelResponse,
            "POST",
            f"{BANKS}/{segment(bank_id)}/mental-models",
            body=request,
        )

    def list_mental_models(
        self, bank_id: str, *, detail: str = "content", limit: int = 100, offset: int = 0
    ) -> MentalModelListResponse:
        """One page of a bank's mental models (``detail``: metadata, content or full)."""
        return self.call(
            MentalModelListResponse,
            "GET",
            f"{BANKS}/{segment(bank_id)}/mental-models",
            params={"detail": detail, "limit": limit, "offset": offset},
        )

    def iter_mental_models(self, bank_id: str) -> Iterator[MentalModelResponse]:
        """Every mental model of the bank, with its page and settings."""

        def fetch(*, limit: int, offset: int) -> MentalModelListResponse:
            return self.list_mental_models(bank_id, limit=limit, offset=offset)

        return self._pages(fetch)

    def get_mental_model(self, bank_id: str, model_id: str) -> MentalModelResponse:
        """One mental model with its page and evidence."""
        return self.call(
            MentalModelResponse,
            "GET",
            f"{BANKS}/{segment(bank_id)}/mental-models/{segment(model_id)}",
        )

    def mental_model_history(self, bank_id: str, model_id: str) -> list[MentalModelVersion]:
        """Every version of a mental model's page, newest first."""
        return self.call(
            list[MentalModelVersion],
            "GET",
            f"{BANKS}/{segment(bank_id)}/mental-models/{segment(model_id)}/history",
        )

    # -- memories -----------------------------------------------------------------------------

    def list_memories(
        self,
        bank_id: str,
        *,
        types: Sequence[FactType] | None = None,
        q: str | None = None,
        state: MemoryState | None = None,
        document_id: str | None = None,
        entity_id: str | None = None,
        tags: Sequence[str] | None = None,
        tags_match: TagsMatch = "any",
        limit: int = 100,
        offset: int = 0,
        cursor: str | None = None,
    ) -> MemoryPage:
        """A page of facts, newest first; every filter given applies.

        ``cursor``: a page's ``next_cursor``, to continue where that page ended.
        """
        params = {
            "type": list(types or ()),
            "q": q,
            "state": state,
            "document_id": document_id,
            "entity_id": entity_id,
            "tags": list(tags or ()),
            "tags_match": tags_match if tags else None,
            "limit": limit,
            "offset": offset,
            "cursor": cursor,
        }
        return self.call(
            MemoryPage, "GET", f"{BANKS}/{segment(bank_id)}/memories/list", params=params
        )

    def iter_memories(
        self, bank_id: str, *, page_size: int = MAX_PAGE, **filters: Any
    ) -> Iterator[Memory]:
        """Every fact matching the filters of :meth:`list_memories`, newest first."""

        def fetch(*, limit: int, cursor: str | None) -> MemoryPage:
            return self.list_memories(bank_id, limit=limit, cursor=cursor, **filters)

        return self._cursor_pages(fetch, page_size)

    def memory(self, bank_id: str, memory_id: str) -> Memory:
        """One fact, valid or invalidated, with its entities."""
        return self.call(Memory, "GET", self._memory_path(bank_id, memory_id))

    def get_memory(self, bank_id: str, memory_id: str) -> dict[str, Any]:
        """One fact as plain JSON (``mentions``: ``[{id, name, mention, type}]``)."""
        answer: dict[str, Any] = self.request("GET", self._memory_path(bank_id, memory_id))
        return answer

    def update_memory(self, bank_id: str, memory_id: str, update: MemoryUpdate) -> Memory:
        """PATCH a fact: edit fields, replace its entities, or change its state."""
        return self.call(Memory, "PATCH", self._memory_path(bank_id, memory_id), body=update)

    def invalidate_memory(self, bank_id: str, memory_id: str, reason: str | None) -> Memory:
        """Take a fact out of recall (kept for audit, restorable)."""
        return self.update_memory(
            bank_id, memory_id, MemoryUpdate(state="invalidated", reason=reason)
        )

    def restore_memory(self, bank_id: str, memory_id: str, reason: str | None) -> Memory:
        """Put an invalidated fact back, links and all."""
        return self.update_memory(bank_id, memory_id, MemoryUpdate(state="valid", reason=reason))

    def memory_history(self, bank_id: str, memory_id: str) -> MemoryHistory:
        """Every edit and state change of a fact, oldest first."""
        return self.call(MemoryHistory, "GET", self._memory_path(bank_id, memory_id) + "/history")

    @staticmethod
    def _memory_path(bank_id: str, memory_id: str) -> str:
        return f"{BANKS}/{segment(bank_id)}/memories/{segment(memory_id)}"

    # -- documents ----------------------------------------------------------------------------

    def list_documents(
        self,
        bank_id: str,
        *,
        empty: bool | None = None,
        limit: int = 100,
        offset: int = 0,
        cursor: str | None = None,
    ) -> DocumentPage:
        """A page of documents, newest first (``empty``: only those with(out) memories).

        ``cursor``: a page's ``next_cursor``, to continue where that page ended.
        """
        params = {
            "empty": None if empty is None else str(empty).lower(),
            "limit": limit,
            "offset": offset,
            "cursor": cursor,
        }
        return self.call(
            DocumentPage, "GET", f"{BANKS}/{segment(bank_id)}/documents", params=params
        )

    def iter_documents(
        self, bank_id: str, *, empty: bool | None = None, page_size: int = MAX_PAGE
    ) -> Iterator[DocumentSummary]:
        """Every document summary, newest first."""

        def fetch(*, limit: int, cursor: str | None) -> DocumentPage:
            return self.list_documents(bank_id, empty=empty, limit=limit, cursor=cursor)

        return self._cursor_pages(fetch, page_size)

    def get_document(self, bank_id: str, document_id: str) -> Document:
        """One document with its original text and chunks."""
        return self.call(Document, "GET", self.document_path(bank_id, document_id))

    def delete_document(self, bank_id: str, document_id: str) -> DocumentDeleted:
        """Delete a document with its memories (and entities nobody else mentions)."""
        return self.call(DocumentDeleted, "DELETE", self.document_path(bank_id, document_id))

    def reprocess_document(self, bank_id: str, document_id: str) -> DocumentReprocessed:
        """Extract a document again under the bank's current mode and mission."""
        return self.call(
            DocumentReprocessed,
            "POST",
            self.document_path(bank_id, document_id) + "/reprocess",
        )

    @staticmethod
    def document_path(bank_id: str, document_id: str) -> str:
        """The path of a document (its id percent-encoded: it may contain ``/``)."""
        return f"{BANKS}/{segment(bank_id)}/documents/{segment(document_id)}"

    # -- entities -----------------------------------------------------------------------------

    def list_entities(
        self,
        bank_id: str,
        *,
        name: str | None = None,
        entity_type: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> EntityPage:
        """A page of entities, most mentioned first, filtered by name and type."""
        params = {"name": name, "type": entity_type, "limit": limit, "offset": offset}
        return self.call(EntityPage, "GET", f"{BANKS}/{segment(bank_id)}/entities", params=params)

    def iter_entities(self, bank_id: str, **filters: Any) -> Iterator[EntitySummary]:
        """Every entity summary matching the filters of :meth:`list_entities`."""

        def fetch(*, limit: int, offset: int) -> EntityPage:
            return self.list_entities(bank_id, limit=limit, offset=offset, **filters)

        return self._pages(fetch)

    def get_entity(self, bank_id: str, entity_id: str, *, neighbours: int = 10) -> EntityDetail:
        """One entity with its names (and where each came from) and neighbours."""
        return self.call(
            EntityDetail,
            "GET",
            self._entity_path(bank_id, entity_id),
            params={"neighbours": neighbours},
        )

    def entity_graph(
        self,
        bank_id: str,
        *,
        limit: int = 100,
        min_count: int = 1,
        entity_type: str | None = None,
    ) -> EntityGraph:
        """The co-occurrence graph of the most mentioned entities."""
        params = {"limit": limit, "min_count": min_count, "type": entity_type}
        return self.call(
            EntityGraph, "GET", f"{BANKS}/{segment(bank_id)}/entities/graph", params=params
        )

    def merge_entity(self, bank_id: str, entity_id: str, into: str, reason: str) -> EntityChange:
        """Fold ``entity_id`` into ``into`` (audited, revertible)."""
        return self.call(
            EntityChange,
            "POST",
            self._entity_path(bank_id, entity_id) + "/merge",
            body=MergeRequest(into=into, reason=reason),
        )

    def split_entity(
        self,
        bank_id: str,
        entity_id: str,
        memory_ids: Sequence[str],
        reason: str,
        *,
        name: str | None = None,
    ) -> EntityChange:
        """Move the mentions of ``memory_ids`` to a new entity (named ``name``)."""
        return self.call(
            EntityChange,
            "POST",
            self._entity_path(bank_id, entity_id) + "/split",
            body=SplitRequest(memory_ids=list(memory_ids), name=name, reason=reason),
        )

    def list_entity_merges(
        self,
        bank_id: str,
        *,
        kind: RecordKind | None = None,
        entity_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> EntityMergePage:
        """Audit records of merges, splits and reverts, newest first."""
        params = {"kind": kind, "entity_id": entity_id, "limit": limit, "offset": offset}
        return self.call(
            EntityMergePage, "GET", f"{BANKS}/{segment(bank_id)}/entity-merges", params=params
        )

    def iter_entity_merges(self, bank_id: str, **filters: Any) -> Iterator[EntityMergeRecord]:
        """Every audit record matching the filters of :meth:`list_entity_merges`."""

        def fetch(*, limit: int, offset: int) -> EntityMergePage:
            return self.list_entity_merges(bank_id, limit=limit, offset=offset, **filters)

        return self._pages(fetch)

    def revert_entity_merge(self, bank_id: str, merge_id: str, reason: str) -> EntityChange:
        """Undo a merge or a split exactly."""
        return self.call(
            EntityChange,
            "POST",
            f"{BANKS}/{segment(bank_id)}/entity-merges/{segment(merge_id)}/revert",
            body=RevertRequest(reason=reason),
        )

    @staticmethod
    def _entity_path(bank_id: str, entity_id: str) -> str:
        return f"{BANKS}/{segment(bank_id)}/entities/{segment(entity_id)}"

    # -- reviews ------------------------------------------------------------------------------

    def list_reviews(
        self, bank_id: str, *, status: ReviewFilter = "open", limit: int = 100, offset: int = 0
    ) -> ReviewPage:
        """A page of reviews (open by default), newest first."""
        params = {"status": status, "limit": limit, "offset": offset}
        return self.call(ReviewPage, "GET", f"{BANKS}/{segment(bank_id)}/reviews", params=params)

    def iter_reviews(self, bank_id: str, *, status: ReviewFilter = "open") -> Iterator[Review]:
        """Every review with this status."""

        def fetch(*, limit: int, offset: int) -> ReviewPage:
            return self.list_reviews(bank_id, status=status, limit=limit, offset=offset)

        return self._pages(fetch)

    def get_review(self, bank_id: str, review_id: str) -> Review:
        """One review."""
        return self.call(Review, "GET", f"{BANKS}/{segment(bank_id)}/reviews/{segment(review_id)}")

    def decide_review(
        self,
        bank_id: str,
        review_id: str,
        decision: Literal["same", "different"],
        reason: str | None = None,
    ) -> ReviewOutcome:
        """Decide a review: ``same`` merges the pair, ``different`` keeps it apart for good."""
        return self.call(
            ReviewOutcome,
            "POST",
            f"{BANKS}/{segment(bank_id)}/reviews/{segment(review_id)}",
            body=ReviewDecision(decision=decision, reason=reason),
        )
