"""One owner of a data folder: a second process is refused, `mnemo reconcile` asks the owner,
and a vector store that stops taking writes turns readiness down and shows in the metrics."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import httpx
import pytest
from prometheus_client import REGISTRY

from app.curate.schemas.banks import BankUpdate
from app.errors import MnemoError
from app.recall.schemas import RecallRequest
from app.retain.schemas import RetainItem
from app.runtime import Runtime
from app.store.data_lock import DataFolderInUse
from app.store.vectors import VectorPayload, VectorPoint
from tests.conftest import make_settings
from tests.integration.test_crash_recovery import MNEMO, ROOT, _env, service


async def test_a_second_runtime_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with Runtime.open(settings, background=False):
        with pytest.raises(DataFolderInUse, match="is in use by another Mnemo process"):
            async with Runtime.open(settings, background=False):
                pass
    # Released on exit: the next one opens.
    async with Runtime.open(settings, background=False) as runtime:
        assert (await runtime.readiness()).ready


def _metric(name: str) -> float:
    value = REGISTRY.get_sample_value(name)
    return 0.0 if value is None else value


async def test_failed_vector_writes_turn_readiness_down_until_a_write_succeeds(
    tmp_path: Path, bank_id: str
) -> None:
    async with Runtime.open(make_settings(tmp_path), background=False) as runtime:
        await runtime.banks.put(bank_id, BankUpdate())
        failures = _metric("mnemo_vector_write_failures_total")
        shard = runtime.vectors.inner  # the real Qdrant Edge shard, closed under the service
        await shard.close()
        point = VectorPoint(
            id=str(uuid.uuid4()), vector=[0.1] * 384, payload=VectorPayload(bank_id=bank_id,
                                                                           fact_type="world")
        )  # fmt: skip
        with pytest.raises(MnemoError):
            await runtime.vectors.upsert([point])
        # The retain is answered once its fact is stored; its publish, behind the answer,
        # fails (tried again a few times), and the fact stays pending, not lost.
        stored = await runtime.retainer.retain(bank_id, [RetainItem(content="Ada wrote code.")])
        await runtime.retainer.published(bank_id)
        state = await runtime.readiness()
        assert not state.ready and state.down() == ["vector_store"]
        assert _metric("mnemo_vector_write_failures_total") == failures + 1
        assert _metric("mnemo_vector_writes_ok") == 0

        await shard.open()
        # The shard answers again, but the last write failed: not ready until one succeeds.
        assert (await runtime.readiness()).down() == ["vector_store"]
        await runtime.retainer.retain(bank_id, [RetainItem(content="Grace wrote COBOL.")])
        await runtime.retainer.published(bank_id)
        assert (await runtime.readiness()).ready
        assert _metric("mnemo_vector_writes_ok") == 1
        # Reconciliation publishes what the failed publish left pending.
        assert (await runtime.reconciler.reconcile_bank(bank_id)).repaired == 1
        found = await runtime.recall.recall(bank_id, RecallRequest(query="Ada wrote code"))
        assert stored.memory_ids[0] in [r.id for r in found.results]
        await runtime.banks.delete(bank_id)


@pytest.mark.slow
def test_second_serve_is_refused_and_reconcile_asks_the_running_service(
    tmp_path: Path, bank_id: str
) -> None:
    with service(tmp_path) as (url, _):
        assert httpx.put(f"{url}/v1/default/banks/{bank_id}", json={}).status_code == 200
        second = subprocess.run(
            [*MNEMO, "serve", "--port", "1"],
            cwd=ROOT,
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert second.returncode != 0
        assert "is in use by another Mnemo process" in second.stderr

        done = subprocess.run(
            [*MNEMO, "reconcile", "--bank", bank_id],
            cwd=ROOT,
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        assert "asking it to reconcile" in done.stderr
        assert '"repaired":0' in done.stdout

        # The live service was not disturbed: it retains and recalls.
        retained = httpx.post(
            f"{url}/v1/default/banks/{bank_id}/memories",
            json={"items": [{"content": "Ada Lovelace wrote the first program in 1843."}]},
            timeout=120,
        )
        assert retained.status_code == 200, retained.text
        recall = httpx.post(
            f"{url}/v1/default/banks/{bank_id}/memories/recall",
            json={"query": "Who wrote the first program?"},
            timeout=60,
        ).json()
        assert any("Lovelace" in r["text"] for r in recall["results"])
        assert httpx.get(f"{url}/health/ready").status_code == 200
