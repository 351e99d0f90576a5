"""The security middleware's rules: hosts, bearer keys, and what a route needs."""

from __future__ import annotations

import pytest

from app.api.security import (
    HttpPolicy,
    bearer_key,
    host_allowed,
    host_name,
    requirement,
    same_origin,
)
from app.config import SettingsError, load_settings
from app.main import create_app

POLICY = HttpPolicy(auth_required=True, allowed_hosts=frozenset({"localhost", "127.0.0.1", "::1"}))


@pytest.mark.parametrize(
    ("host", "name"),
    [
        ("127.0.0.1:8888", "127.0.0.1"),
        ("[::1]:8888", "::1"),
        ("LocalHost", "localhost"),
        ("::1", "::1"),
    ],
)
def test_host_name_drops_port_and_brackets(host: str, name: str) -> None:
    assert host_name(host) == name


def test_only_allowed_hosts_pass() -> None:
    allowed = POLICY.allowed_hosts
    assert host_allowed("127.0.0.1:8888", allowed)
    assert host_allowed("[::1]:8888", allowed)
    assert not host_allowed("evil.example:8888", allowed)
    assert not host_allowed("127.0.0.1.evil.example", allowed)
    assert not host_allowed("", allowed)
    assert host_allowed("api.example.com", frozenset({"*.example.com"}))
    assert not host_allowed("example.com.evil", frozenset({"*.example.com"}))
    assert host_allowed("anything", frozenset({"*"}))


def test_bearer_key_is_read_from_the_authorization_header() -> None:
    assert bearer_key("Bearer abc") == "abc"
    assert bearer_key("bearer   abc  ") == "abc"
    assert bearer_key("Basic abc") is None
    assert bearer_key("Bearer ") is None
    assert bearer_key(None) is None


def test_same_origin_compares_scheme_and_host() -> None:
    assert same_origin("http://127.0.0.1:8888", "127.0.0.1:8888", "http")
    assert not same_origin("http://evil.example", "127.0.0.1:8888", "http")


def test_a_bank_route_needs_read_for_get_and_write_for_the_rest() -> None:
    params = {"bank_id": "alice"}
    path = "/v1/default/banks/alice/anything"
    assert requirement({}, "GET", path, params, POLICY).kind == "bank_read"
    assert requirement({}, "POST", path, params, POLICY).kind == "bank_write"
    assert requirement({}, "DELETE", path, params, POLICY).bank_id == "alice"
    assert requirement({"access": "read"}, "POST", path, params, POLICY).kind == "bank_read"


def test_a_route_without_a_bank_needs_an_admin_unless_it_says_otherwise() -> None:
    assert requirement({}, "GET", "/v1/new-thing", {}, POLICY).kind == "admin"
    assert requirement({}, "POST", "/mcp", {}, POLICY).kind == "admin"
    assert requirement({"access": "any_key"}, "POST", "/mcp", {}, POLICY).kind == "any_key"
    assert requirement({"access": "open"}, "GET", "/health", {}, POLICY).kind == "open"
    assert requirement({}, "GET", "/schema/openapi.json", {}, POLICY).kind == "open"
    assert requirement({}, "OPTIONS", "/v1/default/banks/a", {"bank_id": "a"}, POLICY).kind == (
        "open"
    )


def test_every_route_of_the_app_gets_a_requirement_that_is_not_open_unless_declared() -> None:
    app = create_app(load_settings({}))
    open_paths = set()
    needs: dict[tuple[str, str], str] = {}
    for route in app.routes:
        handlers = getattr(route, "route_handlers", None) or [route.route_handler]  # /mcp: ASGI
        for handler in handlers:
            for method in getattr(handler, "http_methods", None) or {"POST"}:
                params = {"bank_id": "b"} if "{bank_id" in route.path else {}
                need = requirement(handler.opt, method, route.path, params, POLICY)
                needs[(method, route.path.replace(":str}", "}"))] = need.kind
                if need.kind == "open" and method != "OPTIONS":
                    open_paths.add(route.path)
    # The console's pages are open to the API middleware (its Host and Origin checks still run)
    # because the console asks for the key itself and applies the same rules (app/console).
    assert open_paths == {"/health", "/health/live", "/health/ready", "/version"} | {
        p for p in open_paths if p.startswith(("/schema", "/console"))
    }
    bank = "/v1/default/banks/{bank_id}"
    # Hindsight's routes (issue 18): bank settings and webhooks are the bank's read-write
    # key's (defense within config is checked in the handler); the MCP mount takes any key
    # and checks each tool's bank itself.
    assert needs[("POST", "/mcp")] == "any_key"
    assert needs[("GET", bank + "/config")] == "bank_read"
    assert needs[("PATCH", bank + "/config")] == "bank_write"
    assert needs[("DELETE", bank + "/config")] == "bank_write"
    assert needs[("PUT", bank + "/profile")] == "bank_write"
    assert needs[("GET", bank + "/stats")] == "bank_read"
    assert needs[("GET", bank + "/tags")] == "bank_read"
    assert needs[("POST", bank + "/webhooks")] == "bank_write"
    assert needs[("GET", bank + "/webhooks/{webhook_id}/deliveries")] == "bank_read"
    assert needs[("GET", bank + "/documents/{document_id:path}")] == "bank_read"
    assert needs[("PUT", bank)] == needs[("DELETE", bank)] == "admin"
    assert needs[("GET", "/metrics")] == "admin"


def test_auth_defaults_to_off_on_loopback_and_required_elsewhere() -> None:
    assert not load_settings({}).auth_required
    assert not load_settings({"MNEMO_HOST": "localhost"}).auth_required
    assert load_settings({"MNEMO_HOST": "0.0.0.0"}).auth_required
    assert load_settings({"MNEMO_HOST": "10.1.2.3"}).auth_required
    assert load_settings({"MNEMO_AUTH": "required"}).auth_required


def test_auth_off_is_refused_on_a_host_other_than_loopback() -> None:
    with pytest.raises(SettingsError, match="MNEMO_AUTH=off is refused"):
        create_app(load_settings({"MNEMO_HOST": "0.0.0.0", "MNEMO_AUTH": "off"}))
    create_app(load_settings({"MNEMO_HOST": "127.0.0.1", "MNEMO_AUTH": "off"}))


def test_allowed_hosts_default_to_loopback_names_plus_a_specific_bind_address() -> None:
    assert load_settings({}).allowed_host_names == {"localhost", "127.0.0.1", "::1"}
    assert "10.1.2.3" in load_settings({"MNEMO_HOST": "10.1.2.3"}).allowed_host_names
    assert "0.0.0.0" not in load_settings({"MNEMO_HOST": "0.0.0.0"}).allowed_host_names
    configured = load_settings({"MNEMO_ALLOWED_HOSTS": "Mnemo.example, *.lan"})
    assert configured.allowed_host_names == {"mnemo.example", "*.lan"}
