"""Real data for the console's browser tests, written through the HTTP API.

One bank holds a document retained in ``local`` mode (sentences become facts, spaCy finds the
people and places), a namesake tie that leaves two open reviews (two Alexes with different
company, then a bare "Alex"), and a merge made through the API, so every console page has
something to show and every action something to act on.
"""

from __future__ import annotations

from typing import Any

import httpx

DOCUMENT = (
    "Caroline moved to Lisbon in March 2023 to work for Tidewater Labs.\n\n"
    "Melanie visited Caroline in Lisbon in May 2023 and they went sailing on the Tagus.\n\n"
    "In June 2023 Caroline started a pottery class with Melanie's sister Ruth."
)


def _ok(response: httpx.Response) -> Any:
    assert response.status_code < 300, response.text
    return response.json()


def _hinted(content: str, at: str, *names: tuple[str, str]) -> dict[str, Any]:
    return {
        "content": content,
        "timestamp": at,
        "entities": [{"text": n, "type": t} for n, t in names],
    }


def seed_bank(http: httpx.Client, bank: str) -> dict[str, Any]:
    """Create ``bank`` with a document, facts, entities, two open reviews and one merge."""
    _ok(http.put(f"/v1/default/banks/{bank}", json={"name": "Console demo"}))
    doc = _ok(
        http.post(
            f"/v1/default/banks/{bank}/memories",
            json={
                "items": [
                    {
                        "content": DOCUMENT,
                        "document_id": "letters/caroline.txt",
                        "timestamp": "2023-07-01T10:00:00Z",
                        "tags": ["letters"],
                    }
                ]
            },
        )
    )
    # Hinted facts (chunks mode per item is not needed: caller entities are added to each fact).
    people = [
        _hinted(
            "Alex Kim planned the Acme sprint with Bo Ng.",
            "2024-05-01T09:00:00Z",
            ("Alex Kim", "person"),
            ("Acme", "organization"),
            ("Bo Ng", "person"),
        ),
        _hinted(
            "Alex Kim demoed the Acme app.",
            "2024-05-01T09:30:00Z",
            ("Alex Kim", "person"),
            ("Acme", "organization"),
        ),
        _hinted(
            "Alex Moreno audited Globex with Cy Ruiz.",
            "2024-05-01T10:00:00Z",
            ("Alex Moreno", "person"),
            ("Globex", "organization"),
            ("Cy Ruiz", "person"),
        ),
        _hinted("Alex called about the invoice.", "2024-05-01T11:00:00Z", ("Alex", "person")),
        _hinted("Rob Stone fixed the boiler.", "2024-05-02T09:00:00Z", ("Rob Stone", "person")),
        _hinted(
            "Robert Stone paid the plumber.", "2024-05-03T09:00:00Z", ("Robert Stone", "person")
        ),
    ]
    ids = []
    for item in people:
        ids += _ok(http.post(f"/v1/default/banks/{bank}/memories", json={"items": [item]}))[
            "memory_ids"
        ]
    rob = _entity(http, bank, ids[4], "Rob Stone")
    robert = _entity(http, bank, ids[5], "Robert Stone")
    assert rob != robert, "the resolver joined Rob and Robert: pick other names"
    merge = _ok(
        http.post(
            f"/v1/default/banks/{bank}/entities/{robert}/merge",
            json={"into": rob, "reason": "Rob is short for Robert"},
        )
    )["record"]
    return {"document": doc, "memory_ids": ids, "merge": merge, "rob": rob, "robert": robert}


def _entity(http: httpx.Client, bank: str, memory_id: str, mention: str) -> str:
    memory = _ok(http.get(f"/v1/default/banks/{bank}/memories/{memory_id}"))
    return str(next(e["id"] for e in memory["mentions"] if e["mention"] == mention))
