"""Export a bank to JSONL, and import JSONL into a bank: plain retain items, or an export.

Everything goes through the HTTP API (:class:`app.client.MnemoClient`), so it works against any
running Mnemo and needs nothing the API does not show.

**Plain import.** One retain item per line (``{"content": ..., "timestamp"?, "context"?,
"document_id"?, "metadata"?, "tags"?, "entities"?, "resolve_entities"?}``), retained in batches.
A batch the server refuses is retried item by item, so one bad line fails alone and is reported
with its line number; lines that are not valid items are reported without being sent.

**Export format** (version 1). One JSON object per line, each with a ``kind``:

* ``bank`` (first line): ``format: "mnemo-export"``, ``version``, ``exported_at``, the source
  bank ``id``, its ``config`` (name, description, retain mission, extraction mode, custom
  instructions, entity labels: the body of ``PUT /banks/{id}``) and its ``counts``.
* ``document``, oldest first: ``item`` is the retain item that reproduces it: ``content`` (the
  original text), ``document_id``, ``timestamp`` (the item's, or the time its facts were
  mentioned at), ``context``, ``metadata``, ``tags``, and ``entities``/``resolve_entities``
  when the API shows them; ``created_at``.
* ``memory``, oldest first: ``id``, ``document_id``, ``text``, ``extracted_text`` (the text
  before a curator edited it; absent when unedited), ``type``, ``fact_kind``, ``context``,
  ``occurred_start``/``occurred_end``/``mentioned_at``, ``metadata``, ``tags``, ``state`` with
  ``state_reason``/``state_changed_at``, ``edited_at``, and ``entities``:
  ``[{entity_id, name, type, mention}]`` (``mention`` is the text the fact used).
* ``entity``: ``id``, canonical ``name``, ``type``, ``is_label``, ``mention_count`` and ``names``
  (every name it was called: ``{name, source, stated, surfaces}``). Which mentions are one entity
  is the set of ``memory.entities`` sharing an ``entity_id``.
* ``review``: ``id``, ``status`` (open / same / different), ``entity_a``/``entity_b`` (ids of
  entities as they are now, merged-away sides followed), ``reason``, ``decided_by``,
  ``decision_reason``, ``decided_at``.
* ``merge``: ``record``, an audit record of a merge, split or revert (as ``GET
  .../entity-merges`` shows it), oldest first; kept for the record.

**Importing an export** into a fresh (or empty) bank gives the same memories and identities:

1. the bank is created with the exported configuration;
2. the documents are retained, oldest first, with their ids, timestamps and item fields (so
   extraction gives the same facts, with the same dates, tags and metadata);
3. each exported memory is matched to a new one by document id and text (its extracted text when
   it was edited; duplicates in order); a match whose fields or mentions differ (a curator's edit,
   caller entities the API did not export) is PATCHed to the exported text, context, dates, type
   and entities;
4. identities are made equal: a new entity holding mentions of several exported entities is
   split (the majority, or the one of the same name, stays), then new entities holding mentions
   of one exported entity are merged into the one named like it; each repair is audited with the
   reason ``mnemo import``;
5. memories invalidated in the export are invalidated with their reason;
6. "different" review decisions are replayed on the new bank's review of the same pair.

What cannot be reproduced is reported, never silently dropped: memories of earlier versions of a
document (retired chunks), observations, and reviews the new bank never filed. Merge, split and
revert records are not replayed one by one: step 4 reproduces their outcome.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import IO, Any, Literal

import msgspec

from app.client import ApiError, MnemoClient
from app.curate.schemas.banks import BankCounts, BankUpdate
from app.curate.schemas.entities import EntityMergeRecord
from app.curate.schemas.memories import Memory, MemoryUpdate
from app.curate.schemas.reviews import Review, ReviewEntity
from app.domain.names import name_key
from app.retain.schemas import EntityHint, RetainItem

FORMAT = "mnemo-export"
VERSION = 1
DEFAULT_BATCH_SIZE = 100
# A batch is also cut before it grows past this many characters of content.
MAX_BATCH_CHARS = 8_000_000
IMPORT_REASON = "mnemo import: same identity as in the exported bank"

# (phase, done, total) — total is None when unknown. The retain phase counts lines.
Progress = Callable[[str, int, int | None], None]


# -- the export lines ------------------------------------------------------------------------


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


ExportLine = ExportBank | ExportDocument | ExportMemory | ExportEntity | ExportReview | ExportMerge


class _Kind(msgspec.Struct):
    kind: str | None = None


class _DocumentSource(msgspec.Struct, kw_only=True):
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


# -- reports ---------------------------------------------------------------------------------


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
    # Repairs the service refused (the bank then differs from the export).
    repair_errors: list[str] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every line was imported, every memory reproduced and every repair made."""
        return not self.failed and not self.unmatched and not self.repair_errors


