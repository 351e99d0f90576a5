"""Neo4j access: the async driver plus the Cypher registry, returning msgspec Structs.

The rest of Mnemo calls statements by name with parameters and gets typed rows back; it never
sees the driver. Database and routing are driver arguments, never query parameters.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, LiteralString, TypeVar, cast

import msgspec
import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, RoutingControl
from neo4j.exceptions import ConstraintError, Neo4jError, ServiceUnavailable, SessionExpired
from neo4j.time import Date, DateTime, Duration, Time

from app.store.cypher import CypherRegistry, Statement

T = TypeVar("T")
log = logging.getLogger(__name__)

# Errors after which a retry (a new connection) may succeed.
TRANSIENT_ERRORS = (ServiceUnavailable, SessionExpired)


def to_native(value: Any) -> Any:
    """Turn Neo4j temporal values (recursively) into Python ones msgspec understands."""
    if isinstance(value, DateTime | Date | Time):
        return value.to_native()
    if isinstance(value, Duration):
        return value.seconds + value.days * 86400
    if isinstance(value, list):
        return [to_native(v) for v in value]
    if isinstance(value, dict):
        return {k: to_native(v) for k, v in value.items()}
    return value


def convert_rows(rows: list[dict[str, Any]], into: type[T]) -> list[T]:
    """Convert plain records into Structs (lax: Neo4j ints and floats are interchangeable)."""
    return msgspec.convert([to_native(r) for r in rows], list[into], strict=False)  # type: ignore[valid-type]


class Tx:
    """A unit of work inside one managed transaction, running statements by name."""

    def __init__(self, tx: AsyncManagedTransaction, registry: CypherRegistry) -> None:
        self._tx = tx
        self._registry = registry

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one statement and return its records as dicts."""
        statement = self._registry[name]
        result = await self._tx.run(_query(statement), dict(params or {}))
        return [record.data() async for record in result]

    async def rows(self, name: str, params: Mapping[str, Any], into: type[T]) -> list[T]:
        """Run one statement and return its records as Structs."""
        return convert_rows(await self.run(name, params), into)


class Graph:
    """The graph store: named Cypher statements over an async Neo4j driver."""

    def __init__(self, driver: AsyncDriver, registry: CypherRegistry, database: str) -> None:
        self._driver = driver
        self.registry = registry
        self.database = database

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
        result = await self._driver.execute_query(
            _query(statement), dict(params or {}), database_=self.database, routing_=routing
        )
        return [record.data() for record in result.records]

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
        async with self._driver.session(database=self.database) as session:
            result = await session.run(_query(statement), dict(params or {}))
            return [record.data() async for record in result]

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """One explicit write transaction: commits on success, rolls back on error."""
        async with self._driver.session(database=self.database) as session:
            tx = await session.begin_transaction()
            try:
                yield Tx(cast(AsyncManagedTransaction, tx), self.registry)
            except BaseException:
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


__all__ = ["TRANSIENT_ERRORS", "ConstraintError", "Graph", "Tx", "convert_rows", "to_native"]
