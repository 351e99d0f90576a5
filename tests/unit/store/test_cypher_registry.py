"""Every Cypher statement's header says what it takes: exactly the parameters its body uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.store.cypher import CypherRegistry, Statement

REGISTRY = CypherRegistry.load()


@pytest.mark.parametrize("name", REGISTRY.names())
def test_header_names_exactly_the_parameters_the_body_uses(name: str) -> None:
    declared, used = REGISTRY[name].declared_params, REGISTRY[name].used_params
    assert declared == used, (
        f"cypher/{name}.cypher: header-only {sorted(declared - used)}, "
        f"body-only {sorted(used - declared)}"
    )


def statement(text: str) -> Statement:
    return Statement(name="t", text=text, mode="read", path=Path("t.cypher"))


def test_params_header_continues_on_indented_comment_lines() -> None:
    s = statement(
        "// What it does.\n// params: $a, $b,\n//   $c {x, y}\n// mode: read\nRETURN $a, $b, $c"
    )
    assert s.declared_params == {"a", "b", "c"}


def test_parameters_in_strings_and_comments_are_not_uses() -> None:
    s = statement("// params: $a\n// mode: read\nRETURN $a, '$b' AS x, \"$c\" // $d")
    assert s.used_params == {"a"}


def test_a_missing_header_parameter_is_seen() -> None:
    s = statement("// params: none\n// mode: read\nMATCH (n {id: $id}) RETURN n")
    assert s.declared_params == frozenset() and s.used_params == {"id"}