class ImportRefused(Exception):
    """The import cannot start (e.g. an export into a bank that already holds memories)."""


# -- export ----------------------------------------------------------------------------------

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
        source = client.call(_DocumentSource, "GET", client.document_path(bank_id, summary.id))
        write(_document_line(source, first_mention.get(source.id)))
        _tick(progress, "documents", done, len(summaries))
    for done, m in enumerate(memories, 1):
        write(_memory_line(m, _extracted_text(client, bank_id, m)))
        _tick(progress, "memories", done, len(memories))
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
        _tick(progress, "entities", done, len(entities))
    reviews = list(client.iter_reviews(bank_id, status="all"))
    for r in reviews:
        write(_review_line(r))
    records = list(client.iter_entity_merges(bank_id))[::-1]
    for record in records:
        write(ExportMerge(record=record))
    return ExportSummary(
        bank_id=bank_id,
        documents=len(summaries),
        memories=len(memories),
        entities=len(entities),
        reviews=len(reviews),
        merges=len(records),
    )


def _writer(out: IO[str]) -> Callable[[ExportLine], None]:
    encoder = msgspec.json.Encoder()

    def write(line: ExportLine) -> None:
        out.write(encoder.encode(line).decode())
        out.write("\n")

    return write


def _document_line(source: _DocumentSource, first_mention: datetime | None) -> ExportDocument:
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
            for e in m.entities
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


def _tick(progress: Progress | None, phase: str, done: int, total: int | None) -> None:
    if progress is not None:
        progress(phase, done, total)


# -- reading JSONL ---------------------------------------------------------------------------


class _Parsed(msgspec.Struct, frozen=True):
    """One non-blank line: a retain item, an export line, or why it is neither."""

    line: int
    item: RetainItem | None = None
    record: ExportLine | None = None
    error: str | None = None


_ITEM_DECODER = msgspec.json.Decoder(RetainItem)
_LINE_DECODER: msgspec.json.Decoder[ExportLine] = msgspec.json.Decoder(ExportLine)
_KIND_DECODER = msgspec.json.Decoder(_Kind)


def parse_lines(lines: Iterable[bytes | str]) -> Iterator[_Parsed]:
    """Decode JSONL lines (numbered from 1; blank lines skipped) into items or export lines."""
    for number, raw in enumerate(lines, 1):
        data = raw.encode() if isinstance(raw, str) else raw
        if not data.strip():
            continue
        try:
            kind = _KIND_DECODER.decode(data).kind
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            yield _Parsed(number, error=f"not a JSON object: {exc}")
            continue
        try:
            if kind is None:
                yield _Parsed(number, item=_ITEM_DECODER.decode(data))
            else:
                yield _Parsed(number, record=_LINE_DECODER.decode(data))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            yield _Parsed(number, error=str(exc))


# -- import ----------------------------------------------------------------------------------


