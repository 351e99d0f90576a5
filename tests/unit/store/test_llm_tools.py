from __future__ import annotations

import pytest

from app.store.llm import ChatTurn, ToolCall, json_schema_problem, schema_model, tool_arguments


def test_tool_arguments_are_repaired_or_refused() -> None:
    assert tool_arguments(ToolCall("1", "recall", '{"query": "x",}')) == {"query": "x"}
    assert tool_arguments(ToolCall("1", "done", "")) == {}
    with pytest.raises(ValueError, match="not JSON"):
        tool_arguments(ToolCall("1", "recall", "query please"))
    with pytest.raises(ValueError, match="JSON object"):
        tool_arguments(ToolCall("1", "recall", "[1, 2]"))


def test_json_schema_problems_are_named() -> None:
    assert json_schema_problem({"type": "object", "properties": {"a": {"type": "string"}}}) is None
    assert json_schema_problem({}) is None
    assert "JSON object" in (json_schema_problem({"type": "array"}) or "")
    assert "not a valid JSON schema" in (json_schema_problem({"type": "banana"}) or "")


def test_schema_model_shows_the_callers_schema_and_validates_against_it() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    model = schema_model(schema)
    assert model.model_json_schema() == schema
    assert model.model_validate_json('{"n": 3}').answer() == {"n": 3}
    with pytest.raises(ValueError, match="'n' is a required property"):
        model.model_validate_json('{"m": 3}')


def test_chat_turn_as_message() -> None:
    turn = ChatTurn(
        content=None, tool_calls=(ToolCall("c1", "recall", "{}"),), finish_reason="tool_calls"
    )
    assert turn.as_message() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "recall", "arguments": "{}"}}
        ],
    }
