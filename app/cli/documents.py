"""``mnemo documents``: list, show, delete and reprocess documents."""

from __future__ import annotations

import argparse
import sys

from app.cli.common import Subcommands, common_options, out, paging, show, with_client
from app.cli.output import fields, table
from app.client import MnemoClient


def _documents_list(client: MnemoClient, args: argparse.Namespace) -> int:

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
    return show(args, page, lambda: table(sys.stdout, rows))


def _documents_show(client: MnemoClient, args: argparse.Namespace) -> int:

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
        out()
        out(document.original_text)

    return show(args, document, readable)


def _documents_delete(client: MnemoClient, args: argparse.Namespace) -> int:
    deleted = client.delete_document(args.bank, args.document_id)
    return show(
        args,
        deleted,
        lambda: out(
            f"deleted document {deleted.document_id}: {deleted.deleted_memories} memories, "
            f"{deleted.deleted_entities} entities"
        ),
    )


def _documents_reprocess(client: MnemoClient, args: argparse.Namespace) -> int:
    done = client.reprocess_document(args.bank, args.document_id)
    return show(
        args,
        done,
        lambda: out(
            f"reprocessed document {done.document_id} ({done.extraction_mode}): "
            f"{done.deleted_memories} memories replaced by {len(done.memory_ids)}"
        ),
    )


def add_commands(sub: Subcommands) -> None:
    """``documents list | show | delete | reprocess``."""
    documents = sub.add_parser("documents", help="list, show, delete and reprocess documents")
    cmds = documents.add_subparsers(dest="documents_command", required=True)
    common = common_options()
    listing = cmds.add_parser("list", parents=[common], help="documents, newest first")
    listing.add_argument(
        "--empty",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="only documents that produced no memory (--no-empty: the others)",
    )
    paging(listing)
    listing.set_defaults(handler=with_client(_documents_list))
    for name, run, text in (
        ("show", _documents_show, "a document's original text and fields"),
        ("delete", _documents_delete, "delete a document and its memories"),
        ("reprocess", _documents_reprocess, "extract a document again"),
    ):
        command = cmds.add_parser(name, parents=[common], help=text)
        command.add_argument("document_id")
        command.set_defaults(handler=with_client(run))
