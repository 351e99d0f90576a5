"""The ``mnemo`` command line.

``serve`` runs the API and ``reconcile`` repairs the stores; ``cypher`` runs an analytics
query and ``keys`` manages API keys, both straight against Neo4j (``server``, ``keys``).
Every other command is a thin wrapper over
:class:`app.client.MnemoClient` talking to a running service: ``--url`` (default
``http://MNEMO_HOST:MNEMO_PORT``). Results go to stdout (a readable table, or ``--json``),
progress and messages to stderr. Exit status: 0 on success, 1 when the service refused something
or an import had failures, 2 for usage and configuration errors.

One module per group of commands, each with its ``add_commands``; ``common`` holds what they
share and ``output`` the plain-text printers.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

import httpx
import msgspec

from app.cli import banks, documents, entities, keys, memories, server, transfer
from app.cli.common import UsageError, err
from app.client import ApiError
from app.config import SettingsError
from app.errors import MnemoError
from app.transfer import ImportRefused

DISTRIBUTION = "mnemo-server"


def build_parser() -> argparse.ArgumentParser:
    """All sub-commands."""
    parser = argparse.ArgumentParser(prog="mnemo", description="Long-term memory for AI agents.")
    parser.add_argument("--version", action="version", version=f"mnemo {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in (server, keys, banks, memories, documents, entities, transfer):
        group.add_commands(sub)
    completion = sub.add_parser(
        "completion",
        help="print a shell completion script (e.g. `mnemo completion bash > "
        "~/.local/share/bash-completion/completions/mnemo`)",
    )
    completion.add_argument("shell", choices=("bash", "zsh", "tcsh"))
    completion.set_defaults(handler=lambda args: _completion(parser, args.shell))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        code: int = args.handler(args)
    except (SettingsError, UsageError, ImportRefused) as exc:
        err(f"mnemo: {exc}")
        return 2
    except ApiError as exc:
        extra = f" {msgspec.json.encode(exc.extra).decode()}" if exc.extra else ""
        err(f"mnemo: {exc.status_code} {exc.detail}{extra}")
        return 1
    except httpx.TransportError as exc:
        err(f"mnemo: cannot reach the Mnemo API ({exc}); is `mnemo serve` running? (--url)")
        return 1
    except MnemoError as exc:
        err(f"mnemo: {exc}")
        return 2 if exc.status_code < 500 else 1
    except BrokenPipeError:
        return 1
    return code


def _version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        from app import __version__

        return __version__


def _completion(parser: argparse.ArgumentParser, shell: str) -> int:
    import shtab

    sys.stdout.write(shtab.complete(parser, shell=shell))
    return 0
