"""Export a curated bank and import it into a fresh one: the same memories and identities.

"The same" is compared on what the API shows, independently of how the import gets there:
the multiset of memories (document, text, type, state and reason, event and mention times,
context, tags, metadata, the surface texts of their mentions), the partition of mentions into
entities (which mentions are one entity), each entity's canonical name and names, and the
decided reviews.
"""

from __future__ import annotations

import io
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from app.client import MnemoClient
from app.curate.schemas.banks import BankUpdate
from app.curate.schemas.memories import MemoryUpdate
from app.domain.names import name_key
from app.reflect.schemas import (
    CreateMentalModelRequest,
    MentalModelResponse,
    MentalModelTriggerInput,
)
from app.retain.schemas import EntityHint, RetainItem
from app.transfer import export_bank, import_lines
from tests.support.cli import Cli


@pytest.fixture
def client(base_url: str) -> Iterator[MnemoClient]:
    with MnemoClient(base_url) as c:
        yield c


def fresh_id() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def snapshot(client: MnemoClient, bank: str) -> dict[str, Any]:
    """What must survive a round trip, free of ids and creation times."""
    facts: Counter[tuple[Any, ...]] = Counter()
    groups: dict[str, set[tuple[Any, ...]]] = {}
    for m in client.iter_memories(bank):
        mentions = tuple(sorted(name_key(e.mention or e.name) for e in m.mentions))
        facts[
            (
                m.document_id,
                m.text,
                m.type,
                m.state,
                m.state_reason,
                m.occurred_start,
                m.occurred_end,
                m.mentioned_at,
                m.context,
                tuple(sorted(m.tags)),
                msgspec.json.encode(m.metadata, order="sorted"),
                mentions,
            )
        ] += 1
        for e in m.mentions:
            groups.setdefault(e.id, set()).add(
                (m.document_id, m.text, name_key(e.mention or e.name))
            )
    entities = {}
    for entity_id, anchors in groups.items():
        detail = client.get_entity(bank, entity_id, neighbours=0)
        names = frozenset(n.key for n in detail.names)
        entities[frozenset(anchors)] = (detail.name, detail.type, names)
    group_of = {eid: frozenset(anchors) for eid, anchors in groups.items()}
    different = {
        frozenset(
            group_of[s.merged_into or s.id] for s in (r.entity_a, r.entity_b) if s is not None
        )
        for r in client.iter_reviews(bank, status="different")
    }
    return {"facts": facts, "entities": entities, "different": different}


def each(client: MnemoClient, bank: str, *items: RetainItem) -> list[str]:
    """Retain one item per request (resolution sees them in this order)."""
    return [m for item in items for m in client.retain(bank, [item]).memory_ids]


def person(*names: str) -> list[EntityHint]:
    return [EntityHint(text=n, type="person") for n in names]


