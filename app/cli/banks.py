"""``mnemo banks``: list, create, show and delete banks."""

from __future__ import annotations

import argparse
import sys

import msgspec

from app.cli.common import Subcommands, UsageError, common_options, err, out, show, with_client
from app.cli.output import fields, table
from app.client import MnemoClient
from app.curate.schemas.banks import Bank, BankUpdate
from app.domain.banks import EXTRACTION_MODES


def _banks_list(client: MnemoClient, args: argparse.Namespace) -> int:

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
    return show(args, banks, lambda: table(sys.stdout, rows))


def _print_bank(bank: Bank) -> None:

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

    values = {
        "name": args.name,
        "retain_extraction_mode": args.mode,
        "retain_mission": args.mission,
        "description": args.description,
    }
    update = msgspec.convert({k: v for k, v in values.items() if v is not None}, BankUpdate)
    bank = client.put_bank(args.bank_id, update)
    return show(args, bank, lambda: _print_bank(bank))


def _banks_show(client: MnemoClient, args: argparse.Namespace) -> int:
    bank = client.get_bank(args.bank_id)
    return show(args, bank, lambda: _print_bank(bank))


def _banks_delete(client: MnemoClient, args: argparse.Namespace) -> int:
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(f"deleting bank {args.bank_id!r} needs --yes")
        sys.stderr.write(f"Delete bank {args.bank_id!r} and everything it holds? [y/N] ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            err("not deleted")
            return 1
    deleted = client.delete_bank(args.bank_id)
    return show(
        args,
        deleted,
        lambda: out(
            f"deleted bank {deleted.bank_id}: {deleted.deleted_nodes} nodes, "
            f"{deleted.deleted_vectors} vectors"
        ),
    )


def add_commands(sub: Subcommands) -> None:
    """``banks list | create | show | delete``."""
    banks = sub.add_parser("banks", help="list, create, show and delete banks")
    cmds = banks.add_subparsers(dest="banks_command", required=True)
    common = common_options(bank=False)
    cmds.add_parser("list", parents=[common], help="every bank with its counts").set_defaults(
        handler=with_client(_banks_list)
    )
    create = cmds.add_parser(
        "create", parents=[common], help="create a bank (or update the options given)"
    )
    create.add_argument("bank_id")
    create.add_argument("--name", help="display name (default: the id)")
    create.add_argument(
        "--mode",
        choices=EXTRACTION_MODES,
        help="extraction mode (default local, or concise with an LLM)",
    )
    create.add_argument("--mission", help="what retain should keep (LLM modes)")
    create.add_argument("--description")
    create.set_defaults(handler=with_client(_banks_create))
    show = cmds.add_parser("show", parents=[common], help="a bank's configuration and counts")
    show.add_argument("bank_id")
    show.set_defaults(handler=with_client(_banks_show))
    delete = cmds.add_parser("delete", parents=[common], help="delete a bank and all it holds")
    delete.add_argument("bank_id")
    delete.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(handler=with_client(_banks_delete))
