"""The console on a service that requires API keys: the key is asked once and kept in a
session cookie, the banks list shows only the key's banks, other banks are refused with a
readable page, a read-only key is offered no change (and a change posted anyway is refused),
and signing out forgets the key."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot
from tests.browser.seed import seed_bank
from tests.conftest import make_settings
from tests.support.live_server import live_server

ADMIN_KEY = "console-admin-key-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = make_settings(
        Path(tmp_path_factory.mktemp("console-secured")), auth="required", admin_key=ADMIN_KEY
    )
    with live_server(settings) as url:
        yield url


@pytest.fixture(scope="module")
def setup(secured: str) -> Iterator[dict[str, str]]:
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    with httpx.Client(base_url=secured, headers=headers, timeout=120) as admin:
        mine, other = f"k-{uuid.uuid4().hex[:8]}", f"k-{uuid.uuid4().hex[:8]}"
        made = seed_bank(admin, mine)
        assert admin.put(f"/v1/default/banks/{other}", json={}).status_code < 300

        def key(**scope: object) -> str:
            response = admin.post("/v1/keys", json=scope)
            assert response.status_code == 201, response.text
            return str(response.json()["key"])

        yield {
            "url": secured,
            "mine": mine,
            "other": other,
            "memory": made["memory_ids"][0],
            "rob": made["rob"],
            "writer": key(name="console writer", banks=[mine]),
            "reader": key(name="console reader", banks=[mine], read_only=True),
        }
        for bank in (mine, other):
            admin.delete(f"/v1/default/banks/{bank}")


def sign_in(page: Page, url: str, key: str) -> None:
    page.goto(f"{url}/console/")
    expect(page).to_have_url(re.compile(r"/console/login\?next=%2Fconsole"))
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Sign in").click()


def test_a_bank_key_signs_in_once_and_sees_only_its_banks(
    page: Page, setup: dict[str, str]
) -> None:
    url, mine, other = setup["url"], setup["mine"], setup["other"]
    page.goto(f"{url}/console/login")
    screenshot(page, "login")
    page.get_by_label("API key").fill("not-a-key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("p.error")).to_contain_text("not a valid API key")
    sign_in(page, url, setup["writer"])
    expect(page.get_by_role("link", name=mine, exact=True)).to_be_visible()
    expect(page.get_by_role("link", name=other, exact=True)).to_have_count(0)
    # The cookie carries the key to every page: no second prompt.
    page.goto(f"{url}/console/banks/{mine}/memories/")
    expect(page.locator("ol.timeline li.memory").first).to_be_visible()
    cookie = next(c for c in page.context.cookies() if c["name"] == "mnemo_console")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/console"
    response = page.goto(f"{url}/console/banks/{other}/")
    assert response is not None and response.status == 403
    expect(page.locator("p.error")).to_contain_text("has no access to bank")
    page.goto(f"{url}/console/")
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(f"{url}/console/login")
    page.goto(f"{url}/console/banks/{mine}/")
    expect(page).to_have_url(re.compile(rf"/console/login\?next=%2Fconsole%2Fbanks%2F{mine}"))


def action_pages(setup: dict[str, str]) -> list[str]:
    """Every page that offers a change to a writer: memory, document, entity, reviews, audit."""
    bank = f"/console/banks/{setup['mine']}"
    return [
        f"{bank}/memories/{setup['memory']}",
        f"{bank}/documents/letters/caroline.txt",
        f"{bank}/entities/{setup['rob']}",
        f"{bank}/reviews/",
        f"{bank}/audit/",
        f"{bank}/mental-models/",
    ]


def action_forms(page: Page) -> int:
    """Forms that post a change (the header's sign-out form is outside ``main``)."""
    return page.locator("main form[method=post]").count()


def test_a_read_only_key_is_offered_no_action_and_a_writer_every_one(
    page: Page, setup: dict[str, str]
) -> None:
    url = setup["url"]
    sign_in(page, url, setup["reader"])
    for path in action_pages(setup):
        response = page.goto(url + path)
        assert response is not None and response.status == 200, path
        expect(page.locator("main h1")).to_be_visible()
        assert action_forms(page) == 0, path
    expect(page.get_by_role("button", name="Invalidate")).to_have_count(0)
    page.goto(f"{url}/console/")
    assert action_forms(page) == 0  # creating a bank needs an admin key
    page.get_by_role("button", name="Sign out").click()

    sign_in(page, url, setup["writer"])
    for path in action_pages(setup):
        page.goto(url + path)
        assert action_forms(page) > 0, path
    page.goto(f"{url}/console/")
    assert action_forms(page) == 0  # a bank key still creates no bank
    page.get_by_role("button", name="Sign out").click()

    sign_in(page, url, ADMIN_KEY)
    page.goto(f"{url}/console/")
    expect(page.get_by_role("button", name="Create bank")).to_be_visible()
    page.goto(f"{url}/console/banks/{setup['mine']}/memories/{setup['memory']}")
    expect(page.get_by_role("button", name="Invalidate")).to_be_visible()


def test_a_read_only_key_reads_but_cannot_change(page: Page, setup: dict[str, str]) -> None:
    url, mine, memory = setup["url"], setup["mine"], setup["memory"]
    sign_in(page, url, setup["reader"])
    page.goto(f"{url}/console/banks/{mine}/memories/{memory}")
    # No form is offered; a post made anyway (an old tab, a crafted request) is still refused.
    response = page.request.post(
        f"{url}/console/banks/{mine}/memories/{memory}/state",
        form={"state": "invalidated", "reason": "should be refused"},
        headers={"Origin": url},
        max_redirects=0,
    )
    assert response.status == 403
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    state = httpx.get(f"{url}/v1/default/banks/{mine}/memories/{memory}", headers=headers)
    assert state.json()["state"] == "valid"