def curated_chunks_bank(client: MnemoClient, bank: str) -> dict[str, Any]:
    """Caller entities in ``chunks`` mode, then every kind of curation on top."""
    client.put_bank(bank, BankUpdate(name="curated", retain_extraction_mode="chunks"))
    acme = EntityHint(text="Acme", type="organization")
    globex = EntityHint(text="Globex", type="organization")
    ids = each(
        client,
        bank,
        RetainItem(
            content="Dana Whitfield of Acme runs the Lisbon office with Rui Costa.",
            timestamp=at("2024-01-10T09:00:00Z"),
            document_id="acme/1",
            tags=["acme"],
            metadata={"source": "crm"},
            context="office notes",
            entities=[*person("Dana Whitfield"), acme, *person("Rui Costa")],
        ),
        RetainItem(
            content="Dana Whitfield and Rui Costa hired Inês Duarte.",
            timestamp=at("2024-01-12T09:00:00Z"),
            document_id="acme/2",
            tags=["acme", "hiring"],
            entities=person("Dana Whitfield", "Rui Costa", "Inês Duarte"),
        ),
        RetainItem(
            content="Dr. Whitfield of Globex presented with Mei Tan.",
            timestamp=at("2025-06-01T09:00:00Z"),
            document_id="globex/1",
            entities=[*person("Dr. Whitfield"), globex, *person("Mei Tan")],
        ),
        RetainItem(
            content="Dr. Whitfield and Mei Tan published the Globex report.",
            timestamp=at("2025-06-03T09:00:00Z"),
            document_id="globex/2",
            entities=[*person("Dr. Whitfield", "Mei Tan"), globex],
        ),
        RetainItem(
            content="Alex Kim planned the Acme sprint with Bo Ng.",
            timestamp=at("2024-05-01T09:00:00Z"),
            entities=[*person("Alex Kim"), acme, *person("Bo Ng")],
        ),
        RetainItem(
            content="Alex Kim demoed the Acme app.",
            timestamp=at("2024-05-01T09:30:00Z"),
            entities=[*person("Alex Kim"), acme],
        ),
        RetainItem(
            content="Alex Moreno audited Globex with Cy Ruiz.",
            timestamp=at("2024-05-01T10:00:00Z"),
            entities=[*person("Alex Moreno"), globex, *person("Cy Ruiz")],
        ),
        RetainItem(
            content="Alex called about the invoice.",
            timestamp=at("2024-05-01T11:00:00Z"),
            entities=person("Alex"),
        ),
    )

    def entity(memory_id: str, mention: str) -> str:
        [found] = [e.id for e in client.memory(bank, memory_id).mentions if e.mention == mention]
        return found

    dana, doctor = entity(ids[0], "Dana Whitfield"), entity(ids[2], "Dr. Whitfield")
    kim, moreno, alex = (
        entity(ids[4], "Alex Kim"),
        entity(ids[6], "Alex Moreno"),
        entity(ids[7], "Alex"),
    )
    assert len({dana, doctor}) == 2 and len({kim, moreno, alex}) == 3, "the story needs these"
    # A manual merge, a split, both review decisions, an invalidation and an edit.
    client.merge_entity(bank, doctor, dana, "the same Whitfield")
    client.split_entity(
        bank, entity(ids[1], "Rui Costa"), [ids[1]], "his son", name="Rui Costa Jr."
    )
    reviews = {
        frozenset((r.entity_a.id, r.entity_b.id)): r.id
        for r in client.iter_reviews(bank)
        if r.entity_a and r.entity_b
    }
    client.decide_review(bank, reviews[frozenset((alex, moreno))], "different", "not Moreno")
    client.decide_review(bank, reviews[frozenset((alex, kim))], "same", "it was Kim")
    client.invalidate_memory(bank, ids[3], "the report was someone else's")
    client.update_memory(
        bank, ids[5], MemoryUpdate(text="Alex Kim demoed the Acme mobile app.", reason="typo")
    )
    return {"ids": ids}


def test_cli_export_then_import_gives_the_same_memories_and_identities(
    base_url: str, client: MnemoClient, bank_id: str, tmp_path: Path
) -> None:
    curated_chunks_bank(client, bank_id)
    before = snapshot(client, bank_id)
    assert len(before["different"]) == 1
    cli = Cli(base_url)
    path = tmp_path / "bank.jsonl"
    done = cli.run("export", "--bank", bank_id, "--output", str(path))
    assert "exported" in done.stderr and "8 documents, 8 memories" in done.stderr
    kinds = Counter(msgspec.json.decode(line)["kind"] for line in path.read_text().splitlines())
    assert kinds["bank"] == 1 and kinds["document"] == 8 and kinds["memory"] == 8
    assert kinds["review"] >= 2 and kinds["merge"] >= 3  # merge, split, the review merge

    target = fresh_id()
    report = cli.json("import", str(path), "--bank", target)
    assert report["format"] == "export" and report["failed"] == report["unmatched"] == []
    assert report["repair_errors"] == []
    assert report["matched"] == 8 and report["invalidated"] == 1
    after = snapshot(client, target)
    assert after["facts"] == before["facts"]
    assert after["entities"] == before["entities"]
    assert after["different"] == before["different"]
    config = client.get_bank(target)
    assert (config.name, config.retain_extraction_mode) == ("curated", "chunks")

    again = cli.run("import", str(path), "--bank", target, expect=2)
    assert "already holds" in again.stderr


