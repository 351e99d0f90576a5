"""The ``mnemo`` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from app.config import SettingsError, load_settings
from app.errors import MnemoError


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

    import msgspec

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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        code: int = args.handler(args)
    except (SettingsError, MnemoError) as exc:
        sys.stderr.write(f"mnemo: {exc}\n")
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
