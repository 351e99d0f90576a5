"""Ready-made analytics queries (``cypher/analytics/NAME.cypher``), run by name.

Each file's header says what it answers and its parameters, with defaults for the optional
ones: ``// params: $bank_id, $entity_id, $limit = 100``. The header is the contract: this module
reads it to list the queries and to check a caller's parameters before Neo4j sees them.
Parameters without a default are required; integer parameters (limits, thresholds) accept an
int or a decimal string (what a command line gives) and are bounded to ``[0, MAX_INT_PARAM]``,
so no query can be asked for an unbounded result. Unknown parameters are refused (a typo must
not fall back to a default silently), and the bank must exist.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from app.errors import InvalidInput, NotFound
from app.store.cypher import CypherRegistry, Statement
from app.store.graph import Graph

AREA = "analytics/"
MAX_INT_PARAM = 1000

_PARAMS_LINE = re.compile(r"^//\s*params:(.*)$", re.MULTILINE)
_PARAM = re.compile(r"^\$([A-Za-z_][A-Za-z0-9_]*)(?:\s*=\s*(.+))?$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class AnalyticsParam(msgspec.Struct, frozen=True):
    """One parameter of an analytics query; ``required`` when the header gives no default."""

    name: str
    required: bool
    default: Any = None


class AnalyticsQuery(msgspec.Struct, frozen=True):
    """An analytics query as its header describes it."""

    name: str
    summary: str
    params: tuple[AnalyticsParam, ...]


def describe(statement: Statement) -> AnalyticsQuery:
    """Read an analytics statement's header: its summary and parameters (with defaults)."""
    name = statement.name.removeprefix(AREA)
    lines = statement.text.splitlines()
    summary_lines = []
    for line in lines:
        if not line.startswith("//") or _PARAMS_LINE.match(line):
            break
        summary_lines.append(line.removeprefix("//").strip())
    match = _PARAMS_LINE.search(statement.text)
    if match is None:
        raise ValueError(f"{statement.path}: header lacks a '// params:' line")
    params = []
    for item in (part.strip() for part in match.group(1).split(",")):
        found = _PARAM.match(item)
        if found is None:
            raise ValueError(f"{statement.path}: cannot read parameter {item!r}")
        pname, default = found.groups()
        if default is None:
            params.append(AnalyticsParam(pname, required=True))
        else:
            try:
                value = json.loads(default)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{statement.path}: default of ${pname} is not JSON") from exc
            params.append(AnalyticsParam(pname, required=False, default=value))
    return AnalyticsQuery(name=name, summary=" ".join(summary_lines), params=tuple(params))


def analytics_queries(registry: CypherRegistry) -> list[AnalyticsQuery]:
    """Every query under ``cypher/analytics/``, by name."""
    return [describe(registry[n]) for n in registry.names(AREA)]


def find_query(registry: CypherRegistry, name: str) -> tuple[Statement, AnalyticsQuery]:
    """The statement and description of one analytics query.

    ``name`` is ``top_entities`` or ``analytics/top_entities``; InvalidInput (naming the known
    queries) when there is no such query.
    """
    short = name.removeprefix(AREA)
    known = [n.removeprefix(AREA) for n in registry.names(AREA)]
    if not _NAME.match(short) or short not in known:
        raise InvalidInput(
            f"unknown analytics query {name!r}; known: {', '.join(known)}",
            extra={"field": "name", "known": known},
        )
    statement = registry[AREA + short]
    if statement.mode != "read":
        raise InvalidInput(f"analytics query {short!r} is not read-only")
    return statement, describe(statement)


def bind_params(query: AnalyticsQuery, params: Mapping[str, Any]) -> dict[str, Any]:
    """Check a caller's parameters against the header; defaults filled in, integers bounded."""
    known = {p.name: p for p in query.params}
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise InvalidInput(
            f"{query.name}: unknown parameter(s) {', '.join(unknown)}; it takes {', '.join(known)}",
            extra={"field": unknown[0]},
        )
    bound: dict[str, Any] = {}
    for p in query.params:
        value = params.get(p.name)
        if value is None:
            if p.required:
                raise InvalidInput(
                    f"{query.name}: parameter {p.name} is required", extra={"field": p.name}
                )
            value = p.default
        elif isinstance(p.default, int) and not isinstance(p.default, bool):
            value = _bounded_int(query.name, p.name, value)
        bound[p.name] = value
    return bound


def _bounded_int(query: str, name: str, value: Any) -> int:
    if isinstance(value, str) and value.strip().isdecimal():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT_PARAM:
        raise InvalidInput(
            f"{query}: parameter {name} must be an integer in [0, {MAX_INT_PARAM}], got {value!r}",
            extra={"field": name},
        )
    return value


async def run_analytics(graph: Graph, name: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Run the analytics query ``name`` with ``params``; its rows as plain dicts.

    Raises InvalidInput for an unknown query, a missing, unknown or out-of-range parameter, and
    NotFound when the parameters name a bank that does not exist.
    """
    statement, query = find_query(graph.registry, name)
    bound = bind_params(query, params)
    if "bank_id" in bound and not await graph.run("banks/exists", {"bank_id": bound["bank_id"]}):
        raise NotFound(f"bank {bound['bank_id']!r} not found", extra={"field": "bank_id"})
    return await graph.run(statement.name, bound)
