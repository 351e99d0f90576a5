"""Retain in an LLM mode, end to end: a real server, the real Neo4j, a scripted OpenAI endpoint."""

from __future__ import annotations

import httpx

from tests.support.fake_openai import FakeOpenAIServer, reply_json, reply_text
from tests.support.helpers import GraphProbe, retain
from tests.support.llm_app import STAY, STAY_TEXT, llm_http, llm_server

__all__ = ["llm_http", "llm_server"]  # fixtures used by name below

ITEM = {"content": STAY_TEXT, "timestamp": "2024-05-20T10:30:00Z", "tags": ["travel"]}


def _llm_bank(http: httpx.Client, bank_id: str) -> str:
    response = http.put(
        f"/v1/default/banks/{bank_id}",
        json={"retain_extraction_mode": "concise", "retain_mission": "Track team travel."},
    )
    assert response.status_code == 200, response.text
    return bank_id


def test_llm_facts_land_with_dates_entities_and_causal_links(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, bank_id: str, graph_probe: GraphProbe
) -> None:
    bank = _llm_bank(llm_http, bank_id)
    llm_server.script(reply_json(STAY, prompt_tokens=100, completion_tokens=50))

    answer = retain(llm_http, bank, ITEM)

    assert answer["usage"] == {
        "prompt_tokens": 100,
        "completion_tokens": 50,
        "total_tokens": 150,
        # Hindsight's names for the same counts:
        "input_tokens": 100,
        "output_tokens": 50,
    }
    assert len(answer["memory_ids"]) == 2
    assert "Track team travel." in llm_server.requests[-1].system_prompt
    caused = graph_probe.rows(
        "MATCH (a:Memory {bank_id: $b})-[:CAUSED_BY]->(c:Memory) RETURN a.text AS a, c.text AS c",
        b=bank,
    )
    assert caused == [
        {
            "a": "Sarah Chen stayed in Lisbon until Friday 24 May 2024.",
            "c": STAY["facts"][0]["what"],
        }
    ]
    stay = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) WHERE m.text STARTS WITH 'Sarah' "
        "RETURN toString(m.occurred_start) AS s, toString(m.occurred_end) AS e, m.tags AS tags",
        b=bank,
    )[0]
    assert str(stay["s"]).startswith("2024-05-19") and str(stay["e"]).startswith("2024-05-24")
    assert stay["tags"] == ["travel"]


def test_unusable_llm_output_keeps_the_chunk_verbatim_with_a_warning(
    llm_http: httpx.Client, llm_server: FakeOpenAIServer, bank_id: str, graph_probe: GraphProbe
) -> None:
    bank = _llm_bank(llm_http, bank_id)
    llm_server.script(reply_text("not json at all"), reply_text("{still broken"))

    answer = retain(llm_http, bank, ITEM)

    assert answer["items"][0]["warnings"], "the fallback is reported, not silent"
    texts = graph_probe.rows("MATCH (m:Memory {bank_id: $b}) RETURN m.text AS t", b=bank)
    assert texts == [{"t": ITEM["content"]}]
