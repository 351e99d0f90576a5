"""Two stores, one truth: kill the service between the Neo4j and the vector write, then repair.

The service runs as a real subprocess (`mnemo serve`) with the test-only fault injection that
exits right after the graph transaction commits and before any vector is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.runtime import Runtime
from app.store.qdrant_edge import EdgeVectorStore
from tests.conftest import TEST_MODELS_DIR, make_settings, neo4j_test_env
from tests.support.helpers import GraphProbe
from tests.support.live_server import free_port

MNEMO = [sys.executable, "-m", "app.cli"]
ROOT = Path(__file__).resolve().parents[2]


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(
        MNEMO_DATA_DIR=str(data_dir),
        MNEMO_MODELS_DIR=str(TEST_MODELS_DIR),
        # These tests compare what retain left behind with what the next start published; the
        # consolidation worker would add observations (and their vectors) in between.
        MNEMO_CONSOLIDATION_WORKER="false",
        **neo4j_test_env(),
    )
    env.update(extra)
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


def _delete_vectors(data_dir: Path, bank: str) -> None:
    async def delete() -> None:
        store = EdgeVectorStore(data_dir / "qdrant" / "mnemo_memories", dim=384)
        await store.open()
        try:
            await store.delete(bank, sorted(await store.ids(bank)))
            await store.flush()
        finally:
            await store.close()

    asyncio.run(delete())


def _reconcile(data_dir: Path, bank: str) -> str:
    done = subprocess.run(
        [*MNEMO, "reconcile", "--bank", bank],
        cwd=ROOT,
        env=_env(data_dir),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout


def _semantic_links(graph_probe: GraphProbe, bank: str) -> list[tuple[object, object]]:
    rows = graph_probe.rows(
        "MATCH (a:Memory {bank_id: $b})-[:SEMANTIC]->(c:Memory) RETURN a.id AS a, c.id AS c",
        b=bank,
    )
    return sorted((row["a"], row["c"]) for row in rows)


def _marked_for_settle(graph_probe: GraphProbe, bank: str) -> int:
    rows = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) WHERE m.settle_pending = true RETURN count(m) AS n", b=bank
    )
    count = rows[0]["n"]
    assert isinstance(count, int)
    return count


# Two sentences about one thing: two facts that a retain links by meaning.
SIMILAR = (
    "Ada Lovelace wrote the first program in 1843. "
    "In 1843 Ada Lovelace wrote the first computer program."
)


def _crash_after_write(data_dir: Path, bank: str, **extra: str) -> None:
    """Create ``bank`` and retain two similar facts into it; the service dies after the write."""
    crashing = {"MNEMO_FAULT_INJECTION": "crash_after_graph_write", **extra}
    with service(data_dir, **crashing) as (url, process):
        assert httpx.put(f"{url}/v1/default/banks/{bank}", json={}).status_code == 200
        with pytest.raises(httpx.TransportError):
            httpx.post(
                f"{url}/v1/default/banks/{bank}/memories",
                json={"items": [{"content": SIMILAR}]},
                timeout=120,
            )
        assert process.wait(timeout=60) == 97


@pytest.mark.slow
def test_killed_between_stores_is_invisible_then_repaired(
    tmp_path: Path, graph_probe: GraphProbe, bank_id: str
) -> None:
    _crash_after_write(tmp_path, bank_id)

    pending = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.vector_pending AS pending", b=bank_id
    )
    assert len(pending) == 2 and all(row["pending"] is True for row in pending)
    assert _vector_ids(tmp_path, bank_id) == set()
    # Semantic links are written with the publish that never came, and the settle behind the
    # write never ran: both facts are still marked for it.
    assert _semantic_links(graph_probe, bank_id) == []
    assert _marked_for_settle(graph_probe, bank_id) == 2

    report = _reconcile(tmp_path, bank_id)
    assert '"repaired":2' in report and '"settled":2' in report
    assert _marked_for_settle(graph_probe, bank_id) == 0
    after = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.vector_pending AS pending", b=bank_id
    )
    assert all(row["pending"] is False for row in after)
    assert _vector_ids(tmp_path, bank_id) == {str(row["id"]) for row in after}
    # The repair found the link the publish would have written: one edge for the pair.
    links = _semantic_links(graph_probe, bank_id)
    assert len(links) == 1 and set(links[0]) == {row["id"] for row in after}

    # Vectors lost later: reconciliation writes them again and replaces, not doubles, the link.
    _delete_vectors(tmp_path, bank_id)
    assert '"missing_vectors":2' in _reconcile(tmp_path, bank_id)
    assert _vector_ids(tmp_path, bank_id) == {str(row["id"]) for row in after}
    assert _semantic_links(graph_probe, bank_id) == links


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
            assert status["status"] in ("pending", "processing"), status
            assert time.monotonic() < deadline, status
            time.sleep(0.3)
        assert status["attempts"] == 2
        # The start-up repair finished the first attempt's vector write.
        rows = graph_probe.rows(
            "MATCH (m:Memory {bank_id: $b}) RETURN m.vector_pending AS pending", b=bank_id
        )
        assert rows and all(row["pending"] is False for row in rows)


@pytest.mark.slow
def test_sigkill_during_a_large_retain_leaves_all_or_nothing_and_recall_works_after(
    tmp_path: Path, graph_probe: GraphProbe, bank_id: str
) -> None:
    """A real SIGKILL of the service process while a 300-item retain is being written."""
    items = [{"content": "Zephyrine Quasarova planted a violet orchard in Tallinn in 2019."}]
    items += [
        {"content": f"Visitor {i} counted {i * 7} birds near the northern lake on day {i}."}
        for i in range(1, 300)
    ]
    documents = "MATCH (d:Document {bank_id: $b}) RETURN count(d) AS n"
    with service(tmp_path) as (url, process):
        assert httpx.put(f"{url}/v1/default/banks/{bank_id}", json={}).status_code == 200
        sender = threading.Thread(
            target=lambda: _post_quietly(f"{url}/v1/default/banks/{bank_id}/memories", items),
            daemon=True,
        )
        sender.start()
        deadline = time.monotonic() + 300
        # Kill as soon as the write transaction has committed: the vectors and semantic links
        # of the publish are then half written at most.
        while graph_probe.value(documents, b=bank_id) == 0:
            assert time.monotonic() < deadline, "the retain never reached Neo4j"
            assert process.poll() is None
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=60) == -signal.SIGKILL
        sender.join(timeout=60)

    # All or nothing: every item's document was written in the one transaction.
    assert graph_probe.value(documents, b=bank_id) == len(items)
    with service(tmp_path) as (url, _):  # the start-up repair finishes the publish
        pending = graph_probe.value(
            "MATCH (m:Memory {bank_id: $b}) WHERE m.vector_pending RETURN count(m) AS n",
            b=bank_id,
        )
        assert pending == 0
        recall = httpx.post(
            f"{url}/v1/default/banks/{bank_id}/memories/recall",
            json={"query": "Who planted a violet orchard in Tallinn?"},
            timeout=120,
        ).json()
        assert any("Quasarova" in r["text"] for r in recall["results"][:5])
        facts = graph_probe.value("MATCH (m:Memory {bank_id: $b}) RETURN count(m) AS n", b=bank_id)
        assert facts >= len(items)


def _post_quietly(url: str, items: list[dict[str, str]]) -> None:
    with contextlib.suppress(httpx.TransportError):
        httpx.post(url, json={"items": items}, timeout=600)


def test_a_group_killed_between_stores_is_published_by_the_next_start(
    tmp_path: Path, graph_probe: GraphProbe, bank_id: str
) -> None:
    # Requests that wait together share one write: the crash after it leaves the facts of
    # several requests pending, and the next start publishes all of them, links included.
    documents = [f"turn-{i}" for i in range(4)]
    crash = {
        "MNEMO_FAULT_INJECTION": "crash_after_graph_write",
        "MNEMO_RETAIN_GROUP_WAIT_MS": "2000",
    }
    with service(tmp_path, **crash) as (url, process):
        assert httpx.put(f"{url}/v1/default/banks/{bank_id}", json={}).status_code == 200

        async def send_all() -> list[BaseException | httpx.Response]:
            async with httpx.AsyncClient(base_url=url, timeout=120) as client:
                return await asyncio.gather(
                    *(
                        client.post(
                            f"/v1/default/banks/{bank_id}/memories",
                            json={"items": [{"content": SIMILAR, "document_id": d}]},
                        )
                        for d in documents
                    ),
                    return_exceptions=True,
                )

        answers = asyncio.run(send_all())
        assert all(isinstance(a, httpx.TransportError) for a in answers), answers
        assert process.wait(timeout=60) == 97

    written = graph_probe.rows(
        "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.document_id AS d, "
        "m.vector_pending AS pending",
        b=bank_id,
    )
    # One write held them all (the first waited for company), and none of it is published.
    assert {row["d"] for row in written} == set(documents)
    assert all(row["pending"] is True for row in written)
    assert _vector_ids(tmp_path, bank_id) == set()

    with service(tmp_path) as (url, _):
        after = graph_probe.rows(
            "MATCH (m:Memory {bank_id: $b}) RETURN m.id AS id, m.vector_pending AS pending",
            b=bank_id,
        )
        assert all(row["pending"] is False for row in after)
        found = httpx.post(
            f"{url}/v1/default/banks/{bank_id}/memories/recall",
            json={"query": "Who wrote the first program?"},
            timeout=60,
        )
        assert found.status_code == 200, found.text
        results = {r["id"] for r in found.json()["results"]}
        assert results and results <= {str(row["id"]) for row in written}
    assert _vector_ids(tmp_path, bank_id) == {str(row["id"]) for row in written}
    # Each request's two facts say the same: the repair linked them by meaning.
    assert len(_semantic_links(graph_probe, bank_id)) >= len(documents)


@pytest.mark.slow
async def test_a_bank_deleted_while_its_marked_facts_are_settled_does_not_stop_the_rest(
    tmp_path: Path, graph_probe: GraphProbe, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two banks each left with facts written but not settled (a crash after the write). A
    # start settles them; one bank is deleted by a client between the read of the marked
    # facts and their settle. The start goes on and settles the other bank.
    deleted, kept = f"t-{uuid.uuid4().hex[:12]}", f"t-{uuid.uuid4().hex[:12]}"
    for bank in (deleted, kept):
        # The second start must not settle the first crash's facts: they are the test's.
        _crash_after_write(tmp_path, bank, MNEMO_RECONCILE_ON_START="false")
    assert _marked_for_settle(graph_probe, deleted) == _marked_for_settle(graph_probe, kept) == 2

    settings = make_settings(tmp_path, local_extraction_worker=False)
    async with Runtime.open(settings, background=False) as runtime:
        graph = runtime.graph
        read_marked = graph.rows

        async def rows_then_delete(name: str, *args: Any, **kwargs: Any) -> Any:
            found = await read_marked(name, *args, **kwargs)
            if name == "reconcile/settle_pending" and found:
                await runtime.banks.delete(deleted)  # a client's delete, right after the read
            return found

        monkeypatch.setattr(graph, "rows", rows_then_delete)
        try:
            assert await runtime.retainer.settle_marked() == 2
        finally:
            monkeypatch.undo()
            await runtime.banks.delete(kept)
    assert _marked_for_settle(graph_probe, kept) == 0
    assert graph_probe.value("MATCH (b:Bank {id: $b}) RETURN count(b) AS n", b=deleted) == 0
