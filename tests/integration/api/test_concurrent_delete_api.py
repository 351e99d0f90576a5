"""A bank deleted while other requests use it: each of them answers 2xx or 404, never 5xx.

Found by the API fuzzer: a read that matched a node just before a concurrent delete removed it
got the node back without properties and answered 500, and the delete itself deadlocked with
a retain and answered 503.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.support.helpers import GraphProbe

ROUNDS = 4


async def _use_bank(client: httpx.AsyncClient, bank: str, hooks: list[str]) -> list[httpx.Response]:
    answers = []
    for _ in range(6):
        for hook in hooks:
            answers.append(await client.patch(f"/v1/default/banks/{bank}/webhooks/{hook}", json={}))
            answers.append(await client.get(f"/v1/default/banks/{bank}/webhooks/{hook}"))
        answers.append(await client.get(f"/v1/default/banks/{bank}/webhooks"))
        answers.append(await client.get(f"/v1/default/banks/{bank}/memories/list"))
        answers.append(await client.get(f"/v1/default/banks/{bank}/entities"))
        answers.append(await client.get(f"/v1/default/banks/{bank}/config"))
    return answers


async def _retain_into(client: httpx.AsyncClient, bank: str) -> list[httpx.Response]:
    items = [{"content": "Carol Jensen saw Dave Okafor at the harbour."}]
    return [
        await client.post(f"/v1/default/banks/{bank}/memories", json={"items": items})
        for _ in range(4)
    ]


async def _delete_during_use(base_url: str, bank: str) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
        assert (await client.put(f"/v1/default/banks/{bank}", json={})).status_code == 200
        items = [
            {"content": f"Alice Moreau met Bob Lindqvist in Lyon, visit {k}."} for k in range(30)
        ]
        retained = await client.post(f"/v1/default/banks/{bank}/memories", json={"items": items})
        assert retained.status_code == 200, retained.text
        hooks = []
        for _ in range(3):
            made = await client.post(
                f"/v1/default/banks/{bank}/webhooks", json={"url": "http://127.0.0.1:9/hook"}
            )
            assert made.status_code in (200, 201), made.text
            hooks.append(made.json()["id"])
        deleted, used, retains = await asyncio.gather(
            client.delete(f"/v1/default/banks/{bank}"),
            _use_bank(client, bank, hooks),
            _retain_into(client, bank),
        )
        return [deleted, *used, *retains]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_requests_racing_a_bank_delete_answer_found_or_not_found_and_nothing_is_left(
    base_url: str, bank_id: str, graph_probe: GraphProbe, round_: int
) -> None:
    answers = asyncio.run(_delete_during_use(base_url, bank_id))

    deleted = answers[0]
    assert deleted.status_code == 200, deleted.text
    failed = [
        (a.request.method, a.request.url.path, a.status_code, a.text[:200])
        for a in answers
        if a.status_code not in (200, 201, 404)
    ]
    assert failed == []
    # A retain may create the bank again after the delete (retain creates a missing bank);
    # what must never be is a node of the bank without its bank.
    orphans = graph_probe.value(
        "MATCH (n {bank_id: $b}) WHERE NOT EXISTS { MATCH (:Bank {id: $b}) } RETURN count(n)",
        b=bank_id,
    )
    assert orphans == 0
    assert base_url and httpx.get(f"{base_url}/v1/default/banks").status_code == 200
