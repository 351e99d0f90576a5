"""Every statement under cypher/ is valid Cypher for the Neo4j Mnemo runs on.

Each one is planned (``EXPLAIN``) against the test Neo4j, so a typo, an unknown function or a
property syntax error in a rarely used statement fails here rather than in front of a user.
Schema statements are applied (they are idempotent).
"""

from __future__ import annotations

import neo4j
import pytest

from app.store.cypher import CypherRegistry
from tests.conftest import neo4j_test_auth

REGISTRY = CypherRegistry.load()


@pytest.fixture(scope="module")
def session(test_neo4j: str):  # type: ignore[no-untyped-def]
    with (
        neo4j.GraphDatabase.driver(
            test_neo4j, auth=neo4j_test_auth(), notifications_min_severity="OFF"
        ) as driver,
        driver.session() as session,
    ):
        yield session


@pytest.mark.parametrize("name", REGISTRY.names())
def test_statement_plans_against_neo4j(session: neo4j.Session, name: str) -> None:
    statement = REGISTRY[name]
    if statement.mode == "schema":
        session.run(statement.text).consume()
        return
    # An implicit transaction: ``CALL { ... } IN TRANSACTIONS`` plans only there.
    session.run("EXPLAIN " + statement.text, dict.fromkeys(statement.used_params)).consume()


def test_a_broken_statement_fails_to_plan(session: neo4j.Session) -> None:
    with pytest.raises(neo4j.exceptions.CypherSyntaxError):
        session.run("EXPLAIN MATCH (m:Memory {bank_id: $bank_id}) RETRUN m").consume()
