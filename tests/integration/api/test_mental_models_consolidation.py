"""A mental model that asks for it is refreshed when consolidation changes what it reads.

The service's consolidation worker calls the mental models' hook when a bank has nothing left
to consolidate; the refresh runs as an operation of the same service, over real HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.consolidating_app import consolidating_http, observations, wait_for
from tests.support.helpers import retain

__all__ = ["consolidating_http"]  # the module-scoped fixture used below

RESTATED = [
    ("Ana Ruiz has two dogs.", "2024-01-05T09:00:00Z"),
    ("Ana Ruiz owns 2 dogs.", "2024-02-11T18:30:00Z"),
]
QUESTION = "How many dogs does Ana Ruiz have?"


@pytest.fixture
def bank(consolidating_http: httpx.Client, bank_id: str) -> Iterator[str]:
    response = consolidating_http.put(f"/v1/default/banks/{bank_id}", json={})
    assert response.status_code == 200, response.text
    yield bank_id
    consolidating_http.delete(f"/v1/default/banks/{bank_id}")


def models(bank: str, suffix: str = "") -> str:
    return f"/v1/default/banks/{bank}/mental-models{suffix}"


def history(http: httpx.Client, bank: str, model_id: str) -> list[dict[str, Any]]:
    response = http.get(models(bank, f"/{model_id}/history"))
    assert response.status_code == 200, response.text
    versions: list[dict[str, Any]] = response.json()
    return versions


def create_model(http: httpx.Client, bank: str, *, after_consolidation: bool) -> str:
    response = http.post(
        models(bank),
        json={
            "name": "Dogs",
            "source_query": QUESTION,
            "trigger": {
                "refresh_after_consolidation": after_consolidation,
                "min_refresh_interval_seconds": 0,
            },
        },
    )
    assert response.status_code == 200, response.text
    model_id: str = response.json()["mental_model_id"]
    wait_for(lambda: history(http, bank, model_id))
    return model_id


def test_consolidation_refreshes_the_models_that_ask_for_it(
    consolidating_http: httpx.Client, bank: str
) -> None:
    http = consolidating_http
    watching = create_model(http, bank, after_consolidation=True)
    unmoved = create_model(http, bank, after_consolidation=False)

    for n, (text, at) in enumerate(RESTATED):
        retain(http, bank, {"content": text, "timestamp": at, "document_id": f"doc-{n}"})
    [observation] = wait_for(lambda: observations(http, bank))
    refreshed = wait_for(
        lambda: [v for v in history(http, bank, watching) if v["reason"] == "consolidation"]
    )

    page = http.get(models(bank, f"/{watching}")).json()
    assert page["version"] == refreshed[0]["version"] >= 2
    assert "dogs" in page["content"]
    assert [v["reason"] for v in history(http, bank, unmoved)] == ["created"]
    assert observation["proof_count"] == 2
