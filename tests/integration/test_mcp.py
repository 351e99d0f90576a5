"""The MCP server through the official SDK's own client: streamable HTTP at /mcp, and stdio.

Both transports drive the same tools over a live Mnemo: the HTTP one runs in the service, the
stdio one (``mnemo mcp``) talks to the service over HTTP.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

TOOLS = {
    "retain",
    "recall",
    "reflect",
    "list_banks",
    "create_bank",
    "list_memories",
    "get_memory",
    "invalidate_memory",
    "list_entities",
    "get_entity",
    "list_reviews",
    "decide_review",
}
MNEMO = str(Path(sys.executable).with_name("mnemo"))


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def _error(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


async def _walk(client: Client, bank: str, bank_args: dict[str, str]) -> None:
    """Every tool, in the order an agent would use them (``bank_args``: how to name the bank)."""
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    described = {t.name: t.description or "" for t in listed.tools}
    assert "before answering" in described["recall"]
    created = await _call(client, "create_bank", bank_id=bank, retain_mission="People.")
    assert created["bank_id"] == bank and created["retain_mission"] == "People."
    kept = await _call(
        client,
        "retain",
        content="Caroline moved to Lisbon in March 2023. Dana Reyes joined the Lisbon team.",
        timestamp="2023-05-08T13:56:00Z",
        tags=["people"],
        **bank_args,
    )
    assert kept["memory_count"] == len(kept["memory_ids"]) >= 2
    found = await _call(client, "recall", query="Where does Caroline live?", **bank_args)
    top = found["results"][0]
    assert "Lisbon" in top["text"] and "Caroline" in top["entities"]
    answer = await _call(client, "reflect", query="Where does Caroline live?", **bank_args)
    cited = {m["id"] for m in answer["memories"]}
    assert top["id"] in cited and f"[{top['id']}]" in answer["text"]
    assert all(f"[{i}]" in answer["text"] for i in cited) and answer["mental_models"] == []
    page = await _call(client, "list_memories", q="Dana", **bank_args)
    assert page["total"] == 1
    memory = await _call(client, "get_memory", memory_id=top["id"], **bank_args)
    assert memory["state"] == "valid" and {"Caroline", "Lisbon"} <= {
        e["name"] for e in memory["entities"]
    }
    gone = await _call(
        client, "invalidate_memory", memory_id=top["id"], reason="she moved on", **bank_args
    )
    assert gone["state"] == "invalidated" and gone["state_reason"] == "she moved on"
    after = await _call(client, "recall", query="Where does Caroline live?", **bank_args)
    assert top["id"] not in {r["id"] for r in after["results"]}
    entities = await _call(client, "list_entities", name="Caroline", **bank_args)
    [caroline] = entities["entities"]
    detail = await _call(client, "get_entity", entity_id=caroline["id"], **bank_args)
    assert detail["name"] == "Caroline" and "Caroline" in detail["names"]
    reviews = await _call(client, "list_reviews", status="all", **bank_args)
    assert reviews["total"] == len(reviews["reviews"])
    missing = await _error(client, "decide_review", review_id="nope", decision="same", **bank_args)
    assert "404" in missing
    banks = await _call(client, "list_banks", limit=1000)
    assert bank in {b["bank_id"] for b in banks["banks"]}


@pytest.mark.asyncio
async def test_streamable_http_at_mcp(base_url: str, bank_id: str) -> None:
    async with Client(f"{base_url}/mcp") as client:
        await _walk(client, bank_id, {"bank_id": bank_id})
        assert "bank_id is required" in await _error(client, "recall", query="anything")
        assert "404" in await _error(client, "get_memory", memory_id="x", bank_id=bank_id)
        assert "400" in await _error(client, "recall", query="x", bank_id="bad bank!")
        assert "400" in await _error(client, "reflect", query=" ", bank_id=bank_id)


@pytest.mark.asyncio
async def test_stdio_with_a_fixed_bank(base_url: str, bank_id: str) -> None:
    params = StdioServerParameters(command=MNEMO, args=["mcp", "--url", base_url, "-b", bank_id])
    async with Client(params) as client:
        # The bank is fixed: tools take no bank_id, and another bank is refused.
        await _walk(client, bank_id, {})
        refused = await _error(client, "recall", query="x", bank_id=f"{bank_id}-other")
        assert "works on bank" in refused