class _Batcher:
    """Retains items in batches; a refused batch is retried one item at a time."""

    def __init__(
        self,
        client: MnemoClient,
        bank_id: str,
        report: ImportReport,
        *,
        batch_size: int,
        progress: Progress | None,
        total: int | None,
    ) -> None:
        self._client = client
        self._bank_id = bank_id
        self._report = report
        self._batch_size = max(1, batch_size)
        self._progress = progress
        self._total = total
        self._pending: list[tuple[int, RetainItem]] = []
        self._chars = 0

    def add(self, line: int, item: RetainItem) -> None:
        """Queue one item; send the batch when it is full."""
        self._report.items += 1
        if self._pending and self._chars + len(item.content) > MAX_BATCH_CHARS:
            self.flush()
        self._pending.append((line, item))
        self._chars += len(item.content)
        if len(self._pending) >= self._batch_size:
            self.flush()

    def flush(self) -> None:
        """Send what is queued."""
        batch, self._pending, self._chars = self._pending, [], 0
        if not batch:
            return
        try:
            answer = self._client.retain(self._bank_id, [item for _, item in batch])
        except ApiError:
            # One transaction per request: a refused batch wrote nothing; find the bad lines.
            for line, item in batch:
                self._one(line, item)
        else:
            self._report.retained += len(batch)
            self._report.memories += len(answer.memory_ids)
        _tick(self._progress, "retain", self._report.lines, self._total)

    def _one(self, line: int, item: RetainItem) -> None:
        try:
            answer = self._client.retain(self._bank_id, [item])
        except ApiError as exc:
            self._report.failed.append(
                LineError(line, _describe(exc), document_id=item.document_id)
            )
        else:
            self._report.retained += 1
            self._report.memories += len(answer.memory_ids)


def _describe(exc: ApiError) -> str:
    extra = f" ({msgspec.json.encode(exc.extra).decode()})" if exc.extra else ""
    return f"{exc.status_code}: {exc.detail}{extra}"


def import_lines(
    client: MnemoClient,
    bank_id: str,
    lines: Iterable[bytes | str],
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Progress | None = None,
    total_lines: int | None = None,
) -> ImportReport:
    """Import JSONL: retain items into an existing bank, or an export into a fresh one.

    The format is told by the first line: an export starts with its ``bank`` line.
    """
    parsed = parse_lines(lines)
    first = next(parsed, None)
    report = ImportReport(bank_id=bank_id)
    if first is None:
        return report
    if isinstance(first.record, ExportBank):
        return _Restore(client, bank_id, first.record, report, progress).run(
            parsed, batch_size=batch_size, total=total_lines
        )
    client.get_bank(bank_id)  # 404 before anything is sent when the bank does not exist
    batcher = _Batcher(
        client, bank_id, report, batch_size=batch_size, progress=progress, total=total_lines
    )
    for entry in _chain(first, parsed):
        report.lines += 1
        if entry.item is not None:
            batcher.add(entry.line, entry.item)
        elif isinstance(entry.record, ExportDocument):
            batcher.add(entry.line, entry.record.item)
        else:
            error = entry.error or f"a {_kind(entry.record)!r} line belongs in an export file"
            report.failed.append(LineError(entry.line, error))
    batcher.flush()
    _tick(progress, "retain", report.lines, total_lines)
    return report


def _chain(first: _Parsed, rest: Iterator[_Parsed]) -> Iterator[_Parsed]:
    yield first
    yield from rest


def _kind(record: ExportLine | None) -> str:
    return str(type(record).__struct_config__.tag) if record is not None else "?"


