"""Two stores, one truth: kill the service between the Neo4j and the vector write, then repair.

The service runs as a real subprocess (`mnemo serve`) with the test-only fault injection that
exits right after the graph transaction commits and before any vector is written.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.store.qdrant_edge import EdgeVectorStore
from tests.conftest import TEST_BOLT_PORT
from tests.support.helpers import GraphProbe
from tests.support.live_server import free_port

MNEMO = [sys.executable, "-m", "app.cli"]
ROOT = Path(__file__).resolve().parents[2]


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(
        MNEMO_DATA_DIR=str(data_dir),
        MNEMO_NEO4J_URI=f"bolt://127.0.0.1:{TEST_BOLT_PORT}",
        **extra,
    )
    return env


@contextmanager
def service(data_dir: Path, **extra: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run `mnemo serve` until the block ends (or the process dies on its own)."""
    port = free_port()
    process = subprocess.Popen(
        [*MNEMO, "serve", "--port", str(port)], cwd=ROOT, env=_env(data_dir, **extra)
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, "the service exited during start-up"
            try:
                if httpx.get(f"{url}/health/ready", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the service did not become ready"
            time.sleep(0.3)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=60)


def _vector_ids(data_dir: Path, bank: str) -> set[str]:
    async def read() -> set[str]:
        store = EdgeVectorStore(data_dir / "qdrant" / "mnemo_memories", dim=384)
        await store.open()
        try:
            return await store.ids(bank)
        finally:
            await store.close()

    return asyncio.run(read())


@pytest.mark.slow
def test_killed_between_stores_is_invisible_then_repaired(
    tmp_path: Path, graph_probe: GraphProbe, bank_id: str
) -> None:
    with service(tmp_path, MNEMO_FAULT_INJECTION="crash_after_graph_write") as (url, process):
        assert httpx.put(f"{url}/v1/default/banks/{bank_id}", json={}).status_code == 201
        with pytest.raises(httpx.TransportError):
            httpx.post(
                f"{url}/v1/default/banks/{bank_id}/memories",
                json={"items": [{"content": "Ada Lovelace wrote the first program in 1843."}]},
                timeout=120,
            )
        assert process.wait(timeout=60) == 97

    pending = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.vector_pending AS pending", b=bank_id
    )
    assert pending and all(row["pending"] is True for row in pending)
    assert _vector_ids(tmp_path, bank_id) == set()

    repaired = subprocess.run(
        [*MNEMO, "reconcile", "--bank", bank_id],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert f'"repaired":{len(pending)}' in repaired.stdout
    after = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.vector_pending AS pending", b=bank_id
    )
    assert all(row["pending"] is False for row in after)
    assert _vector_ids(tmp_path, bank_id) == {str(row["id"]) for row in after}


@pytest.mark.slow
def test_interrupted_operation_is_resumed_at_the_next_start(
    tmp_path: Path, graph_probe: GraphProbe, bank_id: str
) -> None:
    with service(tmp_path, MNEMO_FAULT_INJECTION="crash_after_graph_write") as (url, process):
        httpx.put(f"{url}/v1/default/banks/{bank_id}", json={})
        accepted = httpx.post(
            f"{url}/v1/default/banks/{bank_id}/memories",
            json={"async": True, "items": [{"content": "Grace Hopper found a moth in 1947."}]},
        ).json()
        assert process.wait(timeout=120) == 97
    operation = f"/v1/default/banks/{bank_id}/operations/{accepted['operation_id']}"

    with service(tmp_path) as (url, _):
        deadline = time.monotonic() + 60
        while (status := httpx.get(url + operation).json())["status"] != "completed":
            assert status["status"] in ("pending", "running"), status
            assert time.monotonic() < deadline, status
            time.sleep(0.3)
        assert status["attempts"] == 2
        # The start-up repair finished the first attempt's vector write.
        rows = graph_probe.rows(
            "MATCH (m:Memory {bank_id: $b}) RETURN m.vector_pending AS pending", b=bank_id
        )
        assert rows and all(row["pending"] is False for row in rows)
