"""``mnemo retain``, ``operations``, ``recall``, ``reflect`` and ``memories``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import get_args

import msgspec

from app.cli.common import (
    Subcommands,
    UsageError,
    common_options,
    err,
    key_value,
    out,
    paging,
    show,
    show_page,
    timestamp,
    with_client,
)
from app.cli.output import fields, table
from app.client import MnemoClient
from app.curate.schemas.memories import Memory
from app.domain.facts import FACT_TYPES, MEMORY_STATES
from app.domain.tags import TAGS_MATCH_MODES
from app.recall.recipes import Budget
from app.recall.schemas import RecallRequest
from app.reflect.schemas import ReflectInclude, ReflectRequest
from app.retain.schemas import EntityHint, RetainItem


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


def _entity_hint(value: str) -> EntityHint:

    name, sep, kind = value.rpartition(":")
    if sep and name and kind and kind.replace("_", "").replace("-", "").isalnum():
        return EntityHint(text=name, type=kind)
    return EntityHint(text=value)


def _retain(client: MnemoClient, args: argparse.Namespace) -> int:

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
            out(
                f"operation {answer.operation_id} accepted; its status: "
                f"mnemo operations --bank {args.bank} {answer.operation_id}"
            )
            return
        for outcome in answer.items:
            out(
                f"document {outcome.document_id}: {outcome.status}, "
                f"{len(outcome.memory_ids)} memories"
            )
            for memory_id in outcome.memory_ids:
                out(f"  {memory_id}")
            for warning in outcome.warnings:
                err(f"warning: {warning}")

    return show(args, answer, readable)


def _operation(client: MnemoClient, args: argparse.Namespace) -> int:

    if args.operation_id:
        op = client.operation(args.bank, args.operation_id)
        return show(args, op, lambda: fields(sys.stdout, msgspec.structs.asdict(op)))
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
        for o in page.operations
    ]
    return show(args, page, lambda: table(sys.stdout, rows))


def _recall(client: MnemoClient, args: argparse.Namespace) -> int:

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
            "entities": list(r.entities),
        }
        for rank, r in enumerate(answer.results, 1)
    ]
    return show(
        args,
        answer,
        lambda: table(sys.stdout, rows, widths={"text": 90, "entities": 40}),
    )


def _reflect(client: MnemoClient, args: argparse.Namespace) -> int:

    request = ReflectRequest(
        query=args.query,
        budget=args.budget,
        fact_types=args.type or None,
        tags=args.tag or None,
        tags_match=args.tags_match,
        query_timestamp=args.at,
        include=ReflectInclude(facts={}),
    )
    answer = client.reflect(args.bank, request)
    return show(args, answer, lambda: out(answer.text))


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

    return show_page(args, page, rows, widths={"text": 90})


def _print_memory(m: Memory) -> None:

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
        {"entity": e.id, "name": e.name, "type": e.type, "mention": e.mention} for e in m.mentions
    ]
    if rows:
        out()
        table(sys.stdout, rows)


def _memories_show(client: MnemoClient, args: argparse.Namespace) -> int:
    memory = client.memory(args.bank, args.memory_id)
    return show(args, memory, lambda: _print_memory(memory))


def _memories_history(client: MnemoClient, args: argparse.Namespace) -> int:

    history = client.memory_history(args.bank, args.memory_id)
    rows = [
        {"at": r.at, "kind": r.kind, "fields": r.fields, "reason": r.reason, "before": r.before}
        for r in history.items
    ]
    return show(args, history, lambda: table(sys.stdout, rows))


def _memories_state(client: MnemoClient, args: argparse.Namespace) -> int:
    if args.action == "invalidate":
        memory = client.invalidate_memory(args.bank, args.memory_id, args.reason)
    else:
        memory = client.restore_memory(args.bank, args.memory_id, args.reason)
    return show(args, memory, lambda: out(f"memory {memory.id}: {memory.state}"))


def _add_retain(sub: Subcommands) -> None:
    retain = sub.add_parser(
        "retain",
        parents=[common_options()],
        help="retain text given as an argument, a file or stdin",
    )
    retain.add_argument("text", nargs="?", help="the content ('-' or nothing: read stdin)")
    retain.add_argument("--file", "-f", help="read the content from this file")
    retain.add_argument("--document-id", help="stable id: the same id and content is a no-op")
    retain.add_argument("--context", help="what the content is (e.g. 'support chat')")
    retain.add_argument("--tag", action="append", help="a tag (repeat for several)")
    retain.add_argument(
        "--timestamp", type=timestamp, help="when it was said or written (ISO 8601)"
    )
    retain.add_argument(
        "--metadata", type=key_value, action="append", help="KEY=VALUE (repeat for several)"
    )
    retain.add_argument(
        "--entity", action="append", help="an entity it names, NAME or NAME:TYPE (repeatable)"
    )
    retain.add_argument(
        "--async", dest="run_async", action="store_true", help="answer at once with an operation id"
    )
    retain.set_defaults(handler=with_client(_retain))
    operation = sub.add_parser(
        "operations",
        parents=[common_options()],
        help="status of async retains (one, or the latest)",
    )
    operation.add_argument("operation_id", nargs="?")
    operation.add_argument("--limit", type=int, default=20)
    operation.set_defaults(handler=with_client(_operation))


def _add_recall(sub: Subcommands) -> None:
    recall = sub.add_parser(
        "recall", parents=[common_options()], help="the memories relevant to a query"
    )
    recall.add_argument("query")
    recall.add_argument("--budget", choices=get_args(Budget), default="mid")
    recall.add_argument("--max-tokens", type=int, default=4096, help="answer size (default 4096)")
    recall.add_argument("--type", action="append", choices=FACT_TYPES, help="fact types to keep")
    recall.add_argument("--tag", action="append", help="tags to filter by (repeatable)")
    recall.add_argument("--tags-match", choices=TAGS_MATCH_MODES, default="any")
    recall.add_argument("--at", type=timestamp, help="'now' for relative dates in the query")
    recall.add_argument("--trace", action="store_true", help="explain the ranking (with --json)")
    recall.set_defaults(handler=with_client(_recall))
    reflect = sub.add_parser(
        "reflect",
        parents=[common_options()],
        help="an answer from the bank, each statement citing its memory",
    )
    reflect.add_argument("query")
    reflect.add_argument("--budget", choices=get_args(Budget), default="mid")
    reflect.add_argument("--type", action="append", choices=FACT_TYPES, help="fact types to read")
    reflect.add_argument("--tag", action="append", help="tags to filter by (repeatable)")
    reflect.add_argument("--tags-match", choices=TAGS_MATCH_MODES, default="any")
    reflect.add_argument("--at", type=timestamp, help="'now' for relative dates in the query")
    reflect.set_defaults(handler=with_client(_reflect))


def _add_memories(sub: Subcommands) -> None:
    memories = sub.add_parser("memories", help="list, show, invalidate and restore memories")
    cmds = memories.add_subparsers(dest="memories_command", required=True)
    common = common_options()
    listing = cmds.add_parser("list", parents=[common], help="memories, newest first")
    listing.add_argument("--type", action="append", choices=FACT_TYPES)
    listing.add_argument("--query", "-q", help="full-text search over text and entity names")
    listing.add_argument("--state", choices=MEMORY_STATES)
    listing.add_argument("--document-id")
    listing.add_argument("--entity-id")
    listing.add_argument("--tag", action="append")
    listing.add_argument("--tags-match", choices=TAGS_MATCH_MODES, default="any")
    paging(listing)
    listing.set_defaults(handler=with_client(_memories_list))
    for name, run, text in (
        ("show", _memories_show, "one memory with its entities"),
        ("history", _memories_history, "every edit and state change of a memory"),
    ):
        command = cmds.add_parser(name, parents=[common], help=text)
        command.add_argument("memory_id")
        command.set_defaults(handler=with_client(run))
    for action, text in (
        ("invalidate", "take a memory out of recall (kept for audit)"),
        ("restore", "put an invalidated memory back"),
    ):
        command = cmds.add_parser(action, parents=[common], help=text)
        command.add_argument("memory_id")
        command.add_argument("--reason", help="recorded with the change")
        command.set_defaults(handler=with_client(_memories_state), action=action)


def add_commands(sub: Subcommands) -> None:
    """``retain``, ``operations``, ``recall``, ``reflect`` and ``memories``."""
    _add_retain(sub)
    _add_recall(sub)
    _add_memories(sub)
