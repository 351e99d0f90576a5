"""Shared fixtures: a Neo4j reserved for tests, settings, and the real app over real HTTP.

The test Neo4j has its own data directory and ports (MNEMO_TEST_*; scripts/test sets them and
starts it; plain `pytest` starts it too), so tests never touch the service's data.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import neo4j
import pytest

from app.config import Settings, load_settings
from app.store.local_neo4j import LOCAL_USER, neo4j_script, read_password
from tests.support.helpers import GraphProbe
from tests.support.live_server import live_server

pytest_plugins = ["tests.support.fake_openai"]

ROOT = Path(__file__).resolve().parents[1]
TEST_DATA_DIR = Path(os.environ.get("MNEMO_TEST_DATA_DIR", ROOT / ".data" / "test"))
# Model folders built from PyPI packages, shared by every test's data folder (~4 s a build).
TEST_MODELS_DIR = TEST_DATA_DIR / "models"
TEST_BOLT_PORT = int(os.environ.get("MNEMO_TEST_NEO4J_BOLT_PORT", "7697"))
TEST_HTTP_PORT = int(os.environ.get("MNEMO_TEST_NEO4J_HTTP_PORT", "7484"))


def neo4j_test_auth() -> tuple[str, str]:
    """The test Neo4j's user and the password scripts/neo4j generated for it."""
    password = read_password(TEST_DATA_DIR)
    assert password, f"no Neo4j password under {TEST_DATA_DIR} (scripts/neo4j start makes it)"
    return LOCAL_USER, password


def neo4j_test_env() -> dict[str, str]:
    """MNEMO_* variables that point a subprocess at the test Neo4j."""
    user, password = neo4j_test_auth()
    return {
        "MNEMO_NEO4J_URI": f"bolt://127.0.0.1:{TEST_BOLT_PORT}",
        "MNEMO_NEO4J_USER": user,
        "MNEMO_NEO4J_PASSWORD": password,
    }


def make_settings(data_dir: Path, **overrides: object) -> Settings:
    """Settings for a test: the test Neo4j, vectors and models under ``data_dir``.

    The consolidation worker is off unless a test turns it on (the observation tests do):
    the other tests assert on banks that background consolidation would change under them.
    """
    user, password = neo4j_test_auth()
    values: dict[str, object] = {
        "data_dir": str(data_dir),
        "models_dir": str(TEST_MODELS_DIR),
        "neo4j_uri": f"bolt://127.0.0.1:{TEST_BOLT_PORT}",
        "neo4j_user": user,
        "neo4j_password": password,
        "neo4j_bolt_port": TEST_BOLT_PORT,
        "neo4j_http_port": TEST_HTTP_PORT,
        "consolidation_worker": False,
    }
    values.update(overrides)
    return load_settings({}, **values)


@pytest.fixture(scope="session")
def test_neo4j() -> str:
    """Start (or reuse) the test Neo4j; returns its Bolt URI."""
    local = load_settings(
        {},
        data_dir=str(TEST_DATA_DIR),
        neo4j_bolt_port=TEST_BOLT_PORT,
        neo4j_http_port=TEST_HTTP_PORT,
    )
    assert neo4j_script(local, "start", quiet=True) == 0, "the test Neo4j did not start"
    return local.bolt_uri


@pytest.fixture(scope="session")
def settings(test_neo4j: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings of the shared test server (its own Qdrant Edge shard; quick webhook retries)."""
    return make_settings(tmp_path_factory.mktemp("mnemo-data"), webhook_retry_base_s=0.2)


@pytest.fixture(scope="session")
def base_url(settings: Settings) -> Iterator[str]:
    """The real app served over HTTP on loopback for the whole session."""
    with live_server(settings) as url:
        yield url


@pytest.fixture(scope="session")
def http(base_url: str) -> Iterator[httpx.Client]:
    """An HTTP client bound to the shared test server."""
    with httpx.Client(base_url=base_url, timeout=120.0) as client:
        yield client


@pytest.fixture
def bank_id() -> str:
    """A fresh bank id (not yet created)."""
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def bank(http: httpx.Client, bank_id: str) -> Iterator[str]:
    """A fresh bank in `local` mode; returns its id (deleted after the test, if still there)."""
    response = http.put(f"/v1/default/banks/{bank_id}", json={"name": "test bank"})
    assert response.status_code == 200, response.text
    yield bank_id
    http.delete(f"/v1/default/banks/{bank_id}")


@pytest.fixture(scope="session")
def graph_probe(test_neo4j: str) -> Iterator[GraphProbe]:
    """Inspect the test Neo4j directly (tests never write through it)."""
    with neo4j.GraphDatabase.driver(
        test_neo4j, auth=neo4j_test_auth(), notifications_min_severity="OFF"
    ) as driver:
        yield GraphProbe(driver)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last.

    Playwright's sync API keeps an event loop running in this thread from the first browser
    test to the end of the session, and no asyncio test can run after it.
    """
    browser = Path(__file__).parent / "browser"
    items.sort(key=lambda item: browser in item.path.parents)