class _Restore:
    """Import of an export: replay the documents, then make memories and identities equal."""

    def __init__(
        self,
        client: MnemoClient,
        bank_id: str,
        header: ExportBank,
        report: ImportReport,
        progress: Progress | None,
    ) -> None:
        if header.format != FORMAT or header.version > VERSION:
            raise ImportRefused(
                f"unsupported export: format {header.format!r} version {header.version} "
                f"(this Mnemo reads {FORMAT!r} up to version {VERSION})"
            )
        self.client = client
        self.bank_id = bank_id
        self.header = header
        self.report = report
        self.report.format = "export"
        self.progress = progress
        self.memories: list[ExportMemory] = []
        self.entities: dict[str, ExportEntity] = {}
        self.reviews: list[ExportReview] = []

    def run(self, rest: Iterator[_Parsed], *, batch_size: int, total: int | None) -> ImportReport:
        """Every step of the module docstring, in order."""
        self._create_bank()
        batcher = _Batcher(
            self.client,
            self.bank_id,
            self.report,
            batch_size=batch_size,
            progress=self.progress,
            total=total,
        )
        self.report.lines = 1
        for entry in rest:
            self.report.lines += 1
            record = entry.record
            if isinstance(record, ExportDocument):
                batcher.add(entry.line, record.item)
            elif isinstance(record, ExportMemory):
                self.memories.append(record)
            elif isinstance(record, ExportEntity):
                self.entities[record.id] = record
            elif isinstance(record, ExportReview):
                self.reviews.append(record)
            elif isinstance(record, ExportMerge):
                continue
            else:
                error = entry.error or "a retain item or second bank line inside an export"
                self.report.failed.append(LineError(entry.line, error))
        batcher.flush()
        _tick(self.progress, "retain", self.report.lines, total)
        pairs = self._match()
        self._edit(pairs)
        new_of = self._identities(pairs)
        self._states(pairs)
        self._decide_reviews(new_of)
        return self.report

    # -- steps ----------------------------------------------------------------------------------

    def _create_bank(self) -> None:
        try:
            bank = self.client.get_bank(self.bank_id)
        except ApiError as exc:
            if exc.status_code != 404:
                raise
        else:
            if bank.counts.memories or bank.counts.documents:
                raise ImportRefused(
                    f"bank {self.bank_id!r} already holds {bank.counts.documents} documents and "
                    f"{bank.counts.memories} memories: import an export into a new or empty bank"
                )
        self.client.put_bank(self.bank_id, self.header.config)

    def _current(self) -> list[Memory]:
        return list(self.client.iter_memories(self.bank_id))[::-1]

    def _match(self) -> list[tuple[ExportMemory, Memory]]:
        pairs, unmatched = match_memories(self.memories, self._current())
        self.report.matched = len(pairs)
        self.report.unmatched = [m.id for m in unmatched]
        if unmatched:
            self.report.notes.append(
                f"{len(unmatched)} exported memories were not reproduced by retaining the "
                "documents again (facts of earlier document versions, observations, or "
                "documents that failed): see `unmatched`"
            )
        return pairs

    def _edit(self, pairs: list[tuple[ExportMemory, Memory]]) -> None:
        for done, (old, new) in enumerate(pairs, 1):
            update = memory_fix(old, new, self.entities)
            if update is not None:
                self.report.edited += self._attempt(
                    f"edit of memory {new.id!r} (exported {old.id!r})",
                    self.client.update_memory,
                    self.bank_id,
                    new.id,
                    update,
                )
            _tick(self.progress, "memories", done, len(pairs))

    def _identities(self, pairs: list[tuple[ExportMemory, Memory]]) -> dict[str, str]:
        """Split, then merge, until the partition of mentions matches; old → new entity ids."""
        names = {eid: e.name for eid, e in self.entities.items()}
        current = self._refreshed(pairs)
        for _ in range(3):
            plan = plan_identities(current, names)
            for split in plan.splits:
                self.report.splits += self._attempt(
                    f"split of {split.name or split.entity_id!r}",
                    self.client.split_entity,
                    self.bank_id,
                    split.entity_id,
                    split.memory_ids,
                    IMPORT_REASON,
                    name=split.name,
                )
            # Merges only once every new entity holds mentions of one exported entity.
            for merge in [] if plan.splits else plan.merges:
                self.report.merges += self._attempt(
                    f"merge of {merge.gone!r} into {merge.keep!r}",
                    self.client.merge_entity,
                    self.bank_id,
                    merge.gone,
                    merge.keep,
                    IMPORT_REASON,
                )
            if not plan.splits and not plan.merges:
                return plan.new_of
            current = self._refreshed(pairs)
        plan = plan_identities(current, names)
        if plan.splits or plan.merges:
            self.report.repair_errors.append(
                f"identities differ from the export after three rounds of repairs: "
                f"{len(plan.splits)} splits and {len(plan.merges)} merges still wanted"
            )
        return plan.new_of

    def _refreshed(
        self, pairs: list[tuple[ExportMemory, Memory]]
    ) -> list[tuple[ExportMemory, Memory]]:
        now = {m.id: m for m in self.client.iter_memories(self.bank_id)}
        return [(old, now[new.id]) for old, new in pairs if new.id in now]

    def _states(self, pairs: list[tuple[ExportMemory, Memory]]) -> None:
        for old, new in pairs:
            if old.state == "invalidated":
                self.report.invalidated += self._attempt(
                    f"invalidation of memory {new.id!r} (exported {old.id!r})",
                    self.client.invalidate_memory,
                    self.bank_id,
                    new.id,
                    old.state_reason,
                )

    def _decide_reviews(self, new_of: dict[str, str]) -> None:
        wanted = {
            frozenset((new_of[r.entity_a], new_of[r.entity_b])): r
            for r in self.reviews
            if r.status == "different"
            and r.entity_a in new_of
            and r.entity_b in new_of
            and new_of[r.entity_a] != new_of[r.entity_b]
        }
        replayed: set[str] = set()
        for review in list(self.client.iter_reviews(self.bank_id, status="open")):
            sides = [s.merged_into or s.id for s in (review.entity_a, review.entity_b) if s]
            old = wanted.get(frozenset(sides))
            if old is None or old.id in replayed:
                continue
            if self._attempt(
                f"review {review.id!r}",
                self.client.decide_review,
                self.bank_id,
                review.id,
                "different",
                old.decision_reason or "mnemo import: decided so in the exported bank",
            ):
                replayed.add(old.id)
                self.report.reviews += 1
        missing = [r.id for r in self.reviews if r.status == "different" and r.id not in replayed]
        if missing:
            self.report.notes.append(
                f"{len(missing)} 'different' review decisions were not replayed: the new bank "
                f"filed no review of those pairs ({', '.join(missing[:5])})"
            )

    def _attempt(self, what: str, action: Callable[..., object], *args: Any, **kw: Any) -> bool:
        """Run one repair; a refusal becomes a note (True when it succeeded)."""
        try:
            action(*args, **kw)
        except ApiError as exc:
            self.report.repair_errors.append(f"{what} failed: {_describe(exc)}")
            return False
        return True


