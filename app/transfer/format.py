"""The export format's lines, the import and export reports, and reading JSONL (pure)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any, Literal

import msgspec

from app.curate.schemas.banks import BankCounts, BankUpdate
from app.curate.schemas.entities import EntityMergeRecord
from app.reflect.schemas import MentalModelTrigger
from app.retain.schemas import EntityHint, RetainItem

FORMAT = "mnemo-export"


VERSION = 1


DEFAULT_BATCH_SIZE = 100


# A batch is also cut before it grows past this many characters of content.
MAX_BATCH_CHARS = 8_000_000


IMPORT_REASON = "mnemo import: same identity as in the exported bank"


# (phase, done, total) — total is None when unknown. The retain phase counts lines.
Progress = Callable[[str, int, int | None], None]


class ExportBank(msgspec.Struct, tag="bank", tag_field="kind", kw_only=True):
    """The first line: what was exported, and the bank's configuration."""

    format: str = FORMAT
    version: int = VERSION
    exported_at: datetime
    id: str
    config: BankUpdate
    counts: BankCounts = msgspec.field(default_factory=BankCounts)


class ExportDocument(msgspec.Struct, tag="document", tag_field="kind", kw_only=True):
    """A document as the retain item that reproduces it."""

    item: RetainItem
    created_at: datetime | None = None


class ExportMention(msgspec.Struct, frozen=True, kw_only=True):
    """An entity a memory mentions: its id in the exported bank and the text the fact used."""

    entity_id: str
    name: str
    type: str | None = None
    mention: str | None = None


class ExportMemory(msgspec.Struct, tag="memory", tag_field="kind", kw_only=True):
    """A memory with its state and the entities it mentions."""

    id: str
    document_id: str | None = None
    text: str
    extracted_text: str | None = None
    type: str = "world"
    fact_kind: str | None = None
    context: str | None = None
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    metadata: dict[str, Any] | None = None
    tags: list[str] = msgspec.field(default_factory=list)
    state: Literal["valid", "invalidated"] = "valid"
    state_reason: str | None = None
    state_changed_at: datetime | None = None
    edited_at: datetime | None = None
    entities: list[ExportMention] = msgspec.field(default_factory=list)

    @property
    def match_text(self) -> str:
        """The text retaining the document again produces."""
        return self.extracted_text if self.extracted_text is not None else self.text


class ExportName(msgspec.Struct, frozen=True, kw_only=True):
    """One name an entity was called."""

    name: str
    source: str | None = None
    stated: bool = False
    surfaces: list[str] = msgspec.field(default_factory=list)


class ExportEntity(msgspec.Struct, tag="entity", tag_field="kind", kw_only=True):
    """An entity with its names."""

    id: str
    name: str
    type: str | None = None
    is_label: bool = False
    mention_count: int = 0
    names: list[ExportName] = msgspec.field(default_factory=list)


class ExportReview(msgspec.Struct, tag="review", tag_field="kind", kw_only=True):
    """A review and its decision, with its entities as they are now."""

    id: str
    status: str
    entity_a: str | None = None
    entity_b: str | None = None
    reason: str | None = None
    decided_by: str | None = None
    decision_reason: str | None = None
    decided_at: datetime | None = None


class ExportMerge(msgspec.Struct, tag="merge", tag_field="kind", kw_only=True):
    """An audit record of a merge, split or revert."""

    record: EntityMergeRecord


class ExportMentalModel(msgspec.Struct, tag="mental_model", tag_field="kind", kw_only=True):
    """A mental model's question and settings; its page is written again on import."""

    id: str
    name: str
    source_query: str | None = None
    tags: list[str] = msgspec.field(default_factory=list)
    max_tokens: int | None = None
    trigger: MentalModelTrigger | None = None
    # The page as exported, for the record: an import regenerates it from the imported memories.
    content: str | None = None
    created_at: datetime | None = None


class _Kind(msgspec.Struct):
    kind: str | None = None


class DocumentSource(msgspec.Struct, kw_only=True):
    """What ``GET .../documents/{id}`` shows of a document's retain item."""

    id: str
    original_text: str = ""
    tags: list[str] = msgspec.field(default_factory=list)
    metadata: dict[str, Any] | None = None
    context: str | None = None
    timestamp: datetime | None = None
    created_at: datetime | None = None
    # Shown by servers that expose the caller's entities; step 3 of an import covers the others.
    entities: list[EntityHint] | None = None
    resolve_entities: bool = True


class LineError(msgspec.Struct, frozen=True):
    """A line that could not be imported, and why."""

    line: int
    error: str
    document_id: str | None = None


class ExportSummary(msgspec.Struct, frozen=True, kw_only=True):
    """What an export wrote."""

    bank_id: str
    documents: int
    memories: int
    entities: int
    reviews: int
    merges: int
    mental_models: int = 0


class ImportReport(msgspec.Struct, kw_only=True):
    """What an import did; ``failed`` and ``notes`` say what it could not do."""

    bank_id: str
    format: Literal["items", "export"] = "items"
    lines: int = 0
    items: int = 0
    retained: int = 0
    memories: int = 0
    failed: list[LineError] = msgspec.field(default_factory=list)
    # Export imports only.
    matched: int = 0
    unmatched: list[str] = msgspec.field(default_factory=list)
    edited: int = 0
    splits: int = 0
    merges: int = 0
    invalidated: int = 0
    reviews: int = 0
    mental_models: int = 0
    # Repairs the service refused (the bank then differs from the export).
    repair_errors: list[str] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every line was imported, every memory reproduced and every repair made."""
        return not self.failed and not self.unmatched and not self.repair_errors


class ImportRefused(Exception):
    """The import cannot start (e.g. an export into a bank that already holds memories)."""


class ParsedLine(msgspec.Struct, frozen=True):
    """One non-blank line: a retain item, an export line, or why it is neither."""

    line: int
    item: RetainItem | None = None
    record: ExportLine | None = None
    error: str | None = None


_ITEM_DECODER = msgspec.json.Decoder(RetainItem)


_KIND_DECODER = msgspec.json.Decoder(_Kind)


def parse_lines(lines: Iterable[bytes | str]) -> Iterator[ParsedLine]:
    """Decode JSONL lines (numbered from 1; blank lines skipped) into items or export lines."""
    for number, raw in enumerate(lines, 1):
        data = raw.encode() if isinstance(raw, str) else raw
        if not data.strip():
            continue
        try:
            kind = _KIND_DECODER.decode(data).kind
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            yield ParsedLine(number, error=f"not a JSON object: {exc}")
            continue
        try:
            if kind is None:
                yield ParsedLine(number, item=_ITEM_DECODER.decode(data))
            else:
                yield ParsedLine(number, record=_LINE_DECODER.decode(data))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            yield ParsedLine(number, error=str(exc))


ExportLine = (
    ExportBank
    | ExportDocument
    | ExportMemory
    | ExportEntity
    | ExportReview
    | ExportMerge
    | ExportMentalModel
)


_LINE_DECODER: msgspec.json.Decoder[ExportLine] = msgspec.json.Decoder(ExportLine)


def tick(progress: Progress | None, phase: str, done: int, total: int | None) -> None:
    """Report progress, when someone listens."""
    if progress is not None:
        progress(phase, done, total)
