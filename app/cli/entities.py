"""``mnemo entities``: inspect entities, repair resolution, decide reviews."""

from __future__ import annotations

import argparse
import sys
from typing import get_args

from app.cli.common import Subcommands, common_options, out, paging, show, show_page, with_client
from app.cli.output import fields, table
from app.client import MnemoClient
from app.curate.schemas.entities import (
    EntityChange,
    EntityDetail,
    EntityMergeRecord,
    RecordKind,
)
from app.curate.schemas.reviews import ReviewFilter, ReviewVerdict


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

    return show_page(args, page, rows)


def _print_entity(e: EntityDetail) -> None:

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
    out()
    table(
        sys.stdout,
        [
            {"name": n.name, "source": n.source, "facts": n.memory_count, "surfaces": n.surfaces}
            for n in e.names
        ],
    )
    if e.neighbours:
        out()
        table(
            sys.stdout, [{"neighbour": n.name, "id": n.id, "facts": n.count} for n in e.neighbours]
        )


def _entities_show(client: MnemoClient, args: argparse.Namespace) -> int:
    entity = client.get_entity(args.bank, args.entity_id, neighbours=args.neighbours)
    return show(args, entity, lambda: _print_entity(entity))


def _print_change(change: EntityChange) -> None:
    record = change.record
    out(f"{record.kind} {record.id} ({record.state})")
    for entity in change.entities:
        out(f"  {entity.id}  {entity.name}  ({entity.mention_count} mentions)")


def _entities_merge(client: MnemoClient, args: argparse.Namespace) -> int:
    change = client.merge_entity(args.bank, args.entity_id, args.into, args.reason)
    return show(args, change, lambda: _print_change(change))


def _entities_split(client: MnemoClient, args: argparse.Namespace) -> int:
    change = client.split_entity(
        args.bank, args.entity_id, args.memory, args.reason, name=args.name
    )
    return show(args, change, lambda: _print_change(change))


def _entities_revert(client: MnemoClient, args: argparse.Namespace) -> int:
    change = client.revert_entity_merge(args.bank, args.merge_id, args.reason)
    return show(args, change, lambda: _print_change(change))


def _entities_merges(client: MnemoClient, args: argparse.Namespace) -> int:

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
    return show(args, page, lambda: table(sys.stdout, rows))


def _record_summary(r: EntityMergeRecord) -> str:
    if r.kind == "merge":
        return f"{r.gone_name} → {r.keep_name}"
    if r.kind == "split":
        return f"{r.source_name} → {r.created_name} ({len(r.memory_ids)} facts)"
    return f"reverts {r.reverts_kind} {r.reverts}"


def _entities_reviews(client: MnemoClient, args: argparse.Namespace) -> int:

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
    return show(args, page, lambda: table(sys.stdout, rows))


def _entities_decide(client: MnemoClient, args: argparse.Namespace) -> int:
    outcome = client.decide_review(args.bank, args.review_id, args.decision, args.reason)
    merged = f", merge {outcome.merge.id}" if outcome.merge else ""
    return show(
        args, outcome, lambda: out(f"review {outcome.review.id}: {outcome.review.status}{merged}")
    )


def _entities_graph(client: MnemoClient, args: argparse.Namespace) -> int:

    graph = client.entity_graph(
        args.bank, limit=args.limit, min_count=args.min_count, entity_type=args.type
    )
    names = {n.id: n.name for n in graph.nodes}
    rows = [
        {"a": names.get(e.source, e.source), "b": names.get(e.target, e.target), "facts": e.count}
        for e in graph.edges
    ]
    return show(args, graph, lambda: table(sys.stdout, rows))


def add_commands(sub: Subcommands) -> None:
    """``entities list | show | merge | split | revert | merges | reviews | decide | graph``."""
    entities = sub.add_parser("entities", help="inspect entities and repair resolution")
    cmds = entities.add_subparsers(dest="entities_command", required=True)
    common = common_options()
    listing = cmds.add_parser("list", parents=[common], help="entities, most mentioned first")
    listing.add_argument("--name", help="any of the entity's names")
    listing.add_argument("--type")
    paging(listing)
    listing.set_defaults(handler=with_client(_entities_list))
    show = cmds.add_parser("show", parents=[common], help="names, neighbours, reviews")
    show.add_argument("entity_id")
    show.add_argument("--neighbours", type=int, default=10)
    show.set_defaults(handler=with_client(_entities_show))
    merge = cmds.add_parser("merge", parents=[common], help="fold an entity into another")
    merge.add_argument("entity_id")
    merge.add_argument("--into", required=True, help="the entity that stays")
    merge.add_argument("--reason", required=True)
    merge.set_defaults(handler=with_client(_entities_merge))
    split = cmds.add_parser("split", parents=[common], help="move some facts to a new entity")
    split.add_argument("entity_id")
    split.add_argument("--memory", action="append", required=True, help="a memory id (repeat)")
    split.add_argument("--name", help="the new entity's name")
    split.add_argument("--reason", required=True)
    split.set_defaults(handler=with_client(_entities_split))
    revert = cmds.add_parser("revert", parents=[common], help="undo a merge or split")
    revert.add_argument("merge_id")
    revert.add_argument("--reason", required=True)
    revert.set_defaults(handler=with_client(_entities_revert))
    merges = cmds.add_parser("merges", parents=[common], help="audit trail of repairs")
    merges.add_argument("--kind", choices=get_args(RecordKind))
    merges.add_argument("--entity-id")
    paging(merges)
    merges.set_defaults(handler=with_client(_entities_merges))
    reviews = cmds.add_parser("reviews", parents=[common], help="pairs awaiting a decision")
    reviews.add_argument("--status", choices=get_args(ReviewFilter), default="open")
    paging(reviews)
    reviews.set_defaults(handler=with_client(_entities_reviews))
    decide = cmds.add_parser("decide", parents=[common], help="decide a review")
    decide.add_argument("review_id")
    decide.add_argument("decision", choices=get_args(ReviewVerdict))
    decide.add_argument("--reason")
    decide.set_defaults(handler=with_client(_entities_decide))
    graph = cmds.add_parser("graph", parents=[common], help="co-occurrence edges")
    graph.add_argument("--limit", type=int, default=100, help="entities (most mentioned)")
    graph.add_argument("--min-count", type=int, default=1)
    graph.add_argument("--type")
    graph.set_defaults(handler=with_client(_entities_graph))
