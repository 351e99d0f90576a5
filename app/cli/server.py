"""Commands of the server side: ``serve``, ``worker``, ``reconcile``, ``cypher``, ``mcp`` (stdio).

``mcp`` talks to a running service over HTTP, so it never opens the stores the service owns.

They import the server side (Neo4j driver, vector store, models) only when they run, so that
``mnemo --help`` and the client commands stay light.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import msgspec

from app.cli.common import Subcommands, UsageError, client_for, err
from app.cli.output import table, write_json
from app.client import MnemoClient
from app.config import load_settings


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app
    from app.store.data_lock import DataFolderLock
    from app.store.local_neo4j import ensure_local_neo4j

    overrides = {name: getattr(args, name) for name in ("host", "port") if getattr(args, name)}
    settings = load_settings(**overrides)
    settings.check_auth()
    if settings.qdrant_url is None:
        # Refuse before anything starts when another process owns the data folder.
        DataFolderLock.acquire(settings.data_path, probe=True).release()
    if settings.uses_local_neo4j:
        ensure_local_neo4j(settings)
    base = f"http://{settings.host}:{settings.port}"
    sys.stdout.write(
        f"Mnemo API        {base}/v1/default/banks\n"
        f"API docs         {base}/schema  (Swagger UI: {base}/schema/swagger)\n"
        f"Neo4j            {settings.bolt_uri}\n"
        + (f"Neo4j Browser    {settings.browser_url}\n" if settings.browser_url else "")
        + (
            "API keys         required (mnemo keys create --admin)\n"
            if settings.auth_required
            else "API keys         off (loopback only; MNEMO_AUTH=required turns them on)\n"
        )
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


def _worker(args: argparse.Namespace) -> int:
    import asyncio
    import contextlib

    from app.runtime import Runtime
    from app.store.local_neo4j import ensure_local_neo4j

    settings = load_settings()
    if settings.uses_local_neo4j:
        ensure_local_neo4j(settings)

    async def run() -> int:
        async with Runtime.open(settings, background=False) as runtime:
            worker = runtime.worker
            sys.stderr.write(f"consolidation worker {worker.owner} on {settings.bolt_uri}\n")
            # Its consolidation.completed events go to the bank's webhooks from this process.
            await runtime.events.start(resume=False)
            try:
                if args.once:
                    handled = await worker.run_until_idle(timeout_s=args.timeout)
                    sys.stderr.write(f"{handled} facts consolidated\n")
                    await runtime.events.wait_idle()
                    return 0
                await worker.start()
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.Event().wait()
                await worker.stop()
            finally:
                await runtime.events.stop()
        return 0

    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(run())
    return 0


def _reconcile(args: argparse.Namespace) -> int:
    import asyncio

    from app.runtime import Runtime
    from app.store.data_lock import DataFolderInUse
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

    try:
        answer = asyncio.run(run())
    except DataFolderInUse as exc:
        # A running service owns the embedded shard: it does the work.
        url = args.url or exc.owner.get("url")
        if not url:
            raise
        err(
            f"mnemo: a service (pid {exc.owner.get('pid', '?')}) owns the data folder; "
            f"asking it to reconcile at {url}"
        )
        key = args.key or settings.api_key
        with MnemoClient(url, api_key=key) as client:
            body = {"bank_id": args.bank} if args.bank else {}
            answer = client.send("POST", "/v1/admin/reconcile", body=body).decode()
    sys.stdout.write(answer + "\n")
    return 0


def _cypher(args: argparse.Namespace) -> int:
    import asyncio

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
        graph = Graph.from_settings(settings, registry)
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


def _mcp(args: argparse.Namespace) -> int:
    from app.mcp.backend import HttpBackend
    from app.mcp.server import build_server

    with client_for(args) as client:
        build_server(HttpBackend(client), bank=args.bank).run("stdio")
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


def _add_cypher(sub: Subcommands) -> None:
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


def add_commands(sub: Subcommands) -> None:
    """``serve``, ``worker``, ``reconcile`` and ``cypher``."""
    serve = sub.add_parser("serve", help="run the HTTP API (starts the local Neo4j if needed)")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8888)")
    serve.set_defaults(handler=_serve)
    worker = sub.add_parser(
        "worker",
        help="run the consolidation worker on its own (several may run at once; with the "
        "embedded Qdrant Edge, not beside a running service: use MNEMO_QDRANT_URL)",
    )
    worker.add_argument("--once", action="store_true", help="consolidate what is due, then exit")
    worker.add_argument(
        "--timeout", type=float, default=3600.0, help="with --once: stop after this many seconds"
    )
    worker.set_defaults(handler=_worker)
    reconcile = sub.add_parser(
        "reconcile",
        help="repair differences between Neo4j and the vector store (a running service that "
        "owns the data folder is asked to do it)",
    )
    reconcile.add_argument("--bank", default=None, help="only this bank")
    reconcile.add_argument(
        "--url", default=None, help="the running service (default: what its lock file says)"
    )
    reconcile.add_argument(
        "--key", default=None, help="an admin key for that service (default MNEMO_API_KEY)"
    )
    reconcile.set_defaults(handler=_reconcile)
    _add_cypher(sub)
    mcp = sub.add_parser(
        "mcp",
        help="serve Mnemo's memory tools to an agent over MCP on stdin/stdout (talks to a "
        "running service at --url)",
    )
    mcp.add_argument(
        "--url", default=None, help="the Mnemo API (default http://MNEMO_HOST:MNEMO_PORT)"
    )
    mcp.add_argument(
        "--bank", "-b", default=None, help="fix every tool to this bank (default: an argument)"
    )
    mcp.add_argument(
        "--key",
        default=None,
        help="API key for the service, when it requires keys (default MNEMO_API_KEY)",
    )
    mcp.set_defaults(handler=_mcp)
