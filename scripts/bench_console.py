#!/usr/bin/env python3
"""Console page times on a generated bank, next to the API's JSON answer for the same listing.

The bank is the recall benchmark's generated world (``scripts/bench_recall.py``: recurring
people, places and organisations with Zipf popularity, event dates over three years, tags),
retained in ``chunks`` mode with caller entities, so hubs, neighbourhoods and long listings are
real. Then the app serves over loopback HTTP and every console page is loaded ``--repeat`` times
after a warm-up; the figure is the server time the page reports in its ``Server-Timing`` header
(the handler, its service calls and the template), p50 and p95 per page. The baseline is the
API's JSON listing of the same rows (``GET .../memories/list?limit=25`` and others), timed the
same way in the same run.

The app's services run against the Neo4j of ``--neo4j-uri`` / ``MNEMO_NEO4J_URI`` (default: the
test Neo4j on port 7697, started if needed). ``--data-dir`` and ``--bank`` keep the bank, so a
later run grows it or measures it again without rebuilding.

Usage (under the CPU lock, exclusive):
  flock -x /work/cpu.lock .venv/bin/python scripts/bench_console.py [--facts 20000]
      [--repeat 15] [--seed N] [--data-dir DIR --bank ID] [--small] [--json out.json]

``--seed N`` retains N facts and fills the bank up to ``--facts`` with dated copies of them
(documents, chunks, facts and mentions; no vectors, no links between facts): retain runs at
~100 facts/s here, so 100k retained facts would take ~17 minutes of the shared CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings, load_settings  # noqa: E402
from app.curate.schemas.banks import BankUpdate  # noqa: E402
from app.embedded import serve_in_thread  # noqa: E402
from app.runtime import Runtime  # noqa: E402
from app.store.graph import Tx  # noqa: E402
from scripts.bench_recall import World  # noqa: E402
from scripts.bench_support import benchmark_neo4j_auth, benchmark_neo4j_uri  # noqa: E402

TIMING = re.compile(r"app;dur=([0-9.]+)")


def settings_for(args: argparse.Namespace, data_dir: Path) -> Settings:
    return load_settings(
        {},
        data_dir=str(data_dir),
        neo4j_uri=benchmark_neo4j_uri(args.neo4j_uri),
        max_items_per_request=max(args.batch, 1000),
        # Page times are measured on a quiet service: consolidating the new bank's backlog in
        # the background would take the CPU the pages are timed on.
        consolidation_worker=False,
        **benchmark_neo4j_auth(),
    )


async def build(settings: Settings, bank: str, facts: int, batch: int, seed: int | None) -> int:
    """Grow ``bank`` to ``facts`` facts (the generator continues where a kept bank stopped).

    With ``seed``, only ``seed`` facts are retained; the rest are copies of them
    (``bench/replicate``), each copy dated a day earlier than the last.
    """
    world = World()
    retained = min(seed or facts, facts)
    async with Runtime.open(settings, background=False) as runtime:
        await runtime.banks.put(bank, BankUpdate(name=bank, retain_extraction_mode="chunks"))
        written = await runtime.vectors.count(bank)
        for _ in range(written):
            world.fact()
        while written < retained:
            items = [world.fact() for _ in range(min(batch, retained - written))]
            await runtime.retainer.retain(bank, items)
            written += len(items)
            print(f"  {written} facts", file=sys.stderr, flush=True)
        await runtime.vectors.optimize()
        if seed is None:
            return written
        counts = (await runtime.banks.get(bank)).counts
        total = counts.memories
        if total < facts:  # a bank built before is measured as it is
            for copy in range(1, facts // written):
                await replicate(runtime, bank, copy, counts.documents, batch)
                total += written
                print(f"  {total} facts (copy {copy})", file=sys.stderr, flush=True)
        return total


async def replicate(runtime: Runtime, bank: str, copy: int, documents: int, batch: int) -> None:
    """One copy of the bank's retained documents with their chunks, facts and mentions."""
    for offset in range(0, documents, batch):

        async def work(tx: Tx, offset: int = offset) -> None:
            await tx.run(
                "bench/replicate",
                {"bank_id": bank, "copy": copy, "offset": offset, "limit": batch},
            )

        await runtime.graph.write(bank, work)


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def timed(client: httpx.Client, path: str, repeat: int) -> dict[str, Any]:
    """Server time (Server-Timing when the answer has it) and wall time of ``repeat`` loads."""
    server: list[float] = []
    wall: list[float] = []
    for i in range(repeat + 2):
        started = time.perf_counter()
        response = client.get(path)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code} {response.text[:300]}")
        if i < 2:  # warm-up: template compilation, caches
            continue
        wall.append(elapsed)
        found = TIMING.search(response.headers.get("server-timing", ""))
        server.append(float(found.group(1)) if found else elapsed)
    return {
        "server_p50": pct(server, 0.5),
        "server_p95": pct(server, 0.95),
        "wall_p50": pct(wall, 0.5),
        "bytes": len(response.content),
    }


