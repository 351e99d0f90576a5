"""Reflect and mental models with an LLM: the scripted chat-completions server plays the model.

Every bank here extracts offline (``local``), so that the scripted answers go to reflect only.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.integration.api.test_mental_models_api import wait_for
from tests.support.fake_openai import (
    FakeOpenAIServer,
    reply_json,
    reply_text,
    reply_tool_calls,
    slow,
)
from tests.support.helpers import retain
from tests.support.llm_app import llm_http, llm_server

__all__ = ["llm_http", "llm_server"]

GROUP = {
    "content": "Caroline: I went to the LGBTQ support group yesterday.",
    "timestamp": "2023-05-08T13:56:00Z",
    "document_id": "group",
}
POTTERY = {
    "content": "Caroline: I signed up for a pottery class last week.",
    "timestamp": "2023-07-03T10:00:00Z",
    "document_id": "pottery",
}


@pytest.fixture
def local_bank(llm_http: httpx.Client, llm_server: FakeOpenAIServer, bank_id: str) -> Any:
    response = llm_http.put(
        f"/v1/default/banks/{bank_id}",
        json={"retain_extraction_mode": "local", "reflect_mission": "Help Caroline's therapist."},
    )
    assert response.status_code == 200, response.text
    assert llm_server.pending == 0
    yield bank_id
    llm_http.delete(f"/v1/default/banks/{bank_id}")
    llm_server.always(None)
    assert llm_server.pending == 0, "a test left scripted answers unused"


def reflect(http: httpx.Client, bank: str, **body: Any) -> dict[str, Any]:
    response = http.post(
        f"/v1/default/banks/{bank}/reflect",
        json={"include": {"facts": {}, "tool_calls": {}}, **body},
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_agent_keeps_only_citations_a_tool_returned_in_this_bank(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, local_bank: str, bank_id: str
) -> None:
    [group_id] = retain(llm_http, local_bank, GROUP)["memory_ids"]
    other = f"{bank_id}-b"
    llm_http.put(f"/v1/default/banks/{other}", json={"retain_extraction_mode": "local"})
    [foreign_id] = retain(llm_http, other, GROUP)["memory_ids"]
    before = len(llm_server.requests)
    llm_server.script(
        reply_tool_calls(("recall", {"query": "support group"})),
        reply_tool_calls(
            (
                "done",
                {
                    "answer": f"Caroline went to a support group [{group_id}] [{foreign_id}].",
                    "memory_ids": [group_id, foreign_id],
                },
            )
        ),
    )

    body = reflect(llm_http, local_bank, query="What did Caroline go to?")
    llm_http.delete(f"/v1/default/banks/{other}")

    assert [m["id"] for m in body["based_on"]["memories"]] == [group_id]
    assert body["text"] == f"Caroline went to a support group [{group_id}]."
    trace = body["trace"]
    assert trace["mode"] == "agent" and trace["iterations"] == 2
    assert trace["dropped_citations"] == [
        {"id": foreign_id, "reason": "not returned by a tool in this reflect"}
    ]
    recall_call = trace["tool_calls"][0]
    assert recall_call["tool"] == "recall" and recall_call["iteration"] == 1
    assert group_id in {m["id"] for m in recall_call["output"]["memories"]}
    assert [c["scope"] for c in trace["llm_calls"]] == ["agent_1", "agent_2"]
    assert body["usage"] == {
        "input_tokens": 200,
        "output_tokens": 100,
        "total_tokens": 300,
        "cached_tokens": 0,
        "thoughts_tokens": 0,
    }
    first = llm_server.requests[before]
    assert "Help Caroline's therapist." in first.system_prompt
    assert {t["function"]["name"] for t in first.body["tools"]} >= {
        "recall",
        "search_observations",
        "search_mental_models",
        "get_entity",
        "expand",
        "done",
    }
    # The tool's answer went back to the model with the call's id.
    tool_message = llm_server.requests[before + 1].messages[-1]
    assert tool_message["role"] == "tool" and group_id in tool_message["content"]


def test_malformed_tool_arguments_and_unknown_tools_are_answered_with_errors(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, local_bank: str
) -> None:
    [group_id] = retain(llm_http, local_bank, GROUP)["memory_ids"]
    before = len(llm_server.requests)
    llm_server.script(
        reply_tool_calls(("recall", "this is not json"), ("teleport", {"to": "Mars"})),
        reply_tool_calls(("expand", {"memory_id": "no-such-memory"})),
        reply_tool_calls(("get_entity", {"name": "Caroline"})),
        reply_text(f"Caroline attends a support group [{group_id}]."),
    )

    body = reflect(llm_http, local_bank, query="What does Caroline attend?")

    calls = body["trace"]["tool_calls"]
    assert "malformed arguments" in calls[0]["output"]["error"]
    assert calls[0]["input"] == {"raw_arguments": "this is not json"}
    assert "unknown tool 'teleport'" in calls[1]["output"]["error"]
    assert "no memory 'no-such-memory' in this bank" in calls[2]["output"]["error"]
    assert calls[3]["output"]["entity"]["name"] == "Caroline"
    assert group_id in {m["id"] for m in calls[3]["output"]["memories"]}
    errors = [m for m in llm_server.requests[before + 1].messages if m["role"] == "tool"]
    assert len(errors) == 2 and all("error" in json.loads(m["content"]) for m in errors)
    # A plain-text answer's [id] markers are its citations.
    assert [m["id"] for m in body["based_on"]["memories"]] == [group_id]


def test_an_llm_timeout_falls_back_to_the_extractive_answer(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, local_bank: str
) -> None:
    [group_id] = retain(llm_http, local_bank, GROUP)["memory_ids"]
    llm_server.script(slow(6.0, reply_text("too late")))

    body = reflect(llm_http, local_bank, query="support group")

    trace = body["trace"]
    assert trace["mode"] == "extractive"
    assert "LLM failed (request timed out after 5 s)" in trace["notes"][0]
    assert trace["llm_calls"][0]["error"] == "request timed out after 5 s"
    assert [m["id"] for m in body["based_on"]["memories"]] == [group_id]
    assert f"[{group_id}]" in body["text"]


def test_structured_output_is_validated_against_the_schema(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, local_bank: str
) -> None:
    retain(llm_http, local_bank, GROUP)
    schema = {
        "type": "object",
        "properties": {"activity": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["activity", "count"],
    }
    llm_server.script(
        reply_text("Caroline goes to a support group."),
        reply_json({"activity": "support group"}),  # invalid: count missing; re-asked
        reply_json({"activity": "support group", "count": 1}),
    )
    good = reflect(llm_http, local_bank, query="What does Caroline do?", response_schema=schema)
    llm_server.script(
        reply_text("Caroline goes to a support group."),
        reply_json({"activity": 3}),
        reply_json({"count": "many"}),
    )
    bad = reflect(llm_http, local_bank, query="What does Caroline do?", response_schema=schema)

    assert good["structured_output"] == {"activity": "support group", "count": 1}
    assert good["structured_output_error"] is None
    assert bad["structured_output"] is None
    assert "malformed or invalid output after 2 answers" in bad["structured_output_error"]
    assert bad["trace"]["llm_calls"][-1]["scope"] == "structured_output"
    refused = llm_http.post(
        f"/v1/default/banks/{local_bank}/reflect",
        json={"query": "x", "response_schema": {"type": "array"}},
    )
    assert refused.status_code == 400 and "JSON object" in refused.json()["detail"]


def test_delta_refresh_applies_operations_by_section_and_lists_invalid_ones(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, local_bank: str
) -> None:
    [group_id] = retain(llm_http, local_bank, GROUP)["memory_ids"]
    llm_server.script(
        reply_tool_calls(("recall", {"query": "Caroline's activities"})),
        reply_tool_calls(
            (
                "done",
                {
                    "answer": f"## Groups\n- Support group [{group_id}]\n\n## Crafts\n- None yet",
                    "memory_ids": [group_id],
                },
            )
        ),
    )
    created = llm_http.post(
        f"/v1/default/banks/{local_bank}/mental-models",
        json={
            "name": "Activities",
            "source_query": "What activities does Caroline do?",
            "trigger": {"mode": "delta"},
        },
    ).json()
    assert wait_for(llm_http, local_bank, created["operation_id"])["status"] == "completed"
    path = f"/v1/default/banks/{local_bank}/mental-models/{created['mental_model_id']}"
    first = llm_http.get(path).json()
    assert [(s["id"], s["memory_ids"]) for s in first["sections"]] == [
        ("groups", [group_id]),
        ("crafts", []),
    ]
    [pottery_id] = retain(llm_http, local_bank, POTTERY)["memory_ids"]
    llm_server.script(
        reply_json(
            {
                "operations": [
                    {
                        "op": "replace",
                        "id": "crafts",
                        "text": f"- Pottery class [{pottery_id}]",
                        "memory_ids": [pottery_id],
                    },
                    {"op": "append", "id": "hobbies", "text": "- Painting"},
                ]
            }
        )
    )

    operation = wait_for(
        llm_http, local_bank, llm_http.post(f"{path}/refresh").json()["operation_id"]
    )
    second = llm_http.get(path).json()
    [latest, _] = llm_http.get(f"{path}/history").json()

    assert second["sections"][0] == first["sections"][0]
    assert second["content"].startswith(first["content"].split("## Crafts")[0])
    assert second["sections"][1]["memory_ids"] == [pottery_id]
    assert latest["mode"] == "delta"
    assert latest["delta_operations"]["skipped"][0]["id"] == "hobbies"
    assert "no section 'hobbies'" in latest["delta_operations"]["skipped"][0]["reason"]
    assert [c["id"] for c in latest["changes"]] == ["crafts"]
    assert any("skipped operation 'append' on 'hobbies'" in w for w in operation["warnings"])
    # The delta request showed the model the sections by id and only the new memory.
    delta_prompt = llm_server.requests[-1].all_text
    assert "[section id: crafts]" in delta_prompt and pottery_id in delta_prompt
    assert f"- [{group_id}]" not in delta_prompt.split("New memories")[1]
