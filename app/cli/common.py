"""What every client command shares: options, the client, printing a result or a page."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeAlias

import msgspec

from app.cli.output import table, write_json
from app.client import MnemoClient
from app.config import Settings, load_settings

Handler = Callable[[argparse.Namespace], int]
# What ``add_commands`` receives: the top-level parser's sub-command group.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class Page(Protocol):
    """A page of a listing, as every ``*Page`` Struct of the API is."""

    @property
    def items(self) -> Sequence[object]:
        """The items of this page."""
        ...

    @property
    def total(self) -> int:
        """Items in the whole listing."""
        ...

    @property
    def offset(self) -> int:
        """Items before this page."""
        ...


class UsageError(Exception):
    """The command line asks for something impossible (exit status 2)."""


def out(text: str = "") -> None:
    """Write a line to stdout."""
    sys.stdout.write(text + "\n")


def err(text: str) -> None:
    """Write a line to stderr."""
    sys.stderr.write(text + "\n")


def default_url(settings: Settings) -> str:
    """Where ``mnemo serve`` listens with these settings (wildcard addresses → loopback)."""
    host = settings.host
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"


def client_for(args: argparse.Namespace) -> MnemoClient:
    """A client for ``--url`` (default: where ``mnemo serve`` listens) and ``--key``."""
    settings = load_settings()
    key = getattr(args, "key", None) or settings.api_key
    return MnemoClient(args.url or default_url(settings), api_key=key)


def with_client(run: Callable[[MnemoClient, argparse.Namespace], int]) -> Handler:
    """A handler that opens a client, runs, and closes it."""

    def handler(args: argparse.Namespace) -> int:
        with client_for(args) as client:
            return run(client, args)

    return handler


def show(args: argparse.Namespace, value: Any, readable: Callable[[], None]) -> int:
    """Print ``value`` as JSON with ``--json``, else run ``readable``."""
    if getattr(args, "json", False):
        write_json(sys.stdout, value)
    else:
        readable()
    return 0


def show_page(
    args: argparse.Namespace,
    page: Page,
    rows: list[dict[str, Any]],
    widths: dict[str, int] | None = None,
) -> int:
    """A page of items: JSON, or a table of ``rows`` and a "N of TOTAL" line on stderr."""

    def readable() -> None:
        table(sys.stdout, rows, widths=widths)
        err(f"{len(page.items)} of {page.total} (offset {page.offset})")

    return show(args, page, readable)


def timestamp(value: str) -> datetime:
    """An ISO 8601 date-time (``2024-05-08T13:56:00Z``) or date."""
    try:
        return msgspec.convert(value, datetime)
    except msgspec.ValidationError:
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an ISO 8601 date-time: {value!r}") from None


def key_value(value: str) -> tuple[str, str]:
    """A ``KEY=VALUE`` argument."""
    key, sep, rest = value.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {value!r}")
    return key, rest


def common_options(*, bank: bool = True, json: bool = True) -> argparse.ArgumentParser:
    """Options every client command takes."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--url", default=None, help="the Mnemo API (default http://MNEMO_HOST:MNEMO_PORT)"
    )
    parent.add_argument(
        "--key", default=None, help="API key sent as a bearer token (default MNEMO_API_KEY)"
    )
    if bank:
        parent.add_argument("--bank", "-b", required=True, help="the bank id")
    if json:
        parent.add_argument("--json", action="store_true", help="print the raw JSON answer")
    return parent


def paging(parser: argparse.ArgumentParser, limit: int = 50) -> None:
    """Add ``--limit`` and ``--offset``."""
    parser.add_argument("--limit", type=int, default=limit, help=f"page size (default {limit})")
    parser.add_argument("--offset", type=int, default=0, help="items to skip")
