"""The ``mnemo`` command line.

``serve`` runs the API and ``reconcile`` repairs the stores; ``cypher`` runs an analytics query
straight against Neo4j. Every other command is a thin wrapper over :class:`app.client.MnemoClient`
talking to a running service: ``--url`` (default ``http://MNEMO_HOST:MNEMO_PORT``). Results go
to stdout (a readable table, or ``--json``), progress and messages to stderr. Exit status: 0 on
success, 1 when the service refused something or an import had failures, 2 for usage and
configuration errors.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from app.config import Settings, SettingsError, load_settings
from app.errors import MnemoError

if TYPE_CHECKING:
    from app.client import MnemoClient

Handler = Callable[[argparse.Namespace], int]
FACT_TYPES = ("world", "experience", "observation")
TAGS_MATCH = ("any", "all", "any_strict", "all_strict", "exact")
# Items per retain request of `mnemo import` (app.transfer.DEFAULT_BATCH_SIZE, without importing
# the client for `mnemo --help`).
DEFAULT_BATCH_SIZE = 100


class UsageError(Exception):
    """The command line asks for something impossible (exit status 2)."""


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


# -- serve, reconcile --------------------------------------------------------------------------


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app
    from app.store.local_neo4j import ensure_local_neo4j

    overrides = {name: getattr(args, name) for name in ("host", "port") if getattr(args, name)}
    settings = load_settings(**overrides)
    if settings.uses_local_neo4j:
        ensure_local_neo4j(settings)
    base = f"http://{settings.host}:{settings.port}"
    sys.stdout.write(
        f"Mnemo API        {base}/v1/default/banks\n"
        f"API docs         {base}/schema  (Swagger UI: {base}/schema/swagger)\n"
        f"Neo4j            {settings.bolt_uri}\n"
        + (f"Neo4j Browser    {settings.browser_url}\n" if settings.browser_url else "")
    )
    sys.stdout.flush()
    # One worker: the embedded Qdrant Edge shard is owned by one process.
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        workers=1,
    )
    return 0


def _reconcile(args: argparse.Namespace) -> int:
    import asyncio

    from app.runtime import Runtime
    from app.store.local_neo4j import ensure_local_neo4j

    settings = load_settings()
    if settings.uses_local_neo4j:
        ensure_local_neo4j(settings)

    async def run() -> str:
        async with Runtime.open(settings, background=False) as runtime:
            reconciler = runtime.reconciler
            if args.bank:
                report = await reconciler.reconcile_bank(args.bank)
            else:
                report = await reconciler.reconcile_all()
            return msgspec.json.encode(report).decode()

    sys.stdout.write(asyncio.run(run()) + "\n")
    return 0


# -- cypher analytics --------------------------------------------------------------------------


def _cypher(args: argparse.Namespace) -> int:
    import asyncio

    from app.console import table, write_json
    from app.curate.analytics import analytics_queries, find_query, run_analytics
    from app.store.cypher import CypherRegistry
    from app.store.graph import Graph
    from app.store.local_neo4j import ensure_local_neo4j

    registry = CypherRegistry.load()
    if args.list or not args.name:
        queries = analytics_queries(registry)
        if args.json:
            write_json(sys.stdout, queries)
        else:
            rows = [
                {"name": q.name, "params": _param_help(q.params), "summary": q.summary}
                for q in queries
            ]
            table(sys.stdout, rows, widths={"summary": 100})
        return 0
    _, query = find_query(registry, args.name)  # unknown names fail before Neo4j starts
    params = _cypher_params(args.param or [], query.params)
    if args.bank:
        params["bank_id"] = args.bank
    settings = load_settings()
    if settings.uses_local_neo4j:
        ensure_local_neo4j(settings)

    async def run() -> list[dict[str, Any]]:
        graph = Graph.connect(
            settings.bolt_uri,
            registry=registry,
            database=settings.neo4j_database,
            user=settings.neo4j_user,
            password=settings.neo4j_password,
        )
        try:
            return await run_analytics(graph, args.name, params)
        finally:
            await graph.close()

    rows = asyncio.run(run())
    if args.json:
        write_json(sys.stdout, rows)
    else:
        table(sys.stdout, rows)
    return 0


def _param_help(params: Sequence[Any]) -> str:
    return " ".join(p.name if p.required else f"[{p.name}={p.default}]" for p in params)


def _cypher_params(pairs: Sequence[str], declared: Sequence[Any]) -> dict[str, Any]:
    """``k=v`` pairs; a value is JSON when the parameter's default is not a string or int."""
    defaults = {p.name: p.default for p in declared}
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--param takes NAME=VALUE, got {pair!r}")
        default = defaults.get(key)
        if isinstance(default, float | bool | list | dict):
            try:
                params[key] = msgspec.json.decode(value)
            except msgspec.DecodeError:
                raise UsageError(f"--param {key}: {value!r} is not a JSON value") from None
        else:
            params[key] = value
    return params


