"""Observations decided by an LLM (the loopback scripted server), with the worker running.

The rules go into the prompt with the bank's mission; the code keeps the invariants whatever the
model says; malformed, slow and out-of-bounds answers fail the fact (retried with backoff) and
write nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import make_settings
from tests.support.consolidating_app import observations, wait_for
from tests.support.fake_openai import FakeOpenAIServer, reply_json, reply_text, slow
from tests.support.helpers import retain
from tests.support.live_server import live_server

FIRST = ("Ana Ruiz adopted a dog called Rex.", "2024-01-05T09:00:00Z")
SECOND = ("Ana Ruiz says Rex loves the beach.", "2024-02-11T18:30:00Z")


@pytest.fixture(scope="module")
def llm(
    test_neo4j: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[httpx.Client, FakeOpenAIServer]]:
    """A Mnemo with an LLM endpoint (scripted) and its consolidation worker running."""
    with FakeOpenAIServer() as server:
        settings = make_settings(
            Path(tmp_path_factory.mktemp("llm-observations")),
            llm_base_url=server.base_url,
            llm_api_key="test-key",
            llm_model="fake-model",
            llm_timeout_s=1.5,
            llm_max_retries=0,
            consolidation_worker=True,
            consolidation_poll_s=0.2,
        )
        with live_server(settings) as url, httpx.Client(base_url=url, timeout=120) as client:
            yield client, server


@pytest.fixture
def llm_bank(llm: tuple[httpx.Client, FakeOpenAIServer], bank_id: str) -> Iterator[str]:
    http, _ = llm
    body = {"retain_extraction_mode": "local", "observations_mission": "the user's pets"}
    assert http.put(f"/v1/default/banks/{bank_id}", json=body).status_code == 200
    yield bank_id
    http.delete(f"/v1/default/banks/{bank_id}")


def fact_state(http: httpx.Client, bank: str, memory_id: str) -> dict[str, Any]:
    memory: dict[str, Any] = http.get(f"/v1/default/banks/{bank}/memories/{memory_id}").json()
    return memory


def retain_one(http: httpx.Client, bank: str, text: str, at: str) -> str:
    [memory_id] = retain(http, bank, {"content": text, "timestamp": at})["memory_ids"]
    return memory_id


def test_the_model_creates_then_updates_under_the_rules(
    llm: tuple[httpx.Client, FakeOpenAIServer], llm_bank: str
) -> None:
    http, server = llm
    server.script(
        reply_json(
            {
                "actions": [
                    {
                        "action": "create",
                        "text": "Ana Ruiz has a dog, Rex.",
                        "source_fact_ids": ["NEW"],
                        "reason": "a new pet",
                    }
                ]
            }
        ),
        reply_json(
            {
                "actions": [
                    {
                        "action": "update",
                        "observation_id": "O1",
                        "text": "Ana Ruiz has a dog, Rex, who loves the beach.",
                        "source_fact_ids": [],
                    }
                ]
            },
            fenced=True,
        ),
    )
    first = retain_one(http, llm_bank, *FIRST)
    [created] = wait_for(lambda: observations(http, llm_bank))
    assert created["proof_count"] == 1 and created["source_memory_ids"] == [first]
    second = retain_one(http, llm_bank, *SECOND)
    updated = wait_for(lambda: [o for o in observations(http, llm_bank) if o["proof_count"] == 2])[
        0
    ]
    assert updated["id"] == created["id"]
    assert updated["text"] == "Ana Ruiz has a dog, Rex, who loves the beach."
    assert updated["source_memory_ids"] == sorted([first, second])
    prompt = server.requests[-1]
    for rule in ("UPDATE OVER CREATE", "NO COMPUTATION", "PRESERVE HISTORY", "the user's pets"):
        assert rule in prompt.system_prompt
    assert "O1: Ana Ruiz has a dog, Rex." in prompt.all_text
    history = http.get(f"/v1/default/banks/{llm_bank}/memories/{created['id']}/history").json()
    assert [r["kind"] for r in history["items"]] == ["create", "update"]
    assert history["items"][1]["before"]["text"] == "Ana Ruiz has a dog, Rex."


def test_a_model_that_deletes_takes_the_observation_out_with_its_history(
    llm: tuple[httpx.Client, FakeOpenAIServer], llm_bank: str
) -> None:
    http, server = llm
    server.script(
        reply_json(
            {
                "actions": [
                    {
                        "action": "create",
                        "text": "Ana Ruiz lives in Denver.",
                        "source_fact_ids": ["NEW"],
                    }
                ]
            }
        ),
        reply_json(
            {
                "actions": [
                    {"action": "delete", "observation_id": "O1", "reason": "she moved to Boston"}
                ]
            }
        ),
    )
    retain_one(http, llm_bank, "Ana Ruiz lives in Denver.", "2024-01-05T09:00:00Z")
    [created] = wait_for(lambda: observations(http, llm_bank))
    retain_one(http, llm_bank, "Ana Ruiz moved from Denver to Boston.", "2024-03-05T09:00:00Z")
    wait_for(lambda: observations(http, llm_bank, state="invalidated"))
    gone = fact_state(http, llm_bank, created["id"])
    assert gone["state"] == "invalidated" and gone["state_reason"] == "she moved to Boston"
    assert observations(http, llm_bank, state="valid") == []


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (reply_text("I think Ana has a dog. {not json"), "malformed"),
        (slow(3.0), "timed out"),
        (
            reply_json({"actions": [{"action": "update", "observation_id": "O7"}]}),
            "not offered",
        ),
        (
            reply_json({"actions": [{"action": "create", "text": "x", "source_fact_ids": ["F9"]}]}),
            "not offered",
        ),
    ],
)
def test_a_bad_answer_fails_the_fact_writes_nothing_and_is_retried(
    llm: tuple[httpx.Client, FakeOpenAIServer], llm_bank: str, answer: Any, reason: str
) -> None:
    http, server = llm
    server.script(answer)
    memory_id = retain_one(http, llm_bank, *FIRST)
    failed = wait_for(
        lambda: (
            (m := fact_state(http, llm_bank, memory_id))["consolidation_state"] == "failed" and m
        )
    )
    assert reason in failed["consolidation_error"]
    assert failed["consolidation_failed_at"] is not None
    assert observations(http, llm_bank) == []
    # Asking for a run retries failed facts now (not after their backoff).
    server.script(
        reply_json(
            {
                "actions": [
                    {
                        "action": "create",
                        "text": "Ana Ruiz has a dog, Rex.",
                        "source_fact_ids": ["NEW"],
                    }
                ]
            }
        )
    )
    assert http.post(f"/v1/default/banks/{llm_bank}/consolidate").status_code == 200
    done = wait_for(
        lambda: (m := fact_state(http, llm_bank, memory_id))["consolidation_state"] == "done" and m
    )
    assert done["consolidation_error"] is None
    assert len(observations(http, llm_bank)) == 1
