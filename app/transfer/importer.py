"""Import JSONL into a bank through the HTTP API: plain retain items, or an export."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from app.client import ApiError, MnemoClient
from app.curate.schemas.memories import Memory
from app.reflect.schemas import CreateMentalModelRequest, MentalModelTriggerInput
from app.retain.schemas import RetainItem
from app.transfer.format import (
    DEFAULT_BATCH_SIZE,
    FORMAT,
    IMPORT_REASON,
    MAX_BATCH_CHARS,
    VERSION,
    ExportBank,
    ExportDocument,
    ExportEntity,
    ExportLine,
    ExportMemory,
    ExportMentalModel,
    ExportMerge,
    ExportReview,
    ImportRefused,
    ImportReport,
    LineError,
    ParsedLine,
    Progress,
    parse_lines,
    tick,
)
from app.transfer.identity import match_memories, memory_fix, plan_identities


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
        tick(self._progress, "retain", self._report.lines, self._total)

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
    tick(progress, "retain", report.lines, total_lines)
    return report


def _chain(first: ParsedLine, rest: Iterator[ParsedLine]) -> Iterator[ParsedLine]:
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
        self.models: list[ExportMentalModel] = []

    def run(
        self, rest: Iterator[ParsedLine], *, batch_size: int, total: int | None
    ) -> ImportReport:
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
            elif isinstance(record, ExportMentalModel):
                self.models.append(record)
            elif isinstance(record, ExportMerge):
                continue
            else:
                error = entry.error or "a retain item or second bank line inside an export"
                self.report.failed.append(LineError(entry.line, error))
        batcher.flush()
        tick(self.progress, "retain", self.report.lines, total)
        pairs = self._match()
        self._edit(pairs)
        new_of = self._identities(pairs)
        self._states(pairs)
        self._decide_reviews(new_of)
        self._mental_models()
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
            tick(self.progress, "memories", done, len(pairs))

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

    def _mental_models(self) -> None:
        """Each model asked again, with its id: its page is written from the imported memories.

        The exported page is not restored as it was, because its evidence ids are the exported
        bank's: a page written from this bank's memories cites memories that exist here.
        """
        for model in self.models:
            trigger = (
                msgspec.convert(
                    {k: v for k, v in msgspec.to_builtins(model.trigger).items() if v is not None},
                    MentalModelTriggerInput,
                )
                if model.trigger is not None
                else None
            )
            request = CreateMentalModelRequest(
                id=model.id,
                name=model.name,
                source_query=model.source_query or model.name,
                tags=model.tags or None,
                trigger=trigger,
                **({"max_tokens": model.max_tokens} if model.max_tokens else {}),
            )
            if self._attempt(
                f"mental model {model.id!r}",
                self.client.create_mental_model,
                self.bank_id,
                request,
            ):
                self.report.mental_models += 1
        if self.report.mental_models:
            self.report.notes.append(
                f"{self.report.mental_models} mental models were created again; their pages "
                "are being written from the imported memories (their history starts anew)"
            )

    def _attempt(self, what: str, action: Callable[..., object], *args: Any, **kw: Any) -> bool:
        """Run one repair; a refusal becomes a note (True when it succeeded)."""
        try:
            action(*args, **kw)
        except ApiError as exc:
            self.report.repair_errors.append(f"{what} failed: {_describe(exc)}")
            return False
        return True
