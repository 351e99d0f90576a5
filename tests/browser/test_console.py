"""Every console page loads against a live service with real data, and the main actions done
through the pages (decide a review, revert a merge, invalidate and restore a memory, split an
entity, run a recall) show their effect through the HTTP API afterwards."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot

Seeded = tuple[str, dict[str, Any]]


def api(http: httpx.Client, path: str, **params: Any) -> Any:
    response = http.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_banks_page_lists_banks_and_creates_one(
    page: Page, http: httpx.Client, seeded: Seeded
) -> None:
    bank, _ = seeded
    page.goto("/console/")
    expect(page.get_by_role("link", name=bank, exact=True)).to_be_visible()
    screenshot(page, "banks")
    new = bank + "-new"
    page.get_by_label("Bank id").fill(new)
    page.get_by_label("Name").fill("Made in the console")
    page.get_by_role("button", name="Create bank").click()
    expect(page.locator(".notice")).to_have_text("Bank created.")
    assert f"/console/banks/{new}/" in page.url
    assert api(http, f"/v1/default/banks/{new}")["name"] == "Made in the console"
    # The same id again is refused with a message, not a server error.
    page.goto("/console/")
    page.get_by_label("Bank id").fill(new)
    page.get_by_role("button", name="Create bank").click()
    expect(page.locator("p.error")).to_contain_text("exists already")
    http.delete(f"/v1/default/banks/{new}")


def test_overview_shows_counts_chart_entities_and_open_reviews(page: Page, seeded: Seeded) -> None:
    bank, _ = seeded
    page.goto(f"/console/banks/{bank}/")
    expect(page.locator("svg.chart rect.seg").first).to_be_visible()
    expect(page.get_by_role("heading", name="Most mentioned entities")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"Decide 2 open reviews"))).to_be_visible()
    screenshot(page, "overview")
    page.get_by_role("link", name="the day it happened").click()
    expect(page.locator("svg.chart")).to_be_visible()


def test_timeline_filters_and_pages_memories(
    page: Page, http: httpx.Client, seeded: Seeded
) -> None:
    bank, _ = seeded
    page.goto(f"/console/banks/{bank}/memories/")
    rows = page.locator("ol.timeline li.memory")
    total = api(http, f"/v1/default/banks/{bank}/memories/list")["total"]
    expect(rows).to_have_count(total)
    screenshot(page, "memories")
    page.get_by_label("Text").fill("Lisbon")
    page.get_by_role("button", name="Filter").click()
    expect(rows.first).to_contain_text("Lisbon")
    found = api(http, f"/v1/default/banks/{bank}/memories/list", q="Lisbon")
    expect(rows).to_have_count(found["total"])
    # Keyboard: "/" focuses the search box, "g" then "e" opens the entities.
    page.locator("h1").click()
    page.keyboard.press("/")
    expect(page.get_by_label("Text")).to_be_focused()
    page.keyboard.press("Escape")
    page.locator("h1").click()
    page.keyboard.press("g")
    page.keyboard.press("e")
    expect(page).to_have_url(re.compile(r"/entities/$"))


def test_memory_is_invalidated_and_restored_through_its_page(
    page: Page, http: httpx.Client, fresh: Seeded
) -> None:
    bank, made = fresh
    memory_id = made["memory_ids"][0]
    url = f"/v1/default/banks/{bank}/memories/{memory_id}"
    page.goto(f"/console/banks/{bank}/memories/{memory_id}")
    expect(page.locator("#memory-text")).to_have_text(api(http, url)["text"])
    expect(page.get_by_role("heading", name="Links")).to_be_visible()
    screenshot(page, "memory")
    page.get_by_label("Reason to invalidate").fill("the sprint was cancelled")
    page.get_by_role("button", name="Invalidate").click()
    expect(page.locator(".notice")).to_have_text("Memory invalidated.")
    after = api(http, url)
    assert after["state"] == "invalidated" and after["state_reason"] == "the sprint was cancelled"
    page.get_by_label("Reason to restore").fill("it happened after all")
    page.get_by_role("button", name="Restore").click()
    expect(page.locator(".notice")).to_have_text("Memory restored.")
    assert api(http, url)["state"] == "valid"
    # Editing the text records a revision with its reason.
    page.get_by_label("Text").fill("Alex Kim planned the Acme sprint with Bo Ng on Monday.")
    page.get_by_label("Reason for the edit").fill("the day was missing")
    page.get_by_role("button", name="Save edit").click()
    expect(page.locator(".notice")).to_have_text("Memory edited.")
    assert api(http, url)["text"].endswith("on Monday.")
    history = api(http, url + "/history")["items"]
    assert [r["reason"] for r in history][-1] == "the day was missing"
    expect(page.locator("section", has_text="History").locator("li")).to_have_count(len(history))


def test_document_page_shows_chunks_beside_their_facts(
    page: Page, http: httpx.Client, seeded: Seeded
) -> None:
    bank, _ = seeded
    page.goto(f"/console/banks/{bank}/documents/")
    page.get_by_role("link", name="letters/caroline.txt").click()
    expect(page.locator("li.chunkrow").first).to_contain_text("Caroline moved to Lisbon")
    document = api(http, f"/v1/default/banks/{bank}/documents/letters/caroline.txt")
    expect(page.locator("li.chunkrow")).to_have_count(len(document["chunks"]))
    facts = page.locator("li.chunkrow").first.locator("ul li a")
    expect(facts.first).to_be_visible()
    screenshot(page, "document")


def test_document_is_deleted_through_its_page(
    page: Page, http: httpx.Client, fresh: Seeded
) -> None:
    bank, _ = fresh
    path = quote("letters/caroline.txt")
    page.goto(f"/console/banks/{bank}/documents/{path}")
    page.on("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete document").click()
    expect(page.locator(".notice")).to_have_text("Document deleted with its facts.")
    gone = http.get(f"/v1/default/banks/{bank}/documents/{path}")
    assert gone.status_code == 404


def test_entity_page_draws_the_neighbourhood_and_splits_facts(
    page: Page, http: httpx.Client, fresh: Seeded
) -> None:
    bank, made = fresh
    kim_fact = made["memory_ids"][0]
    kim = next(
        e["id"]
        for e in api(http, f"/v1/default/banks/{bank}/memories/{kim_fact}")["mentions"]
        if e["name"] == "Alex Kim"
    )
    page.goto(f"/console/banks/{bank}/entities/")
    page.get_by_role("link", name="Alex Kim", exact=True).click()
    detail = api(http, f"/v1/default/banks/{bank}/entities/{kim}")
    # The centre and each neighbour are drawn, each a link to its entity.
    expect(page.locator(".graph svg a")).to_have_count(1 + len(detail["neighbours"]))
    screenshot(page, "entity")
    page.locator(f'input[name="memory_ids"][value="{kim_fact}"]').check()
    page.get_by_placeholder("new entity's name (optional)").fill("Alex Kim (Acme sprint)")
    page.get_by_placeholder("reason").fill("a different Alex Kim ran that sprint")
    page.get_by_role("button", name="Split").click()
    expect(page.locator(".notice")).to_have_text("Facts split off into a new entity.")
    expect(page.locator("h1")).to_contain_text("Alex Kim (Acme sprint)")
    split = api(http, f"/v1/default/banks/{bank}/entity-merges", kind="split")["items"][0]
    assert split["source"] == kim and split["memory_ids"] == [kim_fact]
    assert split["reason"] == "a different Alex Kim ran that sprint"


def test_review_is_decided_and_its_merge_reverted_through_the_pages(
    page: Page, http: httpx.Client, fresh: Seeded
) -> None:
    bank, _ = fresh
    reviews = f"/v1/default/banks/{bank}/reviews"
    before = api(http, reviews)["items"]
    assert len(before) == 2
    page.goto(f"/console/banks/{bank}/reviews/")
    kim = page.get_by_role("link", name="Alex Kim", exact=True)
    card = page.locator("article.review").filter(has=kim)
    expect(card.locator(".side")).to_have_count(2)
    screenshot(page, "reviews")
    card.get_by_label("Reason (optional)").fill("Alex is Alex Kim: same invoice thread")
    card.get_by_role("button", name="Same entity").click()
    expect(page.locator(".notice")).to_have_text("Decided: the same entity (merged).")
    decided = api(http, reviews, status="same")["items"]
    assert len(decided) == 1 and decided[0]["merge_id"]
    merge_id = decided[0]["merge_id"]
    # The other review of the tie is decided "different" with one click.
    page.locator("article.review").first.get_by_role("button", name="Different").click()
    expect(page.locator(".notice")).to_have_text(
        "Decided: different entities (kept apart for good)."
    )
    assert api(http, reviews)["total"] == 0
    # Revert the review's merge from the audit list.
    page.goto(f"/console/banks/{bank}/audit/")
    screenshot(page, "audit")
    record = page.locator("li.record").filter(
        has=page.locator(f'form[action$="/{merge_id}/revert"]')
    )
    record.get_by_placeholder("reason to revert").fill("the invoice was Alex Moreno's")
    record.get_by_role("button", name="Revert").click()
    expect(page.locator(".notice")).to_have_text("Change reverted.")
    merges = api(http, f"/v1/default/banks/{bank}/entity-merges", kind="merge")["items"]
    assert next(m for m in merges if m["id"] == merge_id)["state"] == "reverted"


def test_recall_playground_shows_the_answer_with_channel_ranks(
    page: Page, http: httpx.Client, seeded: Seeded
) -> None:
    bank, _ = seeded
    page.goto(f"/console/banks/{bank}/recall/")
    page.get_by_label("Query").fill("Where did Caroline move?")
    page.get_by_role("button", name="Recall").click()
    rows = page.locator("table.trace tbody tr")
    expect(rows.first).to_be_visible()
    answer = http.post(
        f"/v1/default/banks/{bank}/memories/recall",
        json={"query": "Where did Caroline move?", "trace": True},
    ).json()
    first = answer["results"][0]
    expect(rows.first.locator("a")).to_have_attribute("href", re.compile(first["id"]))
    for channel in first["scores"]:
        if channel != "final":
            rank = answer["trace"]["fusion"][0]["channels"][channel]["rank"]
            column = ["vector", "keyword", "graph", "temporal"].index(channel)
            expect(rows.first.locator("td.num").nth(1 + column)).to_contain_text(f"{rank} ·")
    expect(page.get_by_role("heading", name="Timings")).to_be_visible()
    screenshot(page, "recall")


def test_pages_fit_a_phone_width(page: Page, seeded: Seeded) -> None:
    bank, made = seeded
    page.set_viewport_size({"width": 390, "height": 844})
    for path in ("", "memories/", f"memories/{made['memory_ids'][0]}", "reviews/", "entities/"):
        page.goto(f"/console/banks/{bank}/{path}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (path, width)
    page.goto(f"/console/banks/{bank}/reviews/")
    screenshot(page, "phone-reviews")
