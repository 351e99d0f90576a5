"""With Neo4j down or hung, Mnemo answers at once: readiness within 2 s, other requests 503
within 5 s, naming the dependency and not its address; it recovers by itself.

This test stops and freezes (SIGSTOP) a Neo4j of its own, never the shared test server.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.config import load_settings
from app.store.local_neo4j import LOCAL_USER, neo4j_script, read_password
from tests.support.live_server import free_port, live_server

BANK = "failfast"


@pytest.fixture(scope="module")
def throwaway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int, int]]:
    data = tmp_path_factory.mktemp("throwaway-neo4j")
    bolt, http = free_port(), free_port()
    local = load_settings({}, data_dir=str(data), neo4j_bolt_port=bolt, neo4j_http_port=http)
    os.environ.setdefault("MNEMO_NEO4J_HEAP", "512m")
    os.environ.setdefault("MNEMO_NEO4J_PAGECACHE", "64m")
    assert neo4j_script(local, "start", quiet=True) == 0
    try:
        yield data, bolt, http
    finally:
        pid = _pid(data)
        if pid:
            os.kill(pid, signal.SIGCONT)
        neo4j_script(local, "stop", quiet=True)


def _pid(data: Path) -> int | None:
    try:
        return int((data / "neo4j" / "run" / "neo4j.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _timed(call: object) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = call()  # type: ignore[operator]
    return response, time.monotonic() - started


def _assert_fails_fast(client: httpx.Client) -> None:
    # The first request is sent at once: it is waiting on Neo4j when the watcher notices.
    for call in (
        lambda: client.get(f"/v1/default/banks/{BANK}/memories/list"),
        lambda: client.post(f"/v1/default/banks/{BANK}/memories/recall", json={"query": "Ada"}),
        lambda: client.post(
            f"/v1/default/banks/{BANK}/memories", json={"items": [{"content": "Ada again."}]}
        ),
    ):
        response, took = _timed(call)
        assert response.status_code == 503 and took < 5.0, (response.text, took)
        detail = response.json()["detail"]
        assert "Neo4j" in detail and "127.0.0.1" not in detail and "bolt" not in detail
    ready, took = _timed(lambda: client.get("/health/ready"))
    assert ready.status_code == 503 and took < 2.0, (ready.text, took)
    assert ready.json()["extra"]["neo4j"] == "down"
    assert client.get("/health").status_code == 200  # liveness is not readiness


def _wait_ready(client: httpx.Client, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while client.get("/health/ready").status_code != 200:
        assert time.monotonic() < deadline, "Mnemo did not recover after Neo4j came back"
        time.sleep(0.5)


@pytest.mark.slow
def test_neo4j_hung_or_stopped_fails_fast_and_recovers(
    throwaway: tuple[Path, int, int], tmp_path: Path
) -> None:
    data, bolt, http_port = throwaway
    password = read_password(data)
    assert password
    settings = load_settings(
        {},
        data_dir=str(tmp_path),
        neo4j_uri=f"bolt://127.0.0.1:{bolt}",
        neo4j_user=LOCAL_USER,
        neo4j_password=password,
        local_extraction_worker=False,
    )
    local = load_settings({}, data_dir=str(data), neo4j_bolt_port=bolt, neo4j_http_port=http_port)
    with live_server(settings) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.put(f"/v1/default/banks/{BANK}", json={}).status_code == 200
        client.post(
            f"/v1/default/banks/{BANK}/memories",
            json={"items": [{"content": "Ada Lovelace wrote the first program in 1843."}]},
        )

        pid = _pid(data)
        assert pid
        os.kill(pid, signal.SIGSTOP)  # hung: connections stay open, nothing answers
        try:
            _assert_fails_fast(client)
        finally:
            os.kill(pid, signal.SIGCONT)
        _wait_ready(client)
        assert client.get(f"/v1/default/banks/{BANK}/memories/list").status_code == 200

        assert neo4j_script(local, "stop", quiet=True) == 0  # down: connections refused
        _assert_fails_fast(client)
        assert neo4j_script(local, "start", quiet=True) == 0
        _wait_ready(client)
        listed = client.get(f"/v1/default/banks/{BANK}/memories/list")
        assert listed.status_code == 200 and listed.json()["total"] >= 1
