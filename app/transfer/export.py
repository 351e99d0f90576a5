"""Export a bank to JSONL through the HTTP API."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO

import msgspec

from app.client import MnemoClient
from app.curate.schemas.banks import BankUpdate
from app.curate.schemas.memories import Memory
from app.curate.schemas.reviews import Review, ReviewEntity
from app.retain.schemas import RetainItem
from app.transfer.format import (
    DocumentSource,
    ExportBank,
    ExportDocument,
    ExportEntity,
    ExportLine,
    ExportMemory,
    ExportMentalModel,
    ExportMention,
    ExportMerge,
    ExportName,
    ExportReview,
    ExportSummary,
    Progress,
    tick,
)

_EPOCH = datetime.min.replace(tzinfo=UTC)


def export_bank(
    client: MnemoClient, bank_id: str, out: IO[str], progress: Progress | None = None
) -> ExportSummary:
    """Write the bank to ``out`` as JSONL (see the module docstring for the format)."""
    bank = client.get_bank(bank_id)
    write = _writer(out)
    write(
        ExportBank(
            exported_at=datetime.now(UTC),
            id=bank.id,
            config=BankUpdate(
                name=bank.name,
                description=bank.description,
                retain_mission=bank.retain_mission,
                retain_extraction_mode=bank.retain_extraction_mode,
                retain_custom_instructions=bank.retain_custom_instructions,
                entity_labels=bank.entity_labels,
                reflect_mission=bank.reflect_mission,
                enable_observations=bank.enable_observations,
                observations_mission=bank.observations_mission,
            ),
            counts=bank.counts,
        )
    )
    memories = list(client.iter_memories(bank_id))[::-1]  # the API lists newest first
    first_mention: dict[str, datetime] = {}
    for m in memories:
        if m.document_id and m.mentioned_at:
            seen = first_mention.get(m.document_id)
            first_mention[m.document_id] = min(seen, m.mentioned_at) if seen else m.mentioned_at
    summaries = sorted(client.iter_documents(bank_id), key=lambda d: (d.created_at or _EPOCH, d.id))
    for done, summary in enumerate(summaries, 1):
        source = client.call(DocumentSource, "GET", client.document_path(bank_id, summary.id))
        write(_document_line(source, first_mention.get(source.id)))
        tick(progress, "documents", done, len(summaries))
    for done, m in enumerate(memories, 1):
        write(_memory_line(m, _extracted_text(client, bank_id, m)))
        tick(progress, "memories", done, len(memories))
    entities = list(client.iter_entities(bank_id))
    for done, e in enumerate(entities, 1):
        detail = client.get_entity(bank_id, e.id, neighbours=0)
        names = [
            ExportName(name=n.name, source=n.source, stated=n.stated, surfaces=n.surfaces)
            for n in detail.names
        ]
        write(
            ExportEntity(
                id=detail.id,
                name=detail.name,
                type=detail.type,
                is_label=detail.is_label,
                mention_count=detail.mention_count,
                names=names,
            )
        )
        tick(progress, "entities", done, len(entities))
    reviews = list(client.iter_reviews(bank_id, status="all"))
    for r in reviews:
        write(_review_line(r))
    records = list(client.iter_entity_merges(bank_id))[::-1]
    for record in records:
        write(ExportMerge(record=record))
    models = list(client.iter_mental_models(bank_id))
    for model in models:
        write(
            ExportMentalModel(
                id=model.id,
                name=model.name,
                source_query=model.source_query,
                tags=list(model.tags),
                max_tokens=model.max_tokens,
                trigger=model.trigger,
                content=model.content,
                created_at=model.created_at,
            )
        )
    return ExportSummary(
        bank_id=bank_id,
        documents=len(summaries),
        memories=len(memories),
        entities=len(entities),
        reviews=len(reviews),
        merges=len(records),
        mental_models=len(models),
    )


def _writer(out: IO[str]) -> Callable[[ExportLine], None]:
    encoder = msgspec.json.Encoder()

    def write(line: ExportLine) -> None:
        out.write(encoder.encode(line).decode())
        out.write("\n")

    return write


def _document_line(source: DocumentSource, first_mention: datetime | None) -> ExportDocument:
    metadata = (
        {str(k): v if isinstance(v, str) else str(v) for k, v in source.metadata.items()}
        if source.metadata
        else None
    )
    item = RetainItem(
        content=source.original_text,
        # Documents stored without an item timestamp: their facts' mention time is the retain's.
        timestamp=source.timestamp or first_mention,
        context=source.context,
        document_id=source.id,
        metadata=metadata,
        tags=list(source.tags) or None,
        entities=source.entities,
        resolve_entities=source.resolve_entities,
    )
    return ExportDocument(item=item, created_at=source.created_at)


def _memory_line(m: Memory, extracted_text: str | None) -> ExportMemory:
    return ExportMemory(
        id=m.id,
        document_id=m.document_id,
        text=m.text,
        extracted_text=extracted_text,
        type=m.type,
        fact_kind=m.fact_kind,
        context=m.context,
        occurred_start=m.occurred_start,
        occurred_end=m.occurred_end,
        mentioned_at=m.mentioned_at,
        metadata=m.metadata,
        tags=list(m.tags),
        state=m.state,
        state_reason=m.state_reason,
        state_changed_at=m.state_changed_at,
        edited_at=m.edited_at,
        entities=[
            ExportMention(entity_id=e.id, name=e.name, type=e.type or None, mention=e.mention)
            for e in m.mentions
        ],
    )


def _extracted_text(client: MnemoClient, bank_id: str, m: Memory) -> str | None:
    """The text a fact had before its first text edit (None when never edited)."""
    if m.edited_at is None:
        return None
    for revision in client.memory_history(bank_id, m.id).items:
        if "text" in revision.fields and isinstance(revision.before.get("text"), str):
            text: str = revision.before["text"]
            return text if text != m.text else None
    return None


def _review_line(r: Review) -> ExportReview:
    def now_id(side: ReviewEntity | None) -> str | None:
        return None if side is None else side.merged_into or side.id

    return ExportReview(
        id=r.id,
        status=r.status,
        entity_a=now_id(r.entity_a),
        entity_b=now_id(r.entity_b),
        reason=r.reason,
        decided_by=r.decided_by,
        decision_reason=r.decision_reason,
        decided_at=r.decided_at,
    )
