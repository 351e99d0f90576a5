"""Analytics query headers and parameter checks (no database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.curate.analytics import (
    MAX_INT_PARAM,
    AnalyticsParam,
    analytics_queries,
    bind_params,
    describe,
    find_query,
)
from app.errors import InvalidInput
from app.store.cypher import CypherRegistry, Statement

REGISTRY = CypherRegistry.load()


def statement(text: str) -> Statement:
    return Statement(name="analytics/q", text=text, mode="read", path=Path("q.cypher"))


def test_header_gives_summary_required_params_and_defaults() -> None:
    query = describe(
        statement(
            "// What it answers,\n// on two lines.\n"
            '// params: $bank_id, $entity_id, $limit = 20, $label = "x"\n// mode: read\nRETURN 1'
        )
    )

    assert query.name == "q"
    assert query.summary == "What it answers, on two lines."
    assert query.params == (
        AnalyticsParam("bank_id", required=True),
        AnalyticsParam("entity_id", required=True),
        AnalyticsParam("limit", required=False, default=20),
        AnalyticsParam("label", required=False, default="x"),
    )


@pytest.mark.parametrize("line", ["// params: bank_id", "// params: $limit = twenty", ""])
def test_unreadable_params_header_is_refused(line: str) -> None:
    with pytest.raises(ValueError):
        describe(statement(f"// Q.\n{line}\n// mode: read\nRETURN 1"))


def test_every_analytics_file_is_read_only_bank_scoped_and_bounded() -> None:
    queries = analytics_queries(REGISTRY)

    assert len(queries) >= 8
    for query in queries:
        text = REGISTRY[f"analytics/{query.name}"].text
        assert REGISTRY[f"analytics/{query.name}"].mode == "read", query.name
        assert query.summary, query.name
        assert query.params[0] == AnalyticsParam("bank_id", required=True), query.name
        assert "{bank_id: $bank_id" in text, query.name
        if query.name != "overview":  # one row per counted group
            assert "LIMIT toInteger($limit)" in text, query.name


def test_parameters_are_checked_filled_and_bounded() -> None:
    _, query = find_query(REGISTRY, "entity_timeline")

    assert bind_params(query, {"bank_id": "b", "entity_id": "e"}) == {
        "bank_id": "b",
        "entity_id": "e",
        "limit": 100,
    }
    assert bind_params(query, {"bank_id": "b", "entity_id": "e", "limit": "7"})["limit"] == 7
    with pytest.raises(InvalidInput, match="entity_id is required") as missing:
        bind_params(query, {"bank_id": "b"})
    assert missing.value.extra == {"field": "entity_id"}
    with pytest.raises(InvalidInput, match="unknown parameter"):
        bind_params(query, {"bank_id": "b", "entity_id": "e", "limt": 3})
    for bad in (-1, MAX_INT_PARAM + 1, "ten", 2.5, True):
        with pytest.raises(InvalidInput, match="must be an integer"):
            bind_params(query, {"bank_id": "b", "entity_id": "e", "limit": bad})


@pytest.mark.parametrize("name", ["nope", "../banks/delete", "banks/delete", "Top_Entities"])
def test_only_analytics_files_can_be_named(name: str) -> None:
    with pytest.raises(InvalidInput, match="unknown analytics query"):
        find_query(REGISTRY, name)


def test_a_query_is_found_with_or_without_its_area() -> None:
    assert find_query(REGISTRY, "analytics/overview")[1].name == "overview"
    assert find_query(REGISTRY, "overview")[1].name == "overview"