# -- pure parts ------------------------------------------------------------------------------


def match_memories(
    exported: Sequence[ExportMemory], current: Sequence[Memory]
) -> tuple[list[tuple[ExportMemory, Memory]], list[ExportMemory]]:
    """Pair exported memories with new ones by (document id, extracted text), in order.

    Both sequences are oldest first; facts with the same document and text pair up in that
    order. Returns the pairs and the exported memories left without a partner.
    """
    pool: dict[tuple[str | None, str], list[Memory]] = defaultdict(list)
    for m in current:
        pool[(m.document_id, m.text)].append(m)
    taken: dict[tuple[str | None, str], int] = Counter()
    pairs: list[tuple[ExportMemory, Memory]] = []
    unmatched: list[ExportMemory] = []
    for old in exported:
        key = (old.document_id, old.match_text)
        candidates = pool.get(key, [])
        if old.document_id is not None and taken[key] < len(candidates):
            pairs.append((old, candidates[taken[key]]))
            taken[key] += 1
        else:
            unmatched.append(old)
    return pairs, unmatched


def mention_key(name: str, mention: str | None) -> str:
    """How a fact's mention is recognised across banks: the surface text's name key."""
    return name_key(mention or name) or (mention or name)


def memory_fix(
    old: ExportMemory, new: Memory, entities: dict[str, ExportEntity]
) -> MemoryUpdate | None:
    """The PATCH that makes ``new`` equal to ``old`` (None when they already agree)."""
    changes: dict[str, Any] = {}
    if new.text != old.text:
        changes["text"] = old.text
    if new.context != old.context:
        changes["context"] = old.context
    for field in ("occurred_start", "occurred_end"):
        value = getattr(old, field)
        if value is not None and getattr(new, field) != value:
            changes[field] = value
    if new.type != old.type and old.type in ("world", "experience"):
        changes["fact_type"] = old.type
    wanted = Counter(mention_key(e.name, e.mention) for e in old.entities)
    have = Counter(mention_key(e.name, e.mention) for e in new.entities)
    if wanted != have or "text" in changes:
        changes["entities"] = [
            EntityHint(
                text=e.mention or e.name,
                type=(entities[e.entity_id].type if e.entity_id in entities else e.type) or None,
            )
            for e in old.entities
        ]
    if not changes:
        return None
    return MemoryUpdate(**changes, reason="mnemo import: as in the exported bank")


