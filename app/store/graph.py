"""Neo4j access: the async driver plus the Cypher registry, returning msgspec Structs.

The rest of Mnemo calls statements by name with parameters and gets typed rows back; it never
sees the driver. Database and routing are driver arguments, never query parameters.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, LiteralString, TypeVar, cast

import msgspec
import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, RoutingControl
from neo4j.exceptions import (
    ConstraintError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from neo4j.graph import Node, Path, Relationship
from neo4j.time import Date, DateTime, Duration, Time

from app.errors import NotFound, Unavailable
from app.store.cypher import CypherRegistry, Statement

T = TypeVar("T")
log = logging.getLogger(__name__)

# A write transaction that failed transiently (deadlock, leader switch) runs again this often.
WRITE_ATTEMPTS = 5
RETRY_BASE_DELAY_S = 0.05
# Errors after which a retry (a new connection) may succeed.
TRANSIENT_ERRORS = (ServiceUnavailable, SessionExpired)


@asynccontextmanager
async def _as_domain_errors() -> AsyncIterator[None]:
    """Driver failures a client can do nothing about but retry become ``Unavailable`` (503)."""
    try:
        yield
    except (ServiceUnavailable, SessionExpired) as exc:
        raise Unavailable(f"Neo4j is unavailable: {exc}") from exc
    except TransientError as exc:
        raise Unavailable(f"Neo4j is busy, try again: {exc.message}") from exc


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
    """Convert plain records into Structs (lax: Neo4j ints and floats are interchangeable)."""
    return msgspec.convert(rows, list[into], strict=False)  # type: ignore[valid-type]


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

    @classmethod
    def connect(
        cls,
        uri: str,
        *,
        registry: CypherRegistry,
        database: str = "neo4j",
        user: str | None = None,
        password: str | None = None,
    ) -> Graph:
        """Create the driver (connections are opened lazily, on first use)."""
        auth = (user, password or "") if user else None
        driver = AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            # Fail fast when Neo4j is down, so readiness answers 503 quickly.
            connection_acquisition_timeout=10.0,
            connection_timeout=5.0,
            max_transaction_retry_time=15.0,
            # Statements are reviewed files; "unknown property" hints on an empty bank are noise.
            notifications_min_severity="OFF",
        )
        return cls(driver, registry, database)

    async def close(self) -> None:
        """Close every connection."""
        await self._driver.close()

    async def healthy(self) -> bool:
        """True when Neo4j answers a trivial query."""
        try:
            await self._driver.execute_query(
                "RETURN 1", database_=self.database, routing_=RoutingControl.READ
            )
        except (Neo4jError, neo4j.exceptions.DriverError, OSError) as exc:
            log.warning("Neo4j not usable: %s", exc)
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

    async def run_implicit(
        self, name: str, params: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Run a statement in an implicit (auto-commit) transaction.

        Needed for ``CALL { ... } IN TRANSACTIONS``, which managed transactions refuse.
        """
        statement = self.registry[name]
        async with _as_domain_errors(), self._driver.session(database=self.database) as session:
            result = await session.run(_query(statement), dict(params or {}))
            return [record_dict(record) async for record in result]

    async def write(
        self,
        bank_id: str,
        work: Callable[[Tx], Awaitable[T]],
        *,
        exclusive: bool = True,
        attempts: int = WRITE_ATTEMPTS,
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
        """
        async with self._bank_writers.hold(bank_id) if exclusive else contextlib.nullcontext():
            for attempt in range(1, attempts + 1):
                try:
                    async with self._driver_transaction() as tx:
                        if exclusive and not await tx.run("banks/lock", {"bank_id": bank_id}):
                            raise NotFound(f"bank {bank_id!r} not found")
                        return await work(tx)
                except TransientError as exc:
                    if attempt == attempts or not exc.is_retryable():
                        raise Unavailable(f"Neo4j is busy, try again: {exc.message}") from exc
                    delay = RETRY_BASE_DELAY_S * 2 ** (attempt - 1) * (1 + random.random())
                    log.info("transient Neo4j error (%s); retrying in %.2f s", exc.code, delay)
                    await asyncio.sleep(delay)
                except (ServiceUnavailable, SessionExpired) as exc:
                    raise Unavailable(f"Neo4j is unavailable: {exc}") from exc
        raise AssertionError("unreachable")

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
            await self.run(name)
            applied.append(name)
        await self._driver.execute_query(
            "CALL db.awaitIndexes(300)", database_=self.database, routing_=RoutingControl.WRITE
        )
        return applied


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
