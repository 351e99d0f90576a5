"""The overview's backlog counts: exact up to their cap, "cap+" past it, one bank only."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.curate.schemas.banks import BankUpdate
from app.curate.schemas.memories import MemoryFilter
from app.retain.schemas import RetainItem
from app.runtime import Runtime
from tests.conftest import make_settings

SENTENCES = [
    "Mara Lind repaired the lighthouse lamp in Tromsø.",
    "Oskar Brandt sold his sailboat to a buyer from Bergen.",
    "Ines Vidal opened a bakery on the harbour front in Vigo.",
]


@pytest.fixture
async def runtime(test_neo4j: str, tmp_path: Path) -> AsyncIterator[Runtime]:
    # No worker: retained facts stay pending, so the counts are known.
    async with Runtime.open(
        make_settings(tmp_path, local_extraction_worker=False), background=False
    ) as rt:
        yield rt


async def test_counts_stop_past_the_cap_and_say_so(runtime: Runtime) -> None:
    bank, other = f"bl-{uuid.uuid4().hex[:8]}", f"bl-{uuid.uuid4().hex[:8]}"
    try:
        for b in (bank, other):
            await runtime.banks.put(b, BankUpdate(retain_extraction_mode="local"))
        await runtime.retainer.retain(bank, [RetainItem(content=s) for s in SENTENCES])
        await runtime.retainer.retain(other, [RetainItem(content=s) for s in SENTENCES * 2])
        waiting = MemoryFilter(consolidation_states=("pending",))
        pending = (await runtime.memories.page(bank, waiting, limit=100, offset=0)).total
        assert pending >= 3

        exact = await runtime.browse.backlog(bank, cap=100)
        assert exact.pending == pending and exact.shown(exact.pending) == str(pending)
        capped = await runtime.browse.backlog(bank, cap=2)
        assert capped.pending == 3 and capped.shown(capped.pending) == "2+"
        assert capped.shown(capped.observations) == "0"
    finally:
        for b in (bank, other):
            await runtime.banks.delete(b)
