"""``mnemo keys create|list|revoke``: API keys, straight against Neo4j.

These commands open Neo4j as ``mnemo cypher`` does (the local server's password, or
``MNEMO_NEO4J_*``), not the API: they work whether the service runs or not, and they make the
first admin key of a service that requires keys. A running service sees a new key at once and
a revoked one within seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from app.access.schemas import KeyCreate, KeyInfo
from app.cli.common import Subcommands, err, out
from app.cli.output import table, write_json
from app.config import load_settings

T = TypeVar("T")


def _with_keys(work: Callable[[Any], Awaitable[T]]) -> T:
    """Run ``work(KeyService)`` against the configured Neo4j."""
    from app.access.keys import KeyService
    from app.store.cypher import CypherRegistry
    from app.store.graph import Graph
    from app.store.local_neo4j import ensure_local_neo4j

    settings = load_settings()
    if settings.uses_local_neo4j:
        ensure_local_neo4j(settings)

    async def run() -> T:
        graph = Graph.from_settings(settings, CypherRegistry.load())
        try:
            for name in ("schema/api_key_id", "schema/api_key_hash"):
                await graph.run(name)
            return await work(KeyService(graph))
        finally:
            await graph.close()

    return asyncio.run(run())


def _rows(keys: list[KeyInfo]) -> list[dict[str, Any]]:
    return [
        {
            "id": k.id,
            "name": k.name,
            "scope": _scope(k),
            "created": k.created_at,
            "revoked": k.revoked_at,
        }
        for k in keys
    ]


def _scope(key: KeyInfo) -> str:
    if key.admin:
        return "admin"
    return f"{'read-only' if key.read_only else 'read-write'}: {', '.join(key.banks)}"


def _create(args: argparse.Namespace) -> int:
    request = KeyCreate(
        name=args.name, admin=args.admin, banks=list(args.bank or []), read_only=args.read_only
    )
    created = _with_keys(lambda keys: keys.create(request))
    if args.json:
        write_json(sys.stdout, created)
    else:
        out(created.key)
        err(f"key {created.info.id} ({_scope(created.info)}): shown this once, keep it safe")
    return 0


def _list(args: argparse.Namespace) -> int:
    page = _with_keys(lambda keys: keys.page())
    if args.json:
        write_json(sys.stdout, page)
    else:
        table(sys.stdout, _rows(page.items), widths={"scope": 60})
    return 0


def _revoke(args: argparse.Namespace) -> int:
    info = _with_keys(lambda keys: keys.revoke(args.id))
    if args.json:
        write_json(sys.stdout, info)
    else:
        err(f"revoked key {info.id}")
    return 0


def add_commands(sub: Subcommands) -> None:
    """``keys create``, ``keys list`` and ``keys revoke``."""
    keys = sub.add_parser(
        "keys", help="API keys (against Neo4j directly; the service need not run)"
    )
    group = keys.add_subparsers(dest="keys_command", required=True)
    create = group.add_parser("create", help="create a key and print it (shown once)")
    create.add_argument("--bank", "-b", action="append", help="a bank it may use (repeat)")
    create.add_argument("--read-only", action="store_true", help="read the banks, change nothing")
    create.add_argument(
        "--admin", action="store_true", help="every bank, bank creation and deletion, keys"
    )
    create.add_argument("--name", default=None, help="what the key is for")
    create.add_argument("--json", action="store_true", help="print {key, info} as JSON")
    create.set_defaults(handler=_create)
    listing = group.add_parser("list", help="every key (never the key itself)")
    listing.add_argument("--json", action="store_true", help="print the raw JSON")
    listing.set_defaults(handler=_list)
    revoke = group.add_parser("revoke", help="revoke a key by id")
    revoke.add_argument("id", help="the key's id (from `mnemo keys list`)")
    revoke.add_argument("--json", action="store_true", help="print the revoked key as JSON")
    revoke.set_defaults(handler=_revoke)
