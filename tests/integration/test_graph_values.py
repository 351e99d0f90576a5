"""Records become plain Python as ``Record.data()`` would make them, with native times."""

from __future__ import annotations

from datetime import UTC, datetime

import neo4j

from app.store.graph import cypher_datetime, record_dict
from tests.conftest import neo4j_test_auth

QUERY = """
CREATE p = (a:ProbeValue {name: 'a', at: datetime($at)})
           -[:PROBE_LINK {w: 1}]->(b:ProbeValue {name: 'b'})
WITH a, b, p, [r IN relationships(p) | r][0] AS r
RETURN a, r, p, [{at: a.at, n: 1}] AS nested, duration({days: 1, seconds: 5}) AS gap,
       date('2024-03-01') AS day, null AS nothing, 1.5 AS x
"""


def test_record_dict_matches_record_data_with_native_times(test_neo4j: str) -> None:
    at = datetime(2024, 3, 1, 9, 15, 30, 123456, tzinfo=UTC)
    with (
        neo4j.GraphDatabase.driver(test_neo4j, auth=neo4j_test_auth()) as driver,
        driver.session() as session,
    ):
        tx = session.begin_transaction()
        try:
            record = tx.run(QUERY, at=cypher_datetime(at)).single()
            assert record is not None
            plain, data = record_dict(record), record.data()
        finally:
            tx.rollback()  # leaves nothing behind
    assert plain["a"] == {"name": "a", "at": at}
    assert plain["r"] == ({"name": "a", "at": at}, "PROBE_LINK", {"name": "b"})
    assert plain["p"] == [{"name": "a", "at": at}, "PROBE_LINK", {"name": "b"}]
    assert plain["nested"] == [{"at": at, "n": 1}]
    assert plain["gap"] == 86405
    assert plain["day"] == datetime(2024, 3, 1).date()
    assert plain["nothing"] is None and plain["x"] == 1.5
    assert data["a"]["at"].to_native() == at  # the same values record.data() carries
    assert list(plain) == list(data)
