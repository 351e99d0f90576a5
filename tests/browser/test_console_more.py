"""Console pages for observations, reflect and mental models, driven in the browser and checked
through the API."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot
from tests.conftest import make_settings
from tests.support.live_server import live_server

Seeded = tuple[str, dict[str, Any]]


def wait_for(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def consolidating(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own with the consolidation worker on (the shared one keeps it off)."""
    settings = make_settings(
        Path(tmp_path_factory.mktemp("console-observations")), consolidation_worker=True
    )
    with live_server(settings) as url:
        yield url


def test_observation_page_shows_its_evidence_chain(page: Page, consolidating: str) -> None:
    http = httpx.Client(base_url=consolidating, timeout=120)
    bank = f"o-{uuid.uuid4().hex[:10]}"
    assert http.put(f"/v1/default/banks/{bank}", json={}).status_code < 300
    items = [
        {"content": "Caroline loves sailing on the Tagus.", "timestamp": "2023-08-01T10:00:00Z"},
        {
            "content": "Caroline loves sailing on the Tagus river.",
            "timestamp": "2023-08-02T10:00:00Z",
        },
    ]
    ids = http.post(f"/v1/default/banks/{bank}/memories", json={"items": items}).json()[
        "memory_ids"
    ]
    listing = f"/v1/default/banks/{bank}/memories/list"

    def observation() -> Any:
        found = http.get(listing, params={"type": "observation"}).json()["items"]
        return found[0] if found else None

    obs = wait_for(observation, "an observation from the two restatements")
    detail = http.get(f"/v1/default/banks/{bank}/memories/{obs['id']}").json()
    assert set(ids) <= set(detail["source_memory_ids"])
    page.goto(f"{consolidating}/console/banks/{bank}/")
    page.get_by_role("link", name="Observations", exact=True).click()
    page.locator("ol.timeline a").first.click()
    evidence = page.locator("#evidence")
    expect(evidence).to_contain_text(f"proof count {detail['proof_count']}")
    expect(evidence.locator("li")).to_have_count(len(detail["source_memories"]))
    for source in detail["source_memories"]:
        expect(evidence.locator(f'a[href$="/memories/{source["id"]}"]')).to_be_visible()
    screenshot(page, "observation")
    http.delete(f"/v1/default/banks/{bank}")
    http.close()


def test_reflect_playground_answers_with_the_evidence_the_api_gives(
    page: Page, http: httpx.Client, seeded: Seeded
) -> None:
    bank, _ = seeded
    question = "Where did Caroline move?"
    page.goto(f"/console/banks/{bank}/reflect/")
    page.get_by_label("Question").fill(question)
    page.get_by_role("button", name="Reflect").click()
    expect(page.locator(".answer")).to_be_visible()
    answer = http.post(
        f"/v1/default/banks/{bank}/reflect", json={"query": question, "include": {"facts": {}}}
    ).json()
    cited = [m["id"] for m in answer["based_on"]["memories"]]
    assert cited
    for memory_id in cited:
        expect(
            page.locator(f'section:has-text("Based on") a[href$="/memories/{memory_id}"]')
        ).to_be_visible()
    screenshot(page, "reflect")


def test_mental_model_is_created_rendered_and_refreshed_through_its_pages(
    page: Page, http: httpx.Client, fresh: Seeded
) -> None:
    bank, _ = fresh
    page.goto(f"/console/banks/{bank}/mental-models/")
    page.get_by_label("Name").fill("Caroline")
    page.get_by_label("Standing question").fill("What do we know about Caroline?")
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".notice")).to_contain_text("Queued")
    model_id = page.url.split("/mental-models/")[1].split("?")[0]
    url = f"/v1/default/banks/{bank}/mental-models/{model_id}"
    wait_for(lambda: http.get(url).json().get("version", 0) >= 1, "the first version")
    page.reload()
    model = http.get(url).json()
    expect(page.locator("article.page")).to_contain_text(model["sections"][0]["title"])
    expect(page.locator("h1")).to_contain_text("version 1")
    screenshot(page, "mental-model")
    before = model["last_refreshed_at"]
    page.get_by_role("button", name="Refresh", exact=True).click()
    expect(page.locator(".notice")).to_contain_text("Queued")
    # A refresh that finds nothing new keeps the version and stamps the refresh time.
    wait_for(lambda: http.get(url).json()["last_refreshed_at"] != before, "the refresh")
    history = http.get(url + "/history").json()
    page.reload()
    expect(page.locator("ol.versions > li")).to_have_count(len(history))
