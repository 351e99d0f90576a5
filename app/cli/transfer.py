"""``mnemo import`` and ``mnemo export``: JSONL in and out of a bank."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.common import Subcommands, common_options, err, out, with_client
from app.cli.output import ProgressBar, write_json
from app.client import MnemoClient
from app.transfer import DEFAULT_BATCH_SIZE, ImportReport, export_bank, import_lines


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def _import(client: MnemoClient, args: argparse.Namespace) -> int:

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


def _print_import(report: ImportReport) -> None:
    out(
        f"imported {report.retained} of {report.items} items into {report.bank_id}: "
        f"{report.memories} memories"
    )
    if report.format == "export":
        out(
            f"matched {report.matched} exported memories ({len(report.unmatched)} not "
            f"reproduced); {report.edited} edited, {report.invalidated} invalidated, "
            f"{report.splits} splits, {report.merges} merges, {report.reviews} reviews decided, "
            f"{report.mental_models} mental models created"
        )
    for failure in report.failed:
        where = f" (document {failure.document_id})" if failure.document_id else ""
        err(f"line {failure.line}{where}: {failure.error}")
    for error in report.repair_errors:
        err(f"error: {error}")
    for note in report.notes:
        err(f"note: {note}")


def _export(client: MnemoClient, args: argparse.Namespace) -> int:

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
    err(
        f"exported {summary.bank_id}: {summary.documents} documents, {summary.memories} "
        f"memories, {summary.entities} entities, {summary.reviews} reviews, "
        f"{summary.merges} merge records, {summary.mental_models} mental models"
    )
    return 0


def add_commands(sub: Subcommands) -> None:
    """``import`` and ``export``."""
    imp = sub.add_parser(
        "import",
        parents=[common_options(json=True)],
        help="import JSONL: retain items, or a `mnemo export` into a new bank",
    )
    imp.add_argument("file", help="a JSONL file ('-': stdin)")
    imp.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH_SIZE,
        help=f"items per retain request (default {DEFAULT_BATCH_SIZE})",
    )
    imp.set_defaults(handler=with_client(_import))
    exp = sub.add_parser("export", parents=[common_options(json=False)], help="a bank to JSONL")
    exp.add_argument("--output", "-o", help="write here (default stdout)")
    exp.set_defaults(handler=with_client(_export))
