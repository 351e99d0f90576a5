"""Async retains: recorded in Neo4j, worked in the background, resumed after a restart.

Pending or running operations are resumed when the service starts again.

Other features queue their own kinds of work here too (a mental model refresh): they
:meth:`OperationRunner.register` a handler for an operation type and :meth:`~OperationRunner.
submit_work` a request; each type has its own queue and worker, so a slow LLM refresh never
holds up a retain.

Items are retained in batches. When a batch fails, its items are retried one at a time, so one
bad item fails loudly (its index and error are recorded) and loses nothing else. Re-running an
interrupted batch is safe: every item carries a fixed document id and the same content again
writes nothing new.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

import msgspec

from app.domain.events import EventSink, NoEvents
from app.errors import MnemoError, NotFound
from app.retain.pipeline import RetainPipeline
from app.retain.schemas import (
    ItemError,
    Operation,
    OperationPage,
    OperationStatus,
    RetainItem,
    status_view,
)
from app.store.background import stop_tasks
from app.store.graph import Graph

log = logging.getLogger(__name__)

# An operation interrupted this many times is failed instead of resumed again: something in
# it probably kills the process.
MAX_ATTEMPTS = 3
BATCH_ITEMS = 50


RETAIN = "retain"


class WorkOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What a registered handler reports for one operation."""

    failed: bool = False
    errors: list[str] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


# (bank id, operation id, the request recorded with it) -> what happened.
WorkHandler = Callable[[str, str, str], Awaitable[WorkOutcome]]


class _Stored(msgspec.Struct, kw_only=True):
    id: str
    bank_id: str
    type: str
    status: OperationStatus
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    items_count: int = 0
    items_done: int = 0
    memories_count: int = 0
    attempts: int = 0
    errors_json: str = "[]"
    warnings: list[str] | None = None


class _Row(msgspec.Struct):
    operation: _Stored


class _Unfinished(msgspec.Struct):
    bank_id: str
    id: str
    attempts: int
    type: str = RETAIN


class _Progress(msgspec.Struct, kw_only=True):
    done: int = 0
    memories: int = 0
    errors: list[ItemError] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)

    def params(self) -> dict[str, object]:
        return {
            "items_done": self.done,
            "memories_count": self.memories,
            "errors_json": msgspec.json.encode(self.errors).decode(),
            "warnings": self.warnings[-100:],
        }