def pages(client: httpx.Client, bank: str) -> dict[str, str]:
    """The console pages to time, with real ids from the bank (a hub entity, a fact, a document)."""
    api = f"/v1/default/banks/{bank}"
    hub = client.get(f"{api}/entities/", params={"limit": 1}).json()["items"][0]["id"]
    # The newest retained fact (an observation has no document).
    newest = client.get(f"{api}/memories/list", params={"limit": 1, "type": "world"}).json()
    newest = newest["items"][0]
    document = quote(newest["document_id"])
    base = f"/console/banks/{bank}"
    # Page 41 by cursor, where the API gives one (a listing that pages by keyset).
    deep = client.get(f"{api}/memories/list", params={"limit": 1000}).json().get("next_cursor")
    by_cursor = {"timeline page 41 by cursor": f"{base}/memories/?cursor={deep}"} if deep else {}
    return {
        "banks": "/console/",
        "overview": f"{base}/",
        "overview by event day": f"{base}/?by=occurred",
        "timeline": f"{base}/memories/",
        "timeline page 40": f"{base}/memories/?offset=1000",
        **by_cursor,
        "timeline type=world": f"{base}/memories/?type=world",
        "timeline text search": f"{base}/memories/?q=budget",
        "timeline tag": f"{base}/memories/?tag=travel",
        "timeline hub entity": f"{base}/memories/?entity={hub}",
        "memory": f"{base}/memories/{newest['id']}",
        "documents": f"{base}/documents/",
        "document": f"{base}/documents/{document}",
        "entities": f"{base}/entities/",
        "entity (hub)": f"{base}/entities/{hub}",
        "reviews": f"{base}/reviews/",
        "audit": f"{base}/audit/",
        "recall": f"{base}/recall/?q=What+did+the+team+say+about+the+budget",
        # Baselines: the API's JSON for the same rows.
        "API: memories list (baseline)": f"{api}/memories/list?limit=25",
        "API: hub entity's facts (baseline)": f"{api}/memories/list?limit=20&entity_id={hub}",
        "API: entities list (baseline)": f"{api}/entities/?limit=25",
        "API: bank stats (baseline)": f"{api}/stats",
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    persistent = args.data_dir is not None
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="mnemo-bench-console-"))
    settings = settings_for(args, data_dir)
    bank = args.bank or f"bench-console-{uuid.uuid4().hex[:8]}"
    try:
        started = time.perf_counter()
        facts = asyncio.run(build(settings, bank, args.facts, args.batch, args.seed))
        build_s = round(time.perf_counter() - started, 1)
        with serve_in_thread(settings) as url, httpx.Client(base_url=url, timeout=120) as client:
            rows = {
                name: timed(client, path, args.repeat) for name, path in pages(client, bank).items()
            }
            if not args.keep and not persistent:
                client.delete(f"/v1/default/banks/{bank}")
    finally:
        if not persistent:
            shutil.rmtree(data_dir, ignore_errors=True)
    return {"bank": bank, "facts": facts, "build_s": build_s, "repeat": args.repeat, "pages": rows}


def print_table(report: dict[str, Any]) -> None:
    print(f"console page times at {report['facts']} facts ({report['repeat']} loads each, ms)")
    print(f"{'page':<38} {'server p50':>10} {'p95':>7} {'wall p50':>9} {'KB':>6}")
    for name, row in report["pages"].items():
        print(
            f"{name:<38} {row['server_p50']:>10} {row['server_p95']:>7} {row['wall_p50']:>9} "
            f"{row['bytes'] / 1024:>6.0f}"
        )
    console = [r["server_p95"] for n, r in report["pages"].items() if not n.startswith("API")]
    print(
        f"slowest console page p95: {max(console)} ms; "
        f"median page p95: {statistics.median(console)} ms"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--facts", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--batch", type=int, default=2000, help="items per retain call")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="retain this many facts and fill the rest with copies of them (a fast fill)",
    )
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--small", action="store_true", help="CI size: 500 facts, 3 loads")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the bank afterwards")
    parser.add_argument("--data-dir", type=Path, default=None, help="persistent data dir")
    parser.add_argument("--bank", default=None, help="bank id to create, grow or re-measure")
    args = parser.parse_args(argv)
    if args.small:
        args.facts, args.repeat, args.batch = 500, 3, 500
    report = run(args)
    print_table(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
