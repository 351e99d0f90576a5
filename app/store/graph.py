"""Neo4j access: the async driver plus the Cypher registry, returning msgspec Structs.

The rest of Mnemo calls statements by name with parameters and gets typed rows back; it never
sees the driver. Database and routing are driver arguments, never query parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, LiteralString, TypeVar, cast

import msgspec
import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, RoutingControl
from neo4j.exceptions import (
    ClientError,
    ConstraintError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from neo4j.graph import Node, Path, Relationship
from neo4j.time import Date, DateTime, Duration, Time

from app.config import Settings
from app.errors import NotFound, Unavailable
from app.store.cypher import CypherRegistry, Statement
from app.store.local_neo4j import neo4j_auth

T = TypeVar("T")
log = logging.getLogger(__name__)

# A write transaction that failed transiently (deadlock, leader switch) runs again this often.
WRITE_ATTEMPTS = 5
RETRY_BASE_DELAY_S = 0.05
# Errors after which a retry (a new connection) may succeed.
TRANSIENT_ERRORS = (ServiceUnavailable, SessionExpired)
# What a statement raises when a node it matched was deleted by a concurrent transaction.
ENTITY_DELETED = "Neo.ClientError.Statement.EntityNotFound"
# What a schema statement raises when a concurrent start created the same index or constraint.
EQUIVALENT_SCHEMA_RULE = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"


@asynccontextmanager
async def _as_domain_errors() -> AsyncIterator[None]:
    """Driver failures a client can do nothing about but retry become ``Unavailable`` (503)."""
    try:
        yield
    except (ServiceUnavailable, SessionExpired) as exc:
        # The driver's message names the server's address: it goes to the log, not the client.
        log.warning("Neo4j unavailable: %s", exc)
        raise Unavailable("Neo4j is unavailable; try again") from exc
    except TransientError as exc:
        raise Unavailable(f"Neo4j is busy, try again: {exc.message}") from exc
    except Neo4jError as exc:
        if exc.code != ENTITY_DELETED:
            raise
        # A write found its node, then another transaction deleted it before the lock.
        raise NotFound("it was deleted by another request meanwhile") from exc


def to_native(value: Any) -> Any:
    """A record value as plain Python: temporal values native, nodes and paths as data.

    One walk that passes scalars, lists and dicts by exact type, because retain reads rows of
    hundreds of values each (a candidate's neighbours), where a generic per-value conversion
    is a large share of the Python time.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is list:
        return [to_native(v) for v in value]
    if kind is dict:
        return {k: to_native(v) for k, v in value.items()}
    if isinstance(value, DateTime | Date | Time):
        return value.to_native()
    if isinstance(value, Duration):
        return value.seconds + value.days * 86400
    if isinstance(value, Node):
        return to_native(dict(value))
    if isinstance(value, Relationship):
        start, end = value.start_node, value.end_node
        return (
            to_native(dict(start or {})),
            type(value).__name__,
            to_native(dict(end or {})),
        )
    if isinstance(value, Path):
        path = [to_native(value.start_node)]
        for relationship, node in zip(value.relationships, value.nodes[1:], strict=True):
            path += [type(relationship).__name__, to_native(node)]
        return path
    if isinstance(value, list | tuple | set | frozenset):
        return [to_native(v) for v in value]
    if isinstance(value, dict):
        return {k: to_native(v) for k, v in value.items()}
    return value


def record_dict(record: neo4j.Record) -> dict[str, Any]:
    """One record as a dict of plain values (see :func:`to_native`)."""
    return dict(zip(record.keys(), map(to_native, record), strict=True))


def cypher_datetime(value: datetime) -> str:
    """A datetime parameter as ISO 8601 text, for a statement that applies ``datetime()``.

    The driver packs a Python datetime through its own pure-Python calendar (about 90 µs
    each, more than the rest of a fact's row); retain's statements, which send thousands per
    batch, take the text and let Neo4j parse it. Exact to the microsecond.
    """
    return value.isoformat()


def convert_rows(rows: list[dict[str, Any]], into: type[T]) -> list[T]:
    """Convert plain records into Structs (lax: Neo4j ints and floats are interchangeable).

    Neo4j reads committed data: a node that another transaction deletes after this statement
    found it reads back with no properties at all (every stored node has some, its bank id at
    least), and a map projection of it (``m {.id, .text}``) with every key null. Such a row
    describes something that no longer exists; it is left out, as if the statement had run a
    moment later, instead of failing the request as a malformed record.
    """
    try:
        return msgspec.convert(rows, list[into], strict=False)  # type: ignore[valid-type]
    except msgspec.ValidationError:
        present = [_without_vanished(row) for row in rows]
        kept = [row for row in present if row is not None]
        if kept == rows:
            raise
        return msgspec.convert(kept, list[into], strict=False)  # type: ignore[valid-type]


def _without_vanished(row: dict[str, Any]) -> dict[str, Any] | None:
    """``row`` without the deleted nodes in its lists; None when a column is a deleted node."""
    if any(_vanished(value) for value in row.values()):
        return None
    return {
        key: [item for item in value if not _vanished(item)] if type(value) is list else value
        for key, value in row.items()
    }


def _vanished(value: Any) -> bool:
    # A deleted node ({}) or a projection of one (every key null: a stored node has its ids).
    return type(value) is dict and all(v is None for v in value.values())


class Tx:
    """A unit of work inside one managed transaction, running statements by name."""

    def __init__(self, tx: AsyncManagedTransaction, registry: CypherRegistry) -> None:
        self._tx = tx
        self._registry = registry

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one statement and return its records as dicts."""
        statement = self._registry[name]
        result = await self._tx.run(_query(statement), dict(params or {}))
        return [record_dict(record) async for record in result]

    async def rows(self, name: str, params: Mapping[str, Any], into: type[T]) -> list[T]:
        """Run one statement and return its records as Structs."""
        return convert_rows(await self.run(name, params), into)


class KeyedLocks:
    """One asyncio lock per key (a bank id), kept only while someone holds or awaits it."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Hold the lock of ``key`` for the duration of the block."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        async with lock:
            yield


class Graph:
    """The graph store: named Cypher statements over an async Neo4j driver."""

    def __init__(self, driver: AsyncDriver, registry: CypherRegistry, database: str) -> None:
        self._driver = driver
        self.registry = registry
        self.database = database
        self._bank_writers = KeyedLocks()
        # Writes made on behalf of clients (everything but background work): background work
        # reads it to yield to them.
        self.foreground_writes = 0
        # Seconds background writers spent waiting for a bank's writers (not working): background
        # work that paces itself by its own time leaves these out.
        self.background_wait_s = 0.0

    @classmethod
    def connect(
        cls,
        uri: str,
        *,
        registry: CypherRegistry,
        database: str = "neo4j",
        user: str | None = None,
        password: str | None = None,
        auth: tuple[str, str] | None = None,
    ) -> Graph:
        """Create the driver (connections are opened lazily, on first use).

        ``auth``: a (user, password) pair; ``user``/``password`` are the same, apart.
        """
        auth = auth or ((user, password or "") if user else None)
        driver = AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            # Fail fast when Neo4j is down or hung; the liveness watcher (store/liveness.py)
            # ends requests that still wait.
            connection_acquisition_timeout=4.0,
            connection_timeout=2.0,
            max_transaction_retry_time=5.0,
            # Statements are reviewed files; "unknown property" hints on an empty bank are noise.
            notifications_min_severity="OFF",
        )
        return cls(driver, registry, database)

    @classmethod
    def from_settings(cls, settings: Settings, registry: CypherRegistry) -> Graph:
        """The driver the settings describe, with the local server's password when it is ours."""
        return cls.connect(
            settings.bolt_uri,
            registry=registry,
            database=settings.neo4j_database,
            auth=neo4j_auth(settings),
        )

    async def close(self) -> None:
        """Close every connection."""
        await self._driver.close()

    async def ping(self) -> None:
        """Run a trivial query once (no retries: a refused connection raises at once)."""
        async with self._driver.session(database=self.database) as session:
            result = await session.run("RETURN 1")
            await result.consume()

    async def healthy(self, timeout: float = 1.5) -> bool:
        """True when Neo4j answers a trivial query within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(self.ping(), timeout)
        except (TimeoutError, Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
            log.warning("Neo4j not usable: %s", type(exc).__name__)
            return False
        return True

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one statement in its own transaction (routing from its header)."""
        statement = self.registry[name]
        routing = RoutingControl.READ if statement.mode == "read" else RoutingControl.WRITE
        async with _as_domain_errors():
            result = await self._driver.execute_query(
                _query(statement), dict(params or {}), database_=self.database, routing_=routing
            )
        return [record_dict(record) for record in result.records]

    async def rows(self, name: str, params: Mapping[str, Any], into: type[T]) -> list[T]:
        """Run one statement and return its records as Structs."""
        return convert_rows(await self.run(name, params), into)

    async def row(self, name: str, params: Mapping[str, Any], into: type[T]) -> T | None:
        """Run one statement and return its first record as a Struct, or None."""
        found = await self.rows(name, params, into)
        return found[0] if found else None

    async def run_batched(
        self, bank_id: str, name: str, params: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Run a bank's ``CALL { ... } IN TRANSACTIONS`` statement (an implicit transaction).

        It is the bank's writer in this process for its duration, so no retain or
        consolidation of the bank runs between its batches. A batch that deadlocks with a
        writer elsewhere runs the statement again, which must therefore finish what is left
        (a delete, a rebuild); the rows are the last run's.
        """
        statement = self.registry[name]

        async def run_once() -> list[dict[str, Any]]:
            async with self._driver.session(database=self.database) as session:
                result = await session.run(_query(statement), dict(params or {}))
                return [record_dict(record) async for record in result]

        async with self._bank_writers.hold(bank_id):
            return await _retrying(run_once, WRITE_ATTEMPTS)

    async def write(
        self,
        bank_id: str,
        work: Callable[[Tx], Awaitable[T]],
        *,
        exclusive: bool = True,
        attempts: int = WRITE_ATTEMPTS,
        background: bool = False,
    ) -> T:
        """Run ``work`` in one write transaction of a bank; every writer of a bank comes here.

        A transient failure (a deadlock, a lost leader) runs ``work`` again from scratch, with
        backoff: it is all-or-nothing and must keep no state from a failed attempt.

        ``exclusive`` (the default): the writers of one bank run one at a time. In this process
        they queue on an asyncio lock, so that waiting holds no open transaction; across
        processes the transaction's first statement takes the bank node's write lock
        (``banks/lock``); ``NotFound`` when the bank does not exist. ``exclusive=False`` is for
        work that changes nothing another writer reads or decides on (retain's publish: links
        between facts already written, and their pending flags); it can then deadlock with a
        writer, which the retry absorbs.

        ``background`` marks work no client waits for (consolidation): it is not counted in
        :attr:`foreground_writes`, which background work watches to stay out of the way.
        """
        if not background:
            self.foreground_writes += 1
        waiting = time.perf_counter()

        async def work_once() -> T:
            async with self._driver_transaction() as tx:
                if exclusive and not await tx.run("banks/lock", {"bank_id": bank_id}):
                    raise NotFound(f"bank {bank_id!r} not found")
                return await work(tx)

        async with self._bank_writers.hold(bank_id) if exclusive else contextlib.nullcontext():
            if background:
                self.background_wait_s += time.perf_counter() - waiting
            return await _retrying(work_once, attempts)

    @asynccontextmanager
    async def _driver_transaction(self) -> AsyncIterator[Tx]:
        async with self._driver.session(database=self.database) as session:
            tx = await session.begin_transaction()
            try:
                yield Tx(cast(AsyncManagedTransaction, tx), self.registry)
            except BaseException:
                # A transaction the server already failed (a deadlock victim) is closed; rolling
                # it back again would hide the real error behind "transaction closed".
                if not tx.closed():
                    with contextlib.suppress(Neo4jError, neo4j.exceptions.DriverError):
                        await tx.rollback()
                raise
            else:
                await tx.commit()

    async def bootstrap_schema(self) -> list[str]:
        """Create every constraint and index under cypher/schema (each is IF NOT EXISTS)."""
        applied = []
        for name in self.registry.names("schema/"):
            try:
                await self.run(name)
            except ClientError as exc:
                # Two starts that both found it missing both create it (IF NOT EXISTS is
                # checked before either commits); the later one is told it exists: it does.
                if exc.code != EQUIVALENT_SCHEMA_RULE:
                    raise
            applied.append(name)
        await self._driver.execute_query(
            "CALL db.awaitIndexes(300)", database_=self.database, routing_=RoutingControl.WRITE
        )
        return applied


async def _retrying(once: Callable[[], Awaitable[T]], attempts: int) -> T:
    """``once()``, run again with backoff after a transient failure (a deadlock, a lost leader).

    ``once`` must keep no state from a failed attempt.
    """
    for attempt in range(1, attempts + 1):
        try:
            return await once()
        except TransientError as exc:
            if attempt == attempts or not exc.is_retryable():
                raise Unavailable(f"Neo4j is busy, try again: {exc.message}") from exc
            delay = RETRY_BASE_DELAY_S * 2 ** (attempt - 1) * (1 + random.random())
            log.info("transient Neo4j error (%s); retrying in %.2f s", exc.code, delay)
            await asyncio.sleep(delay)
        except (ServiceUnavailable, SessionExpired) as exc:
            log.warning("Neo4j unavailable: %s", exc)
            raise Unavailable("Neo4j is unavailable; try again") from exc
    raise AssertionError("unreachable")


def _query(statement: Statement) -> LiteralString:
    # Statements come from files in the repository, never from user input.
    return statement.text


__all__ = [
    "TRANSIENT_ERRORS",
    "ConstraintError",
    "Graph",
    "Tx",
    "convert_rows",
    "cypher_datetime",
    "record_dict",
    "to_native",
]
