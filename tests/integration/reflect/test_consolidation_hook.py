"""The hook consolidation calls after a run: MentalModelService.after_consolidation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.curate.schemas.banks import BankUpdate
from app.reflect.schemas import CreateMentalModelRequest, MentalModelTriggerInput
from app.retain.schemas import RetainItem
from app.runtime import Runtime
from tests.conftest import make_settings


@pytest.fixture
async def runtime(test_neo4j: str, tmp_path: Path) -> AsyncIterator[Runtime]:
    async with Runtime.open(
        make_settings(tmp_path, local_extraction_worker=False), background=False
    ) as rt:
        await rt.operations.start()
        yield rt
        await rt.operations.stop()


async def model(runtime: Runtime, bank_id: str, query: str, **trigger: object) -> str:
    created = await runtime.mental_models.create(
        bank_id,
        CreateMentalModelRequest(
            name=query,
            source_query=query,
            tags=["work"] if trigger.pop("work_only", False) else None,
            trigger=MentalModelTriggerInput(**trigger),  # type: ignore[arg-type]
        ),
    )
    return created.mental_model_id


async def test_models_that_read_touched_memories_are_refreshed_within_their_interval(
    runtime: Runtime, bank_id: str
) -> None:
    await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode="local"))
    await runtime.retainer.retain(
        bank_id, [RetainItem(content="Caroline joined a pottery class in May.")]
    )
    follows = await model(
        runtime, bank_id, "What are Caroline's hobbies?", refresh_after_consolidation=True
    )
    manual = await model(runtime, bank_id, "What are Caroline's hobbies?")
    throttled = await model(
        runtime,
        bank_id,
        "What are Caroline's hobbies?",
        refresh_after_consolidation=True,
        min_refresh_interval_seconds=3600,
    )
    elsewhere = await model(
        runtime,
        bank_id,
        "What are Caroline's hobbies?",
        refresh_after_consolidation=True,
        tags_match="all_strict",
        work_only=True,
    )
    await runtime.operations.wait_idle()
    new = await runtime.retainer.retain(
        bank_id, [RetainItem(content="Caroline also started painting sunsets.")]
    )

    result = await runtime.mental_models.after_consolidation(bank_id, new.memory_ids)
    await runtime.operations.wait_idle()

    assert set(result.queued) == {follows}
    assert manual not in result.queued and manual not in result.skipped
    assert "min_refresh_interval_seconds (3600)" in result.skipped[throttled]
    assert result.skipped[elsewhere] == "reads none of the memories the run touched"
    history = await runtime.mental_models.history(bank_id, follows)
    assert [(v.version, v.reason) for v in history] == [(2, "consolidation"), (1, "created")]
    assert set(new.memory_ids) <= set(history[0].memory_ids)
    assert (await runtime.mental_models.after_consolidation(bank_id, [])).queued == {}
    await runtime.banks.delete(bank_id)