class OperationRunner:
    """Records, runs and reports async retains; one background worker per process."""

    def __init__(
        self, graph: Graph, pipeline: RetainPipeline, events: EventSink | None = None
    ) -> None:
        self._graph = graph
        self._pipeline = pipeline
        # Told ``retain.completed`` when an operation finishes (webhooks).
        self._events: EventSink = events or NoEvents()
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        # Registered operation types: their handler, queue and worker.
        self._handlers: dict[str, WorkHandler] = {}
        self._queues: dict[str, asyncio.Queue[tuple[str, str]]] = {RETAIN: self._queue}
        self._workers: list[asyncio.Task[None]] = []

    def register(self, kind: str, handler: WorkHandler) -> None:
        """Run operations of type ``kind`` with ``handler`` (register before :meth:`start`)."""
        if kind == RETAIN or kind in self._handlers:
            raise ValueError(f"operation type {kind!r} already has a handler")
        self._handlers[kind] = handler
        self._queues[kind] = asyncio.Queue()

    async def submit_work(self, bank_id: str, kind: str, request_json: str) -> str:
        """Record an operation of a registered type, queue it, and return its id at once."""
        if kind not in self._handlers:
            raise ValueError(f"no handler for operation type {kind!r}")
        operation_id = str(uuid.uuid4())
        rows = await self._graph.run(
            "operations/create",
            {
                "bank_id": bank_id,
                "id": operation_id,
                "type": kind,
                "items_count": 1,
                "request_json": request_json,
            },
        )
        if not rows:
            raise NotFound(f"bank {bank_id!r} not found")
        self._queues[kind].put_nowait((bank_id, operation_id))
        return operation_id

    async def start(self) -> None:
        """Resume what a previous process left unfinished, then start the worker."""
        for row in await self._graph.rows("operations/unfinished", {}, _Unfinished):
            if row.attempts >= MAX_ATTEMPTS:
                await self._finish(
                    row.bank_id,
                    row.id,
                    "failed",
                    _Progress(
                        errors=[ItemError(-1, f"interrupted {row.attempts} times; not resumed")]
                    ),
                    kind=row.type,
                )
            elif row.type in self._queues:
                log.info("resuming operation %s of bank %s", row.id, row.bank_id)
                self._queues[row.type].put_nowait((row.bank_id, row.id))
            else:
                await self._finish(
                    row.bank_id,
                    row.id,
                    "failed",
                    _Progress(errors=[ItemError(-1, f"no handler for type {row.type!r}")]),
                    kind=row.type,
                )
        self._worker = asyncio.create_task(self._work(), name="mnemo-operations")
        self._workers = [
            asyncio.create_task(self._work_on(kind, handler), name=f"mnemo-operations-{kind}")
            for kind, handler in self._handlers.items()
        ]

    async def stop(self) -> None:
        """Stop the worker; an operation in progress stays `running` and resumes next start."""
        await stop_tasks(t for t in (self._worker, *self._workers) if t is not None)
        self._worker = None
        self._workers = []

    async def submit(self, bank_id: str, items: Sequence[RetainItem]) -> str:
        """Check and record a retain, queue it, and return its operation id at once.

        The stored request holds the items as memory defense left them (redacted, blocked
        ones dropped): screening items a caller screened already finds nothing new.
        """
        items = (await self._pipeline.screen(bank_id, items)).items
        # Fix document ids now, so that a resumed run upserts the same documents.
        fixed = [
            item
            if item.document_id
            else msgspec.structs.replace(item, document_id=str(uuid.uuid4()))
            for item in items
        ]
        operation_id = str(uuid.uuid4())
        rows = await self._graph.run(
            "operations/create",
            {
                "bank_id": bank_id,
                "id": operation_id,
                "type": "retain",
                "items_count": len(fixed),
                "request_json": msgspec.json.encode(fixed).decode(),
            },
        )
        if not rows:
            raise NotFound(f"bank {bank_id!r} not found")
        self._queue.put_nowait((bank_id, operation_id))
        return operation_id

    async def get(self, bank_id: str, operation_id: str) -> Operation:
        """One operation; NotFound when it is not in this bank."""
        row = await self._graph.row(
            "operations/get", {"bank_id": bank_id, "id": operation_id}, _Row
        )
        if row is None:
            raise NotFound(f"operation {operation_id!r} not found in bank {bank_id!r}")
        return _to_operation(row.operation)

    async def page(self, bank_id: str, *, limit: int, offset: int) -> OperationPage:
        """A bank's operations, newest first."""
        rows = await self._graph.rows(
            "operations/list", {"bank_id": bank_id, "limit": limit, "offset": offset}, _Row
        )
        total = (await self._graph.run("operations/total", {"bank_id": bank_id}))[0]["total"]
        return OperationPage(
            bank_id=bank_id,
            operations=[_to_operation(r.operation) for r in rows],
            total=total,
            limit=limit,
            offset=offset,
        )

    async def wait_idle(self) -> None:
        """Wait until every queued operation has been worked (tests and shutdown)."""
        for queue in self._queues.values():
            await queue.join()

    async def _work(self) -> None:
        while True:
            bank_id, operation_id = await self._queue.get()
            try:
                await self._run(bank_id, operation_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # the worker must survive anything one operation does
                log.exception("operation %s failed unexpectedly", operation_id)
                await self._finish(
                    bank_id,
                    operation_id,
                    "failed",
                    _Progress(errors=[ItemError(-1, "internal error; see the service log")]),
                )
            finally:
                self._queue.task_done()

    async def _work_on(self, kind: str, handler: WorkHandler) -> None:
        """The worker of one registered type: one operation at a time, surviving any."""
        queue = self._queues[kind]
        while True:
            bank_id, operation_id = await queue.get()
            try:
                rows = await self._graph.run(
                    "operations/start", {"bank_id": bank_id, "id": operation_id}
                )
                if rows and rows[0]["request_json"] is not None:
                    outcome = await handler(bank_id, operation_id, rows[0]["request_json"])
                    await self._finish(
                        bank_id,
                        operation_id,
                        "failed" if outcome.failed else "completed",
                        _Progress(
                            done=1,
                            errors=[ItemError(0, e) for e in outcome.errors],
                            warnings=list(outcome.warnings),
                        ),
                        kind=kind,
                    )
            except asyncio.CancelledError:
                raise
            except Exception:  # the worker must survive anything one operation does
                log.exception("operation %s (%s) failed unexpectedly", operation_id, kind)
                await self._finish(
                    bank_id,
                    operation_id,
                    "failed",
                    _Progress(errors=[ItemError(-1, "internal error; see the service log")]),
                    kind=kind,
                )
            finally:
                queue.task_done()

    async def _run(self, bank_id: str, operation_id: str) -> None:
        rows = await self._graph.run("operations/start", {"bank_id": bank_id, "id": operation_id})
        if not rows or rows[0]["request_json"] is None:
            return
        items = msgspec.json.decode(rows[0]["request_json"], type=list[RetainItem])
        progress = _Progress()
        for start in range(0, len(items), BATCH_ITEMS):
            batch = items[start : start + BATCH_ITEMS]
            await self._retain_batch(bank_id, batch, start, progress)
            progress.done = start + len(batch)
            await self._graph.run(
                "operations/progress", {"bank_id": bank_id, "id": operation_id, **progress.params()}
            )
        failed_all = len(progress.errors) == len(items)
        await self._finish(bank_id, operation_id, "failed" if failed_all else "completed", progress)

    async def _retain_batch(
        self, bank_id: str, batch: Sequence[RetainItem], offset: int, progress: _Progress
    ) -> None:
        try:
            response = await self._pipeline.retain(bank_id, batch)
        except MnemoError as exc:
            if isinstance(exc, NotFound) or len(batch) == 1:
                progress.errors.extend(ItemError(offset + i, exc.detail) for i in range(len(batch)))
                return
        except Exception as exc:
            if len(batch) == 1:
                log.exception("item %d of an operation failed", offset)
                progress.errors.append(ItemError(offset, f"{type(exc).__name__}: {exc}"))
                return
        else:
            progress.memories += len(response.memory_ids)
            progress.warnings.extend(w for item in response.items for w in item.warnings)
            return
        # The batch failed: retry its items one by one so only the bad one is lost.
        for i, item in enumerate(batch):
            await self._retain_batch(bank_id, [item], offset + i, progress)

    async def _finish(
        self,
        bank_id: str,
        operation_id: str,
        status: OperationStatus,
        progress: _Progress,
        *,
        kind: str = RETAIN,
    ) -> None:
        """Close an operation; a retain's end is also a ``retain.completed`` event.

        Handlers of other operation types emit their own events.
        """
        await self._graph.run(
            "operations/finish",
            {"bank_id": bank_id, "id": operation_id, "status": status, **progress.params()},
        )
        if kind != RETAIN:
            return
        self._events.emit(
            bank_id,
            "retain.completed",
            {
                "operation_id": operation_id,
                "async": True,
                "status": status,
                "items_count": progress.done,
                "memory_unit_count": progress.memories,
                "errors": [{"index": e.index, "error": e.error} for e in progress.errors],
            },
        )


def _to_operation(stored: _Stored) -> Operation:
    return Operation(
        id=stored.id,
        bank_id=stored.bank_id,
        type=stored.type,
        status=status_view(stored.status),
        created_at=stored.created_at,
        started_at=stored.started_at,
        finished_at=stored.finished_at,
        items_count=stored.items_count,
        items_done=stored.items_done,
        memories_count=stored.memories_count,
        attempts=stored.attempts,
        errors=msgspec.json.decode(stored.errors_json, type=list[ItemError]),
        warnings=list(stored.warnings or ()),
    )