class Split(msgspec.Struct, frozen=True):
    """Move the mentions of ``memory_ids`` off ``entity_id`` into a new entity ``name``."""

    entity_id: str
    memory_ids: list[str]
    name: str | None


class Merge(msgspec.Struct, frozen=True):
    """Fold ``gone`` into ``keep``."""

    gone: str
    keep: str


class IdentityPlan(msgspec.Struct, frozen=True):
    """Repairs that bring the new bank's partition of mentions to the exported one.

    ``new_of`` maps each exported entity to the new entity holding most of its mentions.
    """

    splits: list[Split]
    merges: list[Merge]
    new_of: dict[str, str]


def plan_identities(
    pairs: Sequence[tuple[ExportMemory, Memory]], names: dict[str, str]
) -> IdentityPlan:
    """Compare who-is-who in matched memories: the splits and merges that make it equal.

    A mention is matched within a pair of memories by :func:`mention_key`. ``names`` gives each
    exported entity's canonical name: the new entity called so is the one kept or left in place.
    Apply the splits first; merges are meant for a bank that needs no split.
    """
    # new entity -> exported entity -> new memory ids; and the new entities' canonical names.
    holds: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    new_names: dict[str, str] = {}
    for old, new in pairs:
        by_key = {mention_key(e.name, e.mention): e for e in new.entities}
        for mention in old.entities:
            found = by_key.get(mention_key(mention.name, mention.mention))
            if found is not None:
                holds[found.id][mention.entity_id].add(new.id)
                new_names[found.id] = found.name
    splits = [
        split
        for new_id in sorted(holds)
        for split in _splits(new_id, holds[new_id], names, new_names[new_id])
    ]
    # exported entity -> new entity -> new memory ids
    spread: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for new_id, groups in holds.items():
        for old_id, memory_ids in groups.items():
            spread[old_id][new_id] = memory_ids
    merges: list[Merge] = []
    new_of: dict[str, str] = {}
    for old_id in sorted(spread):
        homes = spread[old_id]
        keep = _choose(homes, new_names.__getitem__, names.get(old_id, ""))
        new_of[old_id] = keep
        merges.extend(
            Merge(gone=new_id, keep=keep)
            for new_id in sorted(homes)
            if new_id != keep and len(holds[new_id]) == 1
        )
    return IdentityPlan(splits=splits, merges=merges, new_of=new_of)


def _splits(
    new_id: str, groups: dict[str, set[str]], names: dict[str, str], new_name: str
) -> list[Split]:
    """Splits that leave ``new_id`` with the mentions of one exported entity."""
    if len(groups) < 2:
        return []
    stay = _choose(groups, lambda old_id: names.get(old_id, ""), new_name)
    splits = []
    for old_id in sorted(groups):
        moved = sorted(groups[old_id] - groups[stay])
        if old_id != stay and moved:
            splits.append(Split(new_id, moved, names.get(old_id) or None))
    return splits


def _choose(groups: dict[str, set[str]], name_of: Callable[[str], str], name: str) -> str:
    """The group named ``name`` (by name key), else the largest; ties to the smallest id."""
    key = name_key(name)
    return min(groups, key=lambda g: (name_key(name_of(g)) != key, -len(groups[g]), g))