# -- the client commands -----------------------------------------------------------------------


def default_url(settings: Settings) -> str:
    """Where ``mnemo serve`` listens with these settings (wildcard addresses → loopback)."""
    host = settings.host
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"


def _client(args: argparse.Namespace) -> MnemoClient:
    from app.client import MnemoClient

    return MnemoClient(args.url or default_url(load_settings()))


def _with_client(run: Callable[[MnemoClient, argparse.Namespace], int]) -> Handler:
    """A handler that opens a client, runs, and closes it."""

    def handler(args: argparse.Namespace) -> int:
        with _client(args) as client:
            return run(client, args)

    return handler


def _show(args: argparse.Namespace, value: Any, readable: Callable[[], None]) -> int:
    from app.console import write_json

    if getattr(args, "json", False):
        write_json(sys.stdout, value)
    else:
        readable()
    return 0


def _show_page(
    args: argparse.Namespace,
    page: Any,
    rows: list[dict[str, Any]],
    widths: dict[str, int] | None = None,
) -> int:
    """A page of items: JSON, or a table of ``rows`` and a "N of TOTAL" line on stderr."""
    from app.console import table

    def readable() -> None:
        table(sys.stdout, rows, widths=widths)
        _err(f"{len(page.items)} of {page.total} (offset {page.offset})")

    return _show(args, page, readable)


def _timestamp(value: str) -> datetime:
    """An ISO 8601 date-time (``2024-05-08T13:56:00Z``) or date."""
    try:
        return msgspec.convert(value, datetime)
    except msgspec.ValidationError:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an ISO 8601 date-time: {value!r}") from None


def _key_value(value: str) -> tuple[str, str]:
    key, sep, rest = value.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {value!r}")
    return key, rest


# banks ---------------------------------------------------------------------------------------


