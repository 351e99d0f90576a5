"""A live Mnemo whose consolidation worker runs (module-scoped), and waiting for it.

Import the fixture into a test module: ``from tests.support.consolidating_app import
consolidating_http``. The shared test server runs no worker (``tests/conftest.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from tests.conftest import make_settings
from tests.support.live_server import live_server

T = TypeVar("T")


@pytest.fixture(scope="module")
def consolidating_http(
    test_neo4j: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    """A client of a Mnemo whose consolidation worker runs and looks for work often."""
    settings = make_settings(
        Path(tmp_path_factory.mktemp("consolidating-data")),
        consolidation_worker=True,
        consolidation_poll_s=0.2,
    )
    with live_server(settings) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


def wait_for(check: Callable[[], T | None], timeout: float = 60.0) -> T:
    """Poll ``check`` until it returns something truthy, and return that."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for consolidation")
        time.sleep(0.2)


def observations(http: httpx.Client, bank: str, **params: Any) -> list[dict[str, Any]]:
    """The bank's observations (one page), as the API lists them."""
    response = http.get(
        f"/v1/default/banks/{bank}/memories/list", params={"type": "observation", **params}
    )
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items
