"""API keys, hosts, origins and content types, over real HTTP against a service that requires keys.

The shared test server runs with keys off (loopback); this module serves its own with
``MNEMO_AUTH=required`` and an admin key from ``MNEMO_ADMIN_KEY``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from app.access.keys import CACHE_SECONDS
from tests.conftest import make_settings, neo4j_test_env
from tests.support.cli import Cli
from tests.support.helpers import GraphProbe
from tests.support.live_server import live_server

ADMIN_KEY = "test-admin-key-" + uuid.uuid4().hex
BANKS = "/v1/default/banks"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = make_settings(
        Path(tmp_path_factory.mktemp("secured")),
        auth="required",
        admin_key=ADMIN_KEY,
        cors_origins="https://console.example",
    )
    with live_server(settings) as url:
        yield url


@pytest.fixture(scope="module")
def admin(secured: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=secured, headers=bearer(ADMIN_KEY), timeout=120) as client:
        yield client


@pytest.fixture
def two_banks(admin: httpx.Client) -> Iterator[tuple[str, str]]:
    mine, other = f"s-{uuid.uuid4().hex[:10]}", f"s-{uuid.uuid4().hex[:10]}"
    for bank in (mine, other):
        assert admin.put(f"{BANKS}/{bank}", json={}).status_code == 200
    yield mine, other
    for bank in (mine, other):
        admin.delete(f"{BANKS}/{bank}")


def new_key(client: httpx.Client, **scope: object) -> str:
    return create_key(client, **scope)[0]


def create_key(client: httpx.Client, **scope: object) -> tuple[str, str]:
    response = client.post("/v1/keys", json=scope)
    assert response.status_code == 201, response.text
    return response.json()["key"], response.json()["info"]["id"]


def test_every_route_but_health_and_docs_needs_a_key(secured: str) -> None:
    schema = httpx.get(f"{secured}/schema/openapi.json").json()
    checked = 0
    for path, operations in schema["paths"].items():
        concrete = path.replace("{bank_id}", "some-bank")
        for part in ("{memory_id}", "{document_id}", "{entity_id}", "{merge_id}", "{review_id}",
                     "{operation_id}", "{key_id}"):  # fmt: skip
            concrete = concrete.replace(part, "x")
        for method in operations:
            if method.upper() not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
                continue
            response = httpx.request(method.upper(), secured + concrete, json={})
            if path.startswith("/health") or path == "/version":
                assert response.status_code in (200, 405), (method, path)
                continue
            assert response.status_code == 401, (method, path, response.text)
            assert response.headers["www-authenticate"].startswith("Bearer")
            assert "API key is required" in response.json()["detail"]
            checked += 1
    assert checked >= 25


def test_health_and_the_api_document_stay_open(secured: str) -> None:
    for path in ("/health", "/health/live", "/health/ready", "/schema/openapi.json"):
        assert httpx.get(secured + path).status_code == 200, path


def test_a_wrong_key_is_401_and_says_so(secured: str) -> None:
    response = httpx.get(f"{secured}{BANKS}", headers=bearer("mnemo_not-a-key"))
    assert response.status_code == 401
    assert response.json()["detail"] == "the API key is not valid (unknown, revoked or mistyped)"
    basic = httpx.get(f"{secured}{BANKS}", headers={"Authorization": "Basic YTpi"})
    assert basic.status_code == 401


def test_bank_key_works_in_its_bank_and_nowhere_else(
    secured: str, admin: httpx.Client, two_banks: tuple[str, str]
) -> None:
    mine, other = two_banks
    key = new_key(admin, banks=[mine], name="agent")
    with httpx.Client(base_url=secured, headers=bearer(key), timeout=120) as agent:
        retained = agent.post(
            f"{BANKS}/{mine}/memories", json={"items": [{"content": "Ada moved to Turin."}]}
        )
        assert retained.status_code == 200, retained.text
        recall = agent.post(f"{BANKS}/{mine}/memories/recall", json={"query": "Where is Ada?"})
        assert recall.status_code == 200
        assert any("Turin" in r["text"] for r in recall.json()["results"])
        assert agent.get(f"{BANKS}/{mine}").status_code == 200

        refused = agent.get(f"{BANKS}/{other}/memories/list")
        assert refused.status_code == 403
        assert refused.json()["detail"].endswith(f"has no access to bank {other!r}")
        assert (
            agent.post(f"{BANKS}/{other}/memories", json={"items": [{"content": "x"}]}).status_code
            == 403
        )
        # Creating, configuring, listing and deleting banks, keys and metrics are an admin's.
        assert agent.put(f"{BANKS}/new-{mine}", json={}).status_code == 403
        assert agent.patch(f"{BANKS}/{mine}", json={"name": "n"}).status_code == 403
        assert agent.delete(f"{BANKS}/{mine}").status_code == 403
        assert agent.get(BANKS).status_code == 403
        assert agent.get("/v1/keys").status_code == 403
        assert agent.get("/metrics").status_code == 403
    assert admin.get(f"{BANKS}/{mine}").json()["counts"]["memories"] >= 1


def test_read_only_key_reads_and_recalls_but_changes_nothing(
    secured: str, admin: httpx.Client, two_banks: tuple[str, str]
) -> None:
    mine, _ = two_banks
    admin.post(f"{BANKS}/{mine}/memories", json={"items": [{"content": "Grace wrote COBOL."}]})
    key = new_key(admin, banks=[mine], read_only=True)
    with httpx.Client(base_url=secured, headers=bearer(key), timeout=120) as reader:
        listed = reader.get(f"{BANKS}/{mine}/memories/list").json()["items"]
        assert listed
        assert reader.post(f"{BANKS}/{mine}/memories/recall", json={"query": "COBOL"}).json()[
            "results"
        ]
        refused = reader.post(f"{BANKS}/{mine}/memories", json={"items": [{"content": "x"}]})
        assert refused.status_code == 403
        assert "read-only" in refused.json()["detail"]
        memory = listed[0]["id"]
        assert (
            reader.patch(
                f"{BANKS}/{mine}/memories/{memory}", json={"state": "invalidated", "reason": "r"}
            ).status_code
            == 403
        )
    assert admin.get(f"{BANKS}/{mine}/memories/{memory}").json()["state"] == "valid"


def test_metrics_are_for_admins(admin: httpx.Client, secured: str) -> None:
    assert admin.get("/metrics").status_code == 200
    assert httpx.get(f"{secured}/metrics").status_code == 401


def test_a_revoked_key_stops_working(secured: str, admin: httpx.Client) -> None:
    key, key_id = create_key(admin, admin=True)
    assert httpx.get(f"{secured}{BANKS}", headers=bearer(key)).status_code == 200
    assert admin.delete(f"/v1/keys/{key_id}").status_code == 200
    # Revoked through this service: at once (the cache is dropped).
    assert httpx.get(f"{secured}{BANKS}", headers=bearer(key)).status_code == 401
    listed = {k["id"]: k for k in admin.get("/v1/keys").json()["items"]}
    assert listed[key_id]["revoked_at"] is not None
    assert "hash" not in listed[key_id]


def test_keys_made_and_revoked_by_the_cli_reach_the_running_service(
    secured: str, two_banks: tuple[str, str]
) -> None:
    mine, _ = two_banks
    cli = Cli(secured, env=neo4j_test_env())
    created = cli.json("keys", "create", "--bank", mine, "--name", "cli-made", url=False)
    assert created["info"]["banks"] == [mine] and created["key"].startswith("mnemo_")
    headers = bearer(created["key"])
    assert httpx.get(f"{secured}{BANKS}/{mine}/memories/list", headers=headers).status_code == 200
    listed = cli.run("keys", "list", url=False).stdout
    assert created["info"]["id"] in listed and created["key"] not in listed
    cli.run("keys", "revoke", created["info"]["id"], url=False)
    deadline = time.monotonic() + CACHE_SECONDS + 5
    while httpx.get(f"{secured}{BANKS}/{mine}", headers=headers).status_code != 401:
        assert time.monotonic() < deadline, "the revoked key still works"
        time.sleep(0.5)
    # Client commands send --key.
    admin_listing = cli.run("banks", "list", "--key", ADMIN_KEY)
    assert mine in admin_listing.stdout
    refused = cli.run("banks", "list", expect=1)
    assert "401" in refused.stderr


def test_deleting_a_bank_never_touches_the_keys(
    admin: httpx.Client, two_banks: tuple[str, str], graph_probe: GraphProbe
) -> None:
    mine, _ = two_banks
    new_key(admin, banks=[mine])
    before = graph_probe.value("MATCH (k:ApiKey) RETURN count(k) AS n")
    assert admin.delete(f"{BANKS}/{mine}").status_code == 200
    assert graph_probe.value("MATCH (k:ApiKey) RETURN count(k) AS n") == before


def test_foreign_hosts_are_refused(secured: str) -> None:
    response = httpx.get(f"{secured}/health", headers={"Host": "attacker.example"})
    assert response.status_code == 400
    assert "DNS rebinding" in response.json()["detail"]
    assert httpx.get(f"{secured}/health", headers={"Host": "localhost:1"}).status_code == 200


def test_cross_origin_writes_are_refused_unless_the_origin_is_configured(
    secured: str, admin: httpx.Client
) -> None:
    bank = f"s-{uuid.uuid4().hex[:10]}"
    evil = admin.put(f"{BANKS}/{bank}", json={}, headers={"Origin": "https://evil.example"})
    assert evil.status_code == 403
    assert "cross-origin" in evil.json()["detail"]
    assert admin.get(f"{BANKS}/{bank}").status_code == 404
    allowed = admin.put(f"{BANKS}/{bank}", json={}, headers={"Origin": "https://console.example"})
    assert allowed.status_code == 200
    preflight = httpx.options(
        f"{secured}{BANKS}/{bank}",
        headers={
            "Origin": "https://console.example",
            "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert preflight.headers.get("access-control-allow-origin") == "https://console.example"
    other = httpx.options(
        f"{secured}{BANKS}/{bank}",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"},
    )
    assert other.headers.get("access-control-allow-origin") is None
    admin.delete(f"{BANKS}/{bank}")


def test_json_endpoints_refuse_other_content_types(http: httpx.Client, bank: str) -> None:
    # The shared server: no keys on loopback, and still no cross-site form or text posts.
    body = '{"items": [{"content": "Sent as text/plain by a web page."}]}'
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"content-type": content_type} if content_type else {}
        response = http.post(f"{BANKS}/{bank}/memories", content=body, headers=headers)
        assert response.status_code == 415, (content_type, response.text)
    created = http.put(f"{BANKS}/{bank}-2", content="{}", headers={"content-type": "text/plain"})
    assert created.status_code == 415
    assert http.get(f"{BANKS}/{bank}-2").status_code == 404
    assert http.get(f"{BANKS}/{bank}").json()["counts"]["memories"] == 0


def test_without_cors_origins_no_cross_origin_headers_are_sent(http: httpx.Client) -> None:
    response = http.get("/health", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in response.headers


def test_hindsight_routes_follow_the_bank_scopes(
    secured: str, admin: httpx.Client, two_banks: tuple[str, str]
) -> None:
    mine, other = two_banks
    writer, reader = new_key(admin, banks=[mine]), new_key(admin, banks=[mine], read_only=True)
    hook = {"url": "http://127.0.0.1:9/hook", "enabled": False}
    with httpx.Client(base_url=secured, headers=bearer(writer), timeout=120) as agent:
        # Profile, config, stats, tags and webhooks of its own bank: a read-write key's.
        assert agent.get(f"{BANKS}/{mine}/profile").status_code == 200
        assert agent.get(f"{BANKS}/{mine}/stats").status_code == 200
        assert agent.get(f"{BANKS}/{mine}/tags").status_code == 200
        changed = agent.patch(
            f"{BANKS}/{mine}/config", json={"updates": {"retain_mission": "People."}}
        )
        assert changed.status_code == 200, changed.text
        assert agent.post(f"{BANKS}/{mine}/webhooks", json=hook).status_code == 201
        # Memory defense is the operator's policy: an admin key changes it, a reset keeps it.
        defense = {"updates": {"defense": {"secrets": "off"}}}
        refused = agent.patch(f"{BANKS}/{mine}/config", json=defense)
        assert refused.status_code == 403 and "admin" in refused.json()["detail"]
        assert admin.patch(f"{BANKS}/{mine}/config", json=defense).status_code == 200
        assert agent.delete(f"{BANKS}/{mine}/config").status_code == 200
        assert admin.get(f"{BANKS}/{mine}").json()["defense"]["secrets"] == "off"
        # Another bank's: refused, whatever the route.
        for method, path in (("GET", "/config"), ("GET", "/stats"), ("GET", "/tags"),
                             ("GET", "/webhooks"), ("PATCH", "/config"),
                             ("POST", "/webhooks")):  # fmt: skip
            body = {"updates": {}} if path == "/config" else hook
            response = agent.request(method, f"{BANKS}/{other}{path}", json=body)
            assert response.status_code == 403, (method, path, response.text)
    with httpx.Client(base_url=secured, headers=bearer(reader), timeout=120) as looker:
        assert looker.get(f"{BANKS}/{mine}/webhooks").status_code == 200
        assert looker.get(f"{BANKS}/{mine}/config").status_code == 200
        assert looker.post(f"{BANKS}/{mine}/webhooks", json=hook).status_code == 403
        assert looker.delete(f"{BANKS}/{mine}/config").status_code == 403
    # Liveness and version stay open, like /health.
    assert httpx.get(f"{secured}/health/live").status_code == 200
    assert httpx.get(f"{secured}/version").status_code == 200


def _mcp(url: str, key: str | None) -> Client:
    headers = bearer(key) if key else None
    return Client(streamable_http_client(url, http_client=create_mcp_http_client(headers)))


async def _tool(client: Client, tool: str, **arguments: object) -> tuple[bool, str]:
    result = await client.call_tool(tool, arguments)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    return result.is_error, text


@pytest.mark.asyncio
async def test_mcp_needs_a_key_and_each_tool_stays_in_its_banks(
    secured: str, admin: httpx.Client, two_banks: tuple[str, str]
) -> None:
    mine, other = two_banks
    admin.post(f"{BANKS}/{other}/memories", json={"items": [{"content": "Lin likes tea."}]})
    assert httpx.post(f"{secured}/mcp/", json={}).status_code == 401
    writer, reader = new_key(admin, banks=[mine]), new_key(admin, banks=[mine], read_only=True)
    async with _mcp(f"{secured}/mcp", writer) as agent:
        failed, text = await _tool(agent, "retain", content="Ada moved to Turin.", bank_id=mine)
        assert not failed, text
        failed, text = await _tool(agent, "recall", query="Where is Ada?", bank_id=mine)
        assert not failed and "Turin" in text, text
        for tool, arguments in (
            ("recall", {"query": "tea"}),
            ("retain", {"content": "Lin moved."}),
            ("list_memories", {}),
            ("list_entities", {}),
            ("list_reviews", {}),
        ):
            failed, text = await _tool(agent, tool, bank_id=other, **arguments)
            assert failed and "403" in text and repr(other) in text, (tool, text)
        failed, text = await _tool(agent, "create_bank", bank_id=f"new-{mine}")
        assert failed and "403" in text and "admin" in text, text
        failed, text = await _tool(agent, "list_banks")
        assert not failed and mine in text and other not in text, text
    async with _mcp(f"{secured}/mcp", reader) as looker:
        failed, text = await _tool(looker, "recall", query="Where is Ada?", bank_id=mine)
        assert not failed and "Turin" in text, text
        failed, text = await _tool(looker, "retain", content="x", bank_id=mine)
        assert failed and "read-only" in text, text
    assert "Lin moved" not in str(admin.get(f"{BANKS}/{other}/memories/list").json())