def _banks_list(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import table

    banks = list(client.iter_banks())
    rows = [
        {
            "id": b.id,
            "name": b.name,
            "mode": b.retain_extraction_mode,
            "documents": b.counts.documents,
            "memories": b.counts.memories,
            "entities": b.counts.entities,
        }
        for b in banks
    ]
    return _show(args, banks, lambda: table(sys.stdout, rows))


def _print_bank(bank: Any) -> None:
    from app.console import fields

    fields(
        sys.stdout,
        {
            "id": bank.id,
            "name": bank.name,
            "description": bank.description,
            "extraction mode": bank.retain_extraction_mode,
            "mission": bank.retain_mission,
            "custom instructions": bank.retain_custom_instructions,
            "entity labels": [label.name for label in bank.entity_labels],
            "documents": bank.counts.documents,
            "memories": bank.counts.memories,
            "entities": bank.counts.entities,
            "created": bank.created_at,
            "updated": bank.updated_at,
        },
    )


def _banks_create(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.curate.schemas.banks import BankUpdate

    values = {
        "name": args.name,
        "retain_extraction_mode": args.mode,
        "retain_mission": args.mission,
        "description": args.description,
    }
    update = msgspec.convert({k: v for k, v in values.items() if v is not None}, BankUpdate)
    bank = client.put_bank(args.bank_id, update)
    return _show(args, bank, lambda: _print_bank(bank))


def _banks_show(client: MnemoClient, args: argparse.Namespace) -> int:
    bank = client.get_bank(args.bank_id)
    return _show(args, bank, lambda: _print_bank(bank))


def _banks_delete(client: MnemoClient, args: argparse.Namespace) -> int:
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(f"deleting bank {args.bank_id!r} needs --yes")
        sys.stderr.write(f"Delete bank {args.bank_id!r} and everything it holds? [y/N] ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            _err("not deleted")
            return 1
    deleted = client.delete_bank(args.bank_id)
    return _show(
        args,
        deleted,
        lambda: _out(
            f"deleted bank {deleted.bank_id}: {deleted.deleted_nodes} nodes, "
            f"{deleted.deleted_vectors} vectors"
        ),
    )


# retain --------------------------------------------------------------------------------------


def _retain_content(args: argparse.Namespace) -> str:
    sources = [s for s in (args.text is not None and args.text != "-", args.file) if s]
    if len(sources) > 1:
        raise UsageError("give the content as TEXT or --file, not both")
    if args.file:
        return Path(args.file).read_text(encoding="utf-8")
    if args.text is not None and args.text != "-":
        return str(args.text)
    if sys.stdin.isatty() and args.text != "-":
        raise UsageError("give the content as TEXT, --file PATH, or on stdin")
    return sys.stdin.read()


def _entity_hint(value: str) -> Any:
    from app.retain.schemas import EntityHint

    name, sep, kind = value.rpartition(":")
    if sep and name and kind and kind.replace("_", "").replace("-", "").isalnum():
        return EntityHint(text=name, type=kind)
    return EntityHint(text=value)


def _retain(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.retain.schemas import RetainItem

    content = _retain_content(args)
    if not content.strip():
        raise UsageError("nothing to retain: the content is empty")
    item = RetainItem(
        content=content,
        timestamp=args.timestamp,
        context=args.context,
        document_id=args.document_id,
        metadata=dict(args.metadata) if args.metadata else None,
        tags=args.tag or None,
        entities=[_entity_hint(e) for e in args.entity] if args.entity else None,
    )
    answer = client.retain(args.bank, [item], run_async=args.run_async)

    def readable() -> None:
        if answer.operation_id:
            _out(
                f"operation {answer.operation_id} accepted; its status: "
                f"mnemo operations --bank {args.bank} {answer.operation_id}"
            )
            return
        for outcome in answer.items:
            _out(
                f"document {outcome.document_id}: {outcome.status}, "
                f"{len(outcome.memory_ids)} memories"
            )
            for memory_id in outcome.memory_ids:
                _out(f"  {memory_id}")
            for warning in outcome.warnings:
                _err(f"warning: {warning}")

    return _show(args, answer, readable)


def _operation(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import fields, table

    if args.operation_id:
        op = client.operation(args.bank, args.operation_id)
        return _show(args, op, lambda: fields(sys.stdout, msgspec.structs.asdict(op)))
    page = client.operations(args.bank, limit=args.limit)
    rows = [
        {
            "id": o.id,
            "status": o.status,
            "items": f"{o.items_done}/{o.items_count}",
            "memories": o.memories_count,
            "errors": len(o.errors),
            "created": o.created_at,
        }
        for o in page.items
    ]
    return _show(args, page, lambda: table(sys.stdout, rows))


# recall --------------------------------------------------------------------------------------


def _recall(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import table
    from app.recall.schemas import RecallRequest

    request = RecallRequest(
        query=args.query,
        types=args.type or None,
        budget=args.budget,
        max_tokens=args.max_tokens,
        tags=args.tag or None,
        tags_match=args.tags_match,
        query_timestamp=args.at,
        trace=args.trace,
    )
    answer = client.recall(args.bank, request)
    if args.trace and not args.json:
        raise UsageError("--trace needs --json")
    rows = [
        {
            "#": rank,
            "score": r.scores.get("final"),
            "type": r.type,
            "when": r.occurred_start.date() if r.occurred_start else None,
            "text": r.text,
            "entities": [e.name for e in r.entities],
        }
        for rank, r in enumerate(answer.results, 1)
    ]
    return _show(
        args,
        answer,
        lambda: table(sys.stdout, rows, widths={"text": 90, "entities": 40}),
    )


# memories ------------------------------------------------------------------------------------


def _memories_list(client: MnemoClient, args: argparse.Namespace) -> int:

    page = client.list_memories(
        args.bank,
        types=args.type,
        q=args.query,
        state=args.state,
        document_id=args.document_id,
        entity_id=args.entity_id,
        tags=args.tag,
        tags_match=args.tags_match,
        limit=args.limit,
        offset=args.offset,
    )
    rows = [
        {
            "id": m.id,
            "type": m.type,
            "state": m.state,
            "when": m.occurred_start.date() if m.occurred_start else None,
            "text": m.text,
        }
        for m in page.items
    ]

    return _show_page(args, page, rows, widths={"text": 90})


def _print_memory(m: Any) -> None:
    from app.console import fields, table

    fields(
        sys.stdout,
        {
            "id": m.id,
            "text": m.text,
            "type": m.type,
            "state": m.state,
            "state reason": m.state_reason,
            "state changed": m.state_changed_at,
            "context": m.context,
            "occurred": " .. ".join(
                str(t.isoformat()) for t in (m.occurred_start, m.occurred_end) if t
            ),
            "mentioned": m.mentioned_at,
            "document": m.document_id,
            "tags": m.tags,
            "metadata": m.metadata,
            "edited": m.edited_at,
        },
    )
    rows = [
        {"entity": e.id, "name": e.name, "type": e.type, "mention": e.mention} for e in m.entities
    ]
    if rows:
        _out()
        table(sys.stdout, rows)


def _memories_show(client: MnemoClient, args: argparse.Namespace) -> int:
    memory = client.memory(args.bank, args.memory_id)
    return _show(args, memory, lambda: _print_memory(memory))


def _memories_history(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import table

    history = client.memory_history(args.bank, args.memory_id)
    rows = [
        {"at": r.at, "kind": r.kind, "fields": r.fields, "reason": r.reason, "before": r.before}
        for r in history.items
    ]
    return _show(args, history, lambda: table(sys.stdout, rows))


def _memories_state(client: MnemoClient, args: argparse.Namespace) -> int:
    if args.action == "invalidate":
        memory = client.invalidate_memory(args.bank, args.memory_id, args.reason)
    else:
        memory = client.restore_memory(args.bank, args.memory_id, args.reason)
    return _show(args, memory, lambda: _out(f"memory {memory.id}: {memory.state}"))


# documents -----------------------------------------------------------------------------------


def _documents_list(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import table

    page = client.list_documents(args.bank, empty=args.empty, limit=args.limit, offset=args.offset)
    rows = [
        {
            "id": d.id,
            "memories": d.memory_count,
            "valid": d.valid_memory_count,
            "chars": d.text_length,
            "tags": d.tags,
            "created": d.created_at,
        }
        for d in page.items
    ]
    return _show(args, page, lambda: table(sys.stdout, rows))


def _documents_show(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import fields

    document = client.get_document(args.bank, args.document_id)

    def readable() -> None:
        fields(
            sys.stdout,
            {
                "id": document.id,
                "timestamp": document.timestamp,
                "context": document.context,
                "tags": document.tags,
                "metadata": document.metadata,
                "memories": f"{document.memory_count} ({document.valid_memory_count} valid)",
                "chunks": document.chunk_count,
                "created": document.created_at,
                "updated": document.updated_at,
            },
        )
        _out()
        _out(document.original_text)

    return _show(args, document, readable)


def _documents_delete(client: MnemoClient, args: argparse.Namespace) -> int:
    deleted = client.delete_document(args.bank, args.document_id)
    return _show(
        args,
        deleted,
        lambda: _out(
            f"deleted document {deleted.document_id}: {deleted.deleted_memories} memories, "
            f"{deleted.deleted_entities} entities"
        ),
    )


def _documents_reprocess(client: MnemoClient, args: argparse.Namespace) -> int:
    done = client.reprocess_document(args.bank, args.document_id)
    return _show(
        args,
        done,
        lambda: _out(
            f"reprocessed document {done.document_id} ({done.extraction_mode}): "
            f"{done.deleted_memories} memories replaced by {len(done.memory_ids)}"
        ),
    )


# entities ------------------------------------------------------------------------------------


def _entities_list(client: MnemoClient, args: argparse.Namespace) -> int:

    page = client.list_entities(
        args.bank, name=args.name, entity_type=args.type, limit=args.limit, offset=args.offset
    )
    rows = [
        {
            "id": e.id,
            "name": e.name,
            "type": e.type,
            "mentions": e.mention_count,
            "last seen": e.last_seen,
        }
        for e in page.items
    ]

    return _show_page(args, page, rows)


def _print_entity(e: Any) -> None:
    from app.console import fields, table

    fields(
        sys.stdout,
        {
            "id": e.id,
            "name": e.name,
            "type": e.type,
            "mentions": e.mention_count,
            "first seen": e.first_seen,
            "last seen": e.last_seen,
            "label": e.is_label or None,
            "open reviews": e.open_reviews or None,
        },
    )
    _out()
    table(
        sys.stdout,
        [
            {"name": n.name, "source": n.source, "facts": n.memory_count, "surfaces": n.surfaces}
            for n in e.names
        ],
    )
    if e.neighbours:
        _out()
        table(
            sys.stdout, [{"neighbour": n.name, "id": n.id, "facts": n.count} for n in e.neighbours]
        )


def _entities_show(client: MnemoClient, args: argparse.Namespace) -> int:
    entity = client.get_entity(args.bank, args.entity_id, neighbours=args.neighbours)
    return _show(args, entity, lambda: _print_entity(entity))


def _print_change(change: Any) -> None:
    record = change.record
    _out(f"{record.kind} {record.id} ({record.state})")
    for entity in change.entities:
        _out(f"  {entity.id}  {entity.name}  ({entity.mention_count} mentions)")


def _entities_merge(client: MnemoClient, args: argparse.Namespace) -> int:
    change = client.merge_entity(args.bank, args.entity_id, args.into, args.reason)
    return _show(args, change, lambda: _print_change(change))


def _entities_split(client: MnemoClient, args: argparse.Namespace) -> int:
    change = client.split_entity(
        args.bank, args.entity_id, args.memory, args.reason, name=args.name
    )
    return _show(args, change, lambda: _print_change(change))


def _entities_revert(client: MnemoClient, args: argparse.Namespace) -> int:
    change = client.revert_entity_merge(args.bank, args.merge_id, args.reason)
    return _show(args, change, lambda: _print_change(change))


def _entities_merges(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import table

    page = client.list_entity_merges(
        args.bank, kind=args.kind, entity_id=args.entity_id, limit=args.limit, offset=args.offset
    )
    rows = [
        {
            "id": r.id,
            "kind": r.kind,
            "state": r.state,
            "what": _record_summary(r),
            "by": r.by,
            "reason": r.reason,
            "at": r.created_at,
        }
        for r in page.items
    ]
    return _show(args, page, lambda: table(sys.stdout, rows))


def _record_summary(r: Any) -> str:
    if r.kind == "merge":
        return f"{r.gone_name} → {r.keep_name}"
    if r.kind == "split":
        return f"{r.source_name} → {r.created_name} ({len(r.memory_ids)} facts)"
    return f"reverts {r.reverts_kind} {r.reverts}"


def _entities_reviews(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import table

    page = client.list_reviews(args.bank, status=args.status, limit=args.limit, offset=args.offset)
    rows = [
        {
            "id": r.id,
            "status": r.status,
            "a": f"{r.entity_a.name} ({r.entity_a.id})" if r.entity_a else None,
            "b": f"{r.entity_b.name} ({r.entity_b.id})" if r.entity_b else None,
            "reason": r.reason,
        }
        for r in page.items
    ]
    return _show(args, page, lambda: table(sys.stdout, rows))


def _entities_decide(client: MnemoClient, args: argparse.Namespace) -> int:
    outcome = client.decide_review(args.bank, args.review_id, args.decision, args.reason)
    merged = f", merge {outcome.merge.id}" if outcome.merge else ""
    return _show(
        args, outcome, lambda: _out(f"review {outcome.review.id}: {outcome.review.status}{merged}")
    )


def _entities_graph(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import table

    graph = client.entity_graph(
        args.bank, limit=args.limit, min_count=args.min_count, entity_type=args.type
    )
    names = {n.id: n.name for n in graph.nodes}
    rows = [
        {"a": names.get(e.source, e.source), "b": names.get(e.target, e.target), "facts": e.count}
        for e in graph.edges
    ]
    return _show(args, graph, lambda: table(sys.stdout, rows))


# import / export -----------------------------------------------------------------------------


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def _import(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import ProgressBar, write_json
    from app.transfer import import_lines

    progress = ProgressBar(sys.stderr)
    try:
        if args.file == "-":
            report = import_lines(
                client,
                args.bank,
                sys.stdin.buffer,
                batch_size=args.batch_size,
                progress=progress,
            )
        else:
            path = Path(args.file)
            with path.open("rb") as handle:
                report = import_lines(
                    client,
                    args.bank,
                    handle,
                    batch_size=args.batch_size,
                    progress=progress,
                    total_lines=_count_lines(path),
                )
    finally:
        progress.close()
    if args.json:
        write_json(sys.stdout, report)
    else:
        _print_import(report)
    return 0 if report.ok else 1


def _print_import(report: Any) -> None:
    _out(
        f"imported {report.retained} of {report.items} items into {report.bank_id}: "
        f"{report.memories} memories"
    )
    if report.format == "export":
        _out(
            f"matched {report.matched} exported memories ({len(report.unmatched)} not "
            f"reproduced); {report.edited} edited, {report.invalidated} invalidated, "
            f"{report.splits} splits, {report.merges} merges, {report.reviews} reviews decided"
        )
    for failure in report.failed:
        where = f" (document {failure.document_id})" if failure.document_id else ""
        _err(f"line {failure.line}{where}: {failure.error}")
    for error in report.repair_errors:
        _err(f"error: {error}")
    for note in report.notes:
        _err(f"note: {note}")


def _export(client: MnemoClient, args: argparse.Namespace) -> int:
    from app.console import ProgressBar
    from app.transfer import export_bank

    progress = ProgressBar(sys.stderr)
    try:
        if args.output in (None, "-"):
            summary = export_bank(client, args.bank, sys.stdout, progress)
            sys.stdout.flush()
        else:
            with Path(args.output).open("w", encoding="utf-8") as out:
                summary = export_bank(client, args.bank, out, progress)
    finally:
        progress.close()
    _err(
        f"exported {summary.bank_id}: {summary.documents} documents, {summary.memories} "
        f"memories, {summary.entities} entities, {summary.reviews} reviews, "
        f"{summary.merges} merge records"
    )
    return 0


# -- the parser --------------------------------------------------------------------------------


def _common(*, bank: bool = True, json: bool = True) -> argparse.ArgumentParser:
    """Options every client command takes."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--url", default=None, help="the Mnemo API (default http://MNEMO_HOST:MNEMO_PORT)"
    )
    if bank:
        parent.add_argument("--bank", "-b", required=True, help="the bank id")
    if json:
        parent.add_argument("--json", action="store_true", help="print the raw JSON answer")
    return parent


def _paging(parser: argparse.ArgumentParser, limit: int = 50) -> None:
    parser.add_argument("--limit", type=int, default=limit, help=f"page size (default {limit})")
    parser.add_argument("--offset", type=int, default=0, help="items to skip")


def _add_banks(sub: Any) -> None:
    banks = sub.add_parser("banks", help="list, create, show and delete banks")
    cmds = banks.add_subparsers(dest="banks_command", required=True)
    common = _common(bank=False)
    cmds.add_parser("list", parents=[common], help="every bank with its counts").set_defaults(
        handler=_with_client(_banks_list)
    )
    create = cmds.add_parser(
        "create", parents=[common], help="create a bank (or update the options given)"
    )
    create.add_argument("bank_id")
    create.add_argument("--name", help="display name (default: the id)")
    create.add_argument(
        "--mode",
        choices=["local", "chunks", "concise", "verbose", "custom", "verbatim"],
        help="extraction mode (default local, or concise with an LLM)",
    )
    create.add_argument("--mission", help="what retain should keep (LLM modes)")
    create.add_argument("--description")
    create.set_defaults(handler=_with_client(_banks_create))
    show = cmds.add_parser("show", parents=[common], help="a bank's configuration and counts")
    show.add_argument("bank_id")
    show.set_defaults(handler=_with_client(_banks_show))
    delete = cmds.add_parser("delete", parents=[common], help="delete a bank and all it holds")
    delete.add_argument("bank_id")
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(handler=_with_client(_banks_delete))


def _add_retain(sub: Any) -> None:
    retain = sub.add_parser(
        "retain", parents=[_common()], help="retain text given as an argument, a file or stdin"
    )
    retain.add_argument("text", nargs="?", help="the content ('-' or nothing: read stdin)")
    retain.add_argument("--file", "-f", help="read the content from this file")
    retain.add_argument("--document-id", help="stable id: the same id and content is a no-op")
    retain.add_argument("--context", help="what the content is (e.g. 'support chat')")
    retain.add_argument("--tag", action="append", help="a tag (repeat for several)")
    retain.add_argument(
        "--timestamp", type=_timestamp, help="when it was said or written (ISO 8601)"
    )
    retain.add_argument(
        "--metadata", type=_key_value, action="append", help="KEY=VALUE (repeat for several)"
    )
    retain.add_argument(
        "--entity", action="append", help="an entity it names, NAME or NAME:TYPE (repeatable)"
    )
    retain.add_argument(
        "--async", dest="run_async", action="store_true", help="answer at once with an operation id"
    )
    retain.set_defaults(handler=_with_client(_retain))
    operation = sub.add_parser(
        "operations", parents=[_common()], help="status of async retains (one, or the latest)"
    )
    operation.add_argument("operation_id", nargs="?")
    operation.add_argument("--limit", type=int, default=20)
    operation.set_defaults(handler=_with_client(_operation))


def _add_recall(sub: Any) -> None:
    recall = sub.add_parser("recall", parents=[_common()], help="the memories relevant to a query")
    recall.add_argument("query")
    recall.add_argument("--budget", choices=["low", "mid", "high"], default="mid")
    recall.add_argument("--max-tokens", type=int, default=4096, help="answer size (default 4096)")
    recall.add_argument("--type", action="append", choices=FACT_TYPES, help="fact types to keep")
    recall.add_argument("--tag", action="append", help="tags to filter by (repeatable)")
    recall.add_argument("--tags-match", choices=TAGS_MATCH, default="any")
    recall.add_argument("--at", type=_timestamp, help="'now' for relative dates in the query")
    recall.add_argument("--trace", action="store_true", help="explain the ranking (with --json)")
    recall.set_defaults(handler=_with_client(_recall))


def _add_memories(sub: Any) -> None:
    memories = sub.add_parser("memories", help="list, show, invalidate and restore memories")
    cmds = memories.add_subparsers(dest="memories_command", required=True)
    common = _common()
    listing = cmds.add_parser("list", parents=[common], help="memories, newest first")
    listing.add_argument("--type", action="append", choices=FACT_TYPES)
    listing.add_argument("--query", "-q", help="full-text search over text and entity names")
    listing.add_argument("--state", choices=["valid", "invalidated"])
    listing.add_argument("--document-id")
    listing.add_argument("--entity-id")
    listing.add_argument("--tag", action="append")
    listing.add_argument("--tags-match", choices=TAGS_MATCH, default="any")
    _paging(listing)
    listing.set_defaults(handler=_with_client(_memories_list))
    for name, run, text in (
        ("show", _memories_show, "one memory with its entities"),
        ("history", _memories_history, "every edit and state change of a memory"),
    ):
        command = cmds.add_parser(name, parents=[common], help=text)
        command.add_argument("memory_id")
        command.set_defaults(handler=_with_client(run))
    for action, text in (
        ("invalidate", "take a memory out of recall (kept for audit)"),
        ("restore", "put an invalidated memory back"),
    ):
        command = cmds.add_parser(action, parents=[common], help=text)
        command.add_argument("memory_id")
        command.add_argument("--reason", help="recorded with the change")
        command.set_defaults(handler=_with_client(_memories_state), action=action)


def _add_documents(sub: Any) -> None:
    documents = sub.add_parser("documents", help="list, show, delete and reprocess documents")
    cmds = documents.add_subparsers(dest="documents_command", required=True)
    common = _common()
    listing = cmds.add_parser("list", parents=[common], help="documents, newest first")
    listing.add_argument(
        "--empty",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="only documents that produced no memory (--no-empty: the others)",
    )
    _paging(listing)
    listing.set_defaults(handler=_with_client(_documents_list))
    for name, run, text in (
        ("show", _documents_show, "a document's original text and fields"),
        ("delete", _documents_delete, "delete a document and its memories"),
        ("reprocess", _documents_reprocess, "extract a document again"),
    ):
        command = cmds.add_parser(name, parents=[common], help=text)
        command.add_argument("document_id")
        command.set_defaults(handler=_with_client(run))


def _add_entities(sub: Any) -> None:
    entities = sub.add_parser("entities", help="inspect entities and repair resolution")
    cmds = entities.add_subparsers(dest="entities_command", required=True)
    common = _common()
    listing = cmds.add_parser("list", parents=[common], help="entities, most mentioned first")
    listing.add_argument("--name", help="any of the entity's names")
    listing.add_argument("--type")
    _paging(listing)
    listing.set_defaults(handler=_with_client(_entities_list))
    show = cmds.add_parser("show", parents=[common], help="names, neighbours, reviews")
    show.add_argument("entity_id")
    show.add_argument("--neighbours", type=int, default=10)
    show.set_defaults(handler=_with_client(_entities_show))
    merge = cmds.add_parser("merge", parents=[common], help="fold an entity into another")
    merge.add_argument("entity_id")
    merge.add_argument("--into", required=True, help="the entity that stays")
    merge.add_argument("--reason", required=True)
    merge.set_defaults(handler=_with_client(_entities_merge))
    split = cmds.add_parser("split", parents=[common], help="move some facts to a new entity")
    split.add_argument("entity_id")
    split.add_argument("--memory", action="append", required=True, help="a memory id (repeat)")
    split.add_argument("--name", help="the new entity's name")
    split.add_argument("--reason", required=True)
    split.set_defaults(handler=_with_client(_entities_split))
    revert = cmds.add_parser("revert", parents=[common], help="undo a merge or split")
    revert.add_argument("merge_id")
    revert.add_argument("--reason", required=True)
    revert.set_defaults(handler=_with_client(_entities_revert))
    merges = cmds.add_parser("merges", parents=[common], help="audit trail of repairs")
    merges.add_argument("--kind", choices=["merge", "split", "revert"])
    merges.add_argument("--entity-id")
    _paging(merges)
    merges.set_defaults(handler=_with_client(_entities_merges))
    reviews = cmds.add_parser("reviews", parents=[common], help="pairs awaiting a decision")
    reviews.add_argument("--status", choices=["open", "same", "different", "all"], default="open")
    _paging(reviews)
    reviews.set_defaults(handler=_with_client(_entities_reviews))
    decide = cmds.add_parser("decide", parents=[common], help="decide a review")
    decide.add_argument("review_id")
    decide.add_argument("decision", choices=["same", "different"])
    decide.add_argument("--reason")
    decide.set_defaults(handler=_with_client(_entities_decide))
    graph = cmds.add_parser("graph", parents=[common], help="co-occurrence edges")
    graph.add_argument("--limit", type=int, default=100, help="entities (most mentioned)")
    graph.add_argument("--min-count", type=int, default=1)
    graph.add_argument("--type")
    graph.set_defaults(handler=_with_client(_entities_graph))


def _add_transfer(sub: Any) -> None:
    imp = sub.add_parser(
        "import",
        parents=[_common(json=True)],
        help="import JSONL: retain items, or a `mnemo export` into a new bank",
    )
    imp.add_argument("file", help="a JSONL file ('-': stdin)")
    imp.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH_SIZE,
        help=f"items per retain request (default {DEFAULT_BATCH_SIZE})",
    )
    imp.set_defaults(handler=_with_client(_import))
    exp = sub.add_parser("export", parents=[_common(json=False)], help="a bank to JSONL")
    exp.add_argument("--output", "-o", help="write here (default stdout)")
    exp.set_defaults(handler=_with_client(_export))


def _add_cypher(sub: Any) -> None:
    cypher = sub.add_parser(
        "cypher",
        help="run an analytics query (cypher/analytics/NAME.cypher) against Neo4j directly",
    )
    cypher.add_argument("name", nargs="?", help="the query (none: list them)")
    cypher.add_argument(
        "--param", "-p", action="append", metavar="NAME=VALUE", help="a query parameter"
    )
    cypher.add_argument("--bank", "-b", help="shorthand for --param bank_id=BANK")
    cypher.add_argument("--list", action="store_true", help="list the queries and parameters")
    cypher.add_argument("--json", action="store_true", help="rows as JSON")
    cypher.set_defaults(handler=_cypher)


def build_parser() -> argparse.ArgumentParser:
    """All sub-commands."""
    parser = argparse.ArgumentParser(prog="mnemo", description="Long-term memory for AI agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP API (starts the local Neo4j if needed)")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8888)")
    serve.set_defaults(handler=_serve)
    reconcile = sub.add_parser(
        "reconcile",
        help="repair differences between Neo4j and the vector store (stop the service first "
        "when it uses the embedded Qdrant Edge)",
    )
    reconcile.add_argument("--bank", default=None, help="only this bank")
    reconcile.set_defaults(handler=_reconcile)
    _add_banks(sub)
    _add_retain(sub)
    _add_recall(sub)
    _add_memories(sub)
    _add_documents(sub)
    _add_entities(sub)
    _add_transfer(sub)
    _add_cypher(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    import httpx

    from app.client import ApiError
    from app.transfer import ImportRefused

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        code: int = args.handler(args)
    except (SettingsError, UsageError, ImportRefused) as exc:
        _err(f"mnemo: {exc}")
        return 2
    except ApiError as exc:
        extra = f" {msgspec.json.encode(exc.extra).decode()}" if exc.extra else ""
        _err(f"mnemo: {exc.status_code} {exc.detail}{extra}")
        return 1
    except httpx.TransportError as exc:
        _err(f"mnemo: cannot reach the Mnemo API ({exc}); is `mnemo serve` running? (--url)")
        return 1
    except MnemoError as exc:
        _err(f"mnemo: {exc}")
        return 2 if exc.status_code < 500 else 1
    except BrokenPipeError:
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
