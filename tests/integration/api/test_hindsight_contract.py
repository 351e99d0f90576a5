"""The contract: Hindsight's own client (``hindsight-client==1.1.0``, unchanged) drives a live
Mnemo through every call Mnemo offers, step by step.

Each step uses the client's typed models, so a missing field, a renamed one or an unexpected
status fails here the way it would fail an integration built on the client.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from hindsight_client import Hindsight
from hindsight_client_api.exceptions import ApiException, NotFoundException
from hindsight_client_api.models import (
    CreateWebhookRequest,
    UpdateMentalModelRequest,
    UpdateWebhookRequest,
)
from hindsight_client_api.models.update_disposition_request import UpdateDispositionRequest

pytestmark = pytest.mark.asyncio


@pytest.fixture
async def hs(base_url: str) -> AsyncIterator[Hindsight]:
    client = Hindsight(base_url=base_url, api_key="not-checked-yet")
    yield client
    await client.aclose()


@pytest.fixture
def hs_bank() -> str:
    return f"hs-{uuid.uuid4().hex[:12]}"


async def test_service_steps(hs: Hindsight) -> None:
    version = await hs.aget_version()
    assert version.api_version and version.features.bank_config_api is True
    live = await hs.monitoring.get_liveness()
    assert live.status == "alive" and live.uptime_seconds >= 0


async def test_bank_steps(hs: Hindsight, hs_bank: str) -> None:
    profile = await hs.acreate_bank(
        hs_bank,
        name="Support",
        mission="Help customers.",
        disposition_skepticism=4,
        retain_mission="Keep customer facts.",
        enable_reranking=True,
    )
    assert profile.bank_id == hs_bank and profile.mission == "Help customers."
    assert profile.disposition.skepticism == 4 and profile.disposition.empathy == 3
    again = await hs.banks.get_bank_profile(hs_bank)
    assert again.name == "Support"
    changed = await hs.banks.update_bank_disposition(
        hs_bank,
        UpdateDispositionRequest.from_dict(
            {"disposition": {"skepticism": 1, "literalism": 5, "empathy": 2}}
        ),
    )
    assert (changed.disposition.skepticism, changed.disposition.literalism) == (1, 5)
    listed = await hs.banks.list_banks(limit=1000)
    assert hs_bank in {b.bank_id for b in listed.banks}

    config = await hs.aget_bank_config(hs_bank)
    assert config["config"]["retain_mission"] == "Keep customer facts."
    assert config["overrides"]["disposition_literalism"] == 5
    updated = await hs.aupdate_bank_config(
        hs_bank, retain_mission="Only orders.", recall_budget_max=9
    )
    assert updated["config"]["retain_mission"] == "Only orders."
    assert any("recall_budget_max" in w for w in updated["warnings"])
    reset = await hs.areset_bank_config(hs_bank)
    assert reset["overrides"] == {} and reset["config"]["retain_mission"] is None

    deleted = await hs.adelete_bank(hs_bank)
    assert deleted.success is True
    with pytest.raises(NotFoundException):
        await hs.alist_memories(bank_id=hs_bank)


async def test_memory_steps(hs: Hindsight, hs_bank: str) -> None:
    # No create_bank: the first retain creates it, as Hindsight's does.
    single = await hs.aretain(
        hs_bank,
        "Caroline moved to Lisbon in March 2023.",
        timestamp="2023-05-08T13:56:00Z",
        context="onboarding chat",
        document_id="chat/1",
        metadata={"source": "contract"},
        tags=["people"],
        entities=[{"text": "Caroline", "type": "person"}],
        observation_scopes="per_tag",
    )
    assert single.success is True and single.var_async is False and single.items_count == 1
    batch = await hs.aretain_batch(
        hs_bank,
        [
            {"content": "Dana Reyes leads the Lisbon team."},
            {"content": "Caroline adopted a greyhound named Comet.", "context": "pets"},
        ],
        document_tags=["batch"],
    )
    assert batch.success is True and batch.items_count == 2
    queued = await hs.aretain_batch(
        hs_bank, [{"content": "Tomas visited Porto."}], retain_async=True
    )
    assert queued.var_async is True and queued.operation_id
    status = await hs.operations.get_operation_status(hs_bank, queued.operation_id)
    assert status.operation_id == queued.operation_id
    operations = await hs.operations.list_operations(hs_bank)
    assert operations.bank_id == hs_bank
    assert queued.operation_id in {o.id for o in operations.operations}

    answer = await hs.arecall(
        hs_bank,
        "Where does Caroline live?",
        types=["world", "experience"],
        include_chunks=True,
        include_entities=True,
        trace=True,
        tags=["people"],
        tags_match="any",
        min_scores={"semantic": 0.1},
    )
    top = answer.results[0]
    assert "Lisbon" in top.text and "Caroline" in (top.entities or [])
    assert answer.chunks is not None and top.chunk_id in answer.chunks
    assert answer.entities and all(e.canonical_name for e in answer.entities.values())

    page = await hs.alist_memories(hs_bank, search_query="Caroline", limit=10)
    assert page.total >= 2 and all(m.id for m in page.items)
    lisbon = next(m for m in page.items if "Lisbon" in (m.text or ""))
    assert "Caroline" in (lisbon.entities or "") and lisbon.fact_type == "world"
    tagged = await hs.alist_memories(hs_bank, tags=["batch"], tags_match="all_strict")
    assert tagged.total == 2
    memory = await hs.memory.get_memory(hs_bank, lisbon.id)
    assert memory["id"] == lisbon.id
    history = await hs.memory.get_observation_history(hs_bank, lisbon.id)
    assert history["memory_id"] == lisbon.id
    cleared = await hs.memory.clear_memory_observations(hs_bank, lisbon.id)
    assert cleared.deleted_count == 0
    tags = await hs.memory.list_tags(hs_bank)
    assert {"people", "batch"} <= {t.tag for t in tags.items}

    documents = await hs.documents.list_documents(hs_bank)
    assert "chat/1" in {d.id for d in documents.items}
    document = await hs.documents.get_document(hs_bank, "chat/1")
    assert document.original_text.startswith("Caroline") and document.memory_unit_count == 1
    chunks = await hs.documents.list_document_chunks(hs_bank, "chat/1")
    assert chunks.total == 1 and chunks.items[0].chunk_text.startswith("Caroline")
    reprocessed = await hs.documents.reprocess_document(hs_bank, "chat/1")
    assert reprocessed.success is True

    entities = await hs.entities.list_entities(hs_bank)
    assert entities.limit == 100 and entities.offset == 0
    caroline = next(e for e in entities.items if e.canonical_name == "Caroline")
    detail = await hs.entities.get_entity(hs_bank, caroline.id)
    assert detail.id == caroline.id and detail.observations == []
    graph = await hs.entities.get_entity_graph(hs_bank)
    assert graph.total_entities == len(graph.nodes) >= 2
    assert all(n.data.id for n in graph.nodes)

    stats = await hs.banks.get_agent_stats(hs_bank)
    assert stats.bank_id == hs_bank and stats.total_nodes >= 3 and stats.total_documents >= 3

    # Reflect offline: the extractive answer, its evidence in based_on, the trace when asked.
    answer = await hs.areflect(
        hs_bank,
        "Where does Caroline live?",
        budget="mid",
        include_facts=True,
        include_tool_calls=True,
        tags=["people"],
    )
    assert "Lisbon" in answer.text and answer.based_on is not None
    cited = answer.based_on.memories or []
    assert cited and all(f"[{m.id}]" in answer.text for m in cited)
    assert answer.trace is not None and answer.trace.tool_calls == []
    # Structured output needs an LLM, and this Mnemo has none: a 400 that says so.
    with pytest.raises(ApiException) as refused:
        await hs.areflect(hs_bank, "Where?", response_schema={"type": "object"})
    assert refused.value.status == 400

    removed = await hs.documents.delete_document(hs_bank, "chat/1")
    assert removed.success is True and removed.document_id == "chat/1"
    await hs.adelete_bank(hs_bank)


async def test_mental_model_steps(hs: Hindsight, hs_bank: str) -> None:
    await hs.aretain(hs_bank, "Caroline moved to Lisbon in March 2023.", tags=["people"])
    created = await hs.acreate_mental_model(
        hs_bank,
        name="Where Caroline lives",
        source_query="Where does Caroline live?",
        tags=["people"],
        trigger={"mode": "delta", "refresh_after_consolidation": True},
    )
    assert created.mental_model_id and created.operation_id
    for _ in range(300):
        status = await hs.operations.get_operation_status(hs_bank, created.operation_id)
        if status.status in ("completed", "failed"):
            break
        await asyncio.sleep(0.1)
    assert status.status == "completed"
    model = await hs.aget_mental_model(hs_bank, created.mental_model_id)
    assert model.content and "Lisbon" in model.content and model.trigger.mode == "delta"
    assert model.reflect_response and model.reflect_response["based_on"]["memories"]
    listed = await hs.alist_mental_models(hs_bank, detail="content")
    assert listed.total == 1 and listed.items[0].content == model.content
    updated = await hs.mental_models.update_mental_model(
        hs_bank, created.mental_model_id, UpdateMentalModelRequest(name="Home")
    )
    assert updated.name == "Home" and updated.trigger.refresh_after_consolidation is True
    refreshed = await hs.arefresh_mental_model(hs_bank, created.mental_model_id, mode="full")
    assert refreshed.operation_id
    history = await hs.mental_models.get_mental_model_history(hs_bank, created.mental_model_id)
    assert history[-1]["previous_content"] is None and history[-1]["changed_at"]
    await hs.mental_models.delete_mental_model(hs_bank, created.mental_model_id)
    with pytest.raises(NotFoundException):
        await hs.aget_mental_model(hs_bank, created.mental_model_id)
    await hs.adelete_bank(hs_bank)


async def test_webhook_steps(hs: Hindsight, hs_bank: str) -> None:
    await hs.aretain(hs_bank, "Grace moved to Oslo.")
    hook = await hs.webhooks.create_webhook(
        hs_bank,
        CreateWebhookRequest(
            url="http://127.0.0.1:9/hook",
            secret="contract-secret",
            event_types=["retain.completed"],
        ),
    )
    assert hook.id and hook.enabled is True and hook.event_types == ["retain.completed"]
    listed = await hs.webhooks.list_webhooks(hs_bank)
    assert [w.id for w in listed.items] == [hook.id]
    changed = await hs.webhooks.update_webhook(
        hs_bank, hook.id, UpdateWebhookRequest(enabled=False)
    )
    assert changed.enabled is False
    deliveries = await hs.webhooks.list_webhook_deliveries(hs_bank, hook.id)
    assert deliveries.items == []
    gone = await hs.webhooks.delete_webhook(hs_bank, hook.id)
    assert gone.success is True
    await hs.adelete_bank(hs_bank)