def test_a_local_mode_bank_round_trips_through_the_library(client: MnemoClient, bank: str) -> None:
    """Extraction from the stored text (spaCy entities, dates from the text and the item time),
    a document retained without a timestamp, an invalidated fact and a deleted document."""
    client.retain(
        bank,
        [
            RetainItem(
                content="Caroline moved to Lisbon in March 2023. Caroline works at Acme.",
                timestamp=at("2023-05-08T13:56:00Z"),
                document_id="chat/1",
                tags=["personal"],
                metadata={"speaker": "Caroline"},
            ),
            RetainItem(
                content="Melanie painted a sunrise last week. Melanie gave it to Caroline.",
                timestamp=at("2023-06-01T08:00:00Z"),
                document_id="chat/2",
                context="art class",
            ),
            RetainItem(content="The Orion team shipped version 2 on Friday."),
            RetainItem(content="This one will be deleted.", document_id="gone"),
        ],
    )
    client.delete_document(bank, "gone")
    model = client.create_mental_model(
        bank,
        CreateMentalModelRequest(
            id="melanie-art",
            name="Melanie's art",
            source_query="What did Melanie paint?",
            tags=["personal"],
            max_tokens=1024,
            trigger=MentalModelTriggerInput(mode="delta", refresh_after_consolidation=True),
        ),
    )
    lisbon = client.list_memories(bank, q="Lisbon").items[0]
    client.invalidate_memory(bank, lisbon.id, "she moved back")
    before = snapshot(client, bank)

    out = io.StringIO()
    summary = export_bank(client, bank, out)
    assert (summary.documents, summary.memories, summary.mental_models) == (3, 5, 1)
    ticks: list[tuple[str, int, int | None]] = []
    target = fresh_id()
    report = import_lines(
        client,
        target,
        out.getvalue().splitlines(),
        batch_size=2,
        progress=lambda phase, done, total: ticks.append((phase, done, total)),
    )
    # Replaying the text gives the same facts and identities; the document retained without a
    # timestamp is replayed at its facts' mention time, and a fact whose event time came out
    # differently is PATCHed back (``edited``).
    assert report.ok and report.splits == report.merges == 0, report
    assert ("retain", report.lines, None) in ticks
    assert snapshot(client, target) == before
    # The mental model is asked again under its id, and its page written from these memories.
    assert report.mental_models == 1
    original = written(client, bank, model.mental_model_id)
    copy = written(client, target, model.mental_model_id)
    assert (copy.name, copy.source_query, copy.tags, copy.max_tokens, copy.trigger) == (
        original.name,
        original.source_query,
        original.tags,
        original.max_tokens,
        original.trigger,
    )
    assert "Melanie painted a sunrise" in (copy.content or "")
    cited = {m.id for m in client.iter_memories(target)}
    assert copy.sections and all(i in cited for s in copy.sections for i in s.memory_ids)


def written(client: MnemoClient, bank: str, model_id: str) -> MentalModelResponse:
    """The model once its first page is written."""
    for _ in range(300):
        model = client.get_mental_model(bank, model_id)
        if model.version >= 1:
            return model
        time.sleep(0.1)
    raise AssertionError(f"mental model {model_id} of {bank} was never written")


def test_the_client_pages_by_cursor_and_sees_every_fact_and_document_once(
    client: MnemoClient, bank: str
) -> None:
    # Export reads a bank through these iterators; pages of two make the cursor walk several.
    items = [
        RetainItem(content=f"Visit {k}: Mirela Dobre repaired the organ.", document_id=f"d{k}")
        for k in range(5)
    ]
    client.retain(bank, items)
    listed = [m.id for m in client.list_memories(bank, limit=100).items]

    walked = [m.id for m in client.iter_memories(bank, page_size=2)]
    documents = [d.id for d in client.iter_documents(bank, page_size=2)]

    assert walked == listed and len(listed) >= 5
    assert sorted(documents) == [f"d{k}" for k in range(5)]
