#!/usr/bin/env python3
"""Where a 1-item retain's time goes: one client, one item a request, one after another.

Runs the retain pipeline in process (no HTTP) against a bank that already holds facts
(``--bank``; e.g. one that ``bench_load.py --data-dir DIR`` filled, with ``--data-dir DIR``),
and times, per request, the parts a small request pays for whatever it carries: the bank
configuration read, the stored-document lookup, extraction, embedding, the semantic search, the
write transaction (bank lock, resolution, statements), the publish (vector upsert, flush, links
transaction), and the Cypher statements sent. Prints the median of each part and of the whole.
The parts are timed where the code has them, so the same script measures the code before and
after a change (run it from either checkout with its own ``scripts/`` on the path).

``--clients N`` instead sends N clients' 1-item requests at once and prints the throughput,
the requests each group write took, and the time spent in each part per request (summed).

    .venv/bin/python scripts/profile_retain.py --data-dir .data/load --bank load-1
    .venv/bin/python scripts/profile_retain.py --data-dir .data/load --bank load-2 --clients 8
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import load_settings  # noqa: E402
from app.curate.banks import BankService  # noqa: E402
from app.retain.pipeline import RetainPipeline  # noqa: E402
from app.retain.schemas import RetainItem  # noqa: E402
from app.retain.semantic import SemanticLinkFinder  # noqa: E402
from app.runtime import Runtime  # noqa: E402
from app.store.embeddings import Embedder  # noqa: E402
from app.store.graph import Graph, Tx  # noqa: E402
from scripts.bench_retain import notes  # noqa: E402
from scripts.bench_support import benchmark_neo4j_auth  # noqa: E402

# What is timed: (label, owner, attribute). Inclusive times: the write holds the resolver; the
# publish holds the flush and (after the change) the semantic search.
PARTS: list[tuple[str, Any, str]] = [
    ("bank config", BankService, "config"),
    ("stored-document lookup", RetainPipeline, "_stored_documents"),
    ("prepare (lookup + extraction)", RetainPipeline, "_prepare"),
    ("embedding", Embedder, "embed"),
    ("semantic search", SemanticLinkFinder, "find"),
    ("write transaction (lock, resolution, statements)", RetainPipeline, "_write"),
    ("publish (search*, upsert, flush, links tx)", RetainPipeline, "_publish"),
]
COUNTED: list[tuple[str, Any, str]] = [
    ("statements in a transaction", Tx, "run"),
    ("statements outside one", Graph, "run"),
]


def timed(label: str, spent: dict[str, float], fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await fn(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - started

    return wrapper


def counted(
    label: str, counts: dict[str, int], by_name: dict[str, list[float]], fn: Callable[..., Any]
) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        counts[label] += 1
        started = time.perf_counter()
        try:
            return await fn(self, name, *args, **kwargs)
        finally:
            by_name[name].append(time.perf_counter() - started)

    return wrapper


async def run(args: argparse.Namespace) -> None:
    spent: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for label, owner, name in PARTS:
        if hasattr(owner, name):
            setattr(owner, name, timed(label, spent, getattr(owner, name)))
    by_name: dict[str, list[float]] = defaultdict(list)
    for label, owner, name in COUNTED:
        setattr(owner, name, counted(label, counts, by_name, getattr(owner, name)))
    settings = load_settings(
        {}, data_dir=args.data_dir, neo4j_uri=args.neo4j_uri, **benchmark_neo4j_auth()
    )
    per_request: dict[str, list[float]] = defaultdict(list)
    totals: list[float] = []
    tag = f"profile-{uuid.uuid4().hex[:8]}"
    stream = notes(seed=args.seed, start=datetime(2026, 6, 1, tzinfo=UTC) + timedelta(days=1))
    async with Runtime.open(settings, background=False) as runtime:
        await runtime.banks.get(args.bank)  # NotFound when the bank is not there
        if args.clients > 1:
            await concurrent(runtime, args, tag, spent)
            return
        for i in range(args.warmup + args.requests):
            item = next(stream)
            item = RetainItem(content=item.content, timestamp=item.timestamp, tags=[tag])
            spent.clear()
            counts.clear()
            started = time.perf_counter()
            await runtime.retainer.retain(args.bank, [item])
            elapsed = time.perf_counter() - started
            if i < args.warmup:
                by_name.clear()
                continue
            totals.append(elapsed)
            for label, _, _ in PARTS:
                per_request[label].append(spent.get(label, 0.0))
            for label, _, _ in COUNTED:
                per_request[label].append(float(counts.get(label, 0)))
    print(f"{args.requests} 1-item retains into {args.bank} (after {args.warmup} warm-up)")
    print(f"  {'whole retain (in process)':50s} p50 {1000 * statistics.median(totals):6.1f} ms")
    for label, owner, name in PARTS:
        if not hasattr(owner, name):
            continue
        values = per_request[label]
        print(f"  {label:50s} p50 {1000 * statistics.median(values):6.1f} ms")
    for label, _, _ in COUNTED:
        print(f"  {label:50s} p50 {statistics.median(per_request[label]):6.0f}")
    print_statements(by_name, args.requests)


def print_statements(by_name: dict[str, list[float]], requests: int) -> None:
    """The Cypher statements that took the most time, per request."""
    print("  statements by total time (ms a request):")
    ranked = sorted(by_name.items(), key=lambda kv: -sum(kv[1]))
    for name, times in ranked[:12]:
        p50 = 1000 * statistics.median(times)
        print(
            f"    {name:46s} {1000 * sum(times) / requests:6.1f} ms "
            f"({len(times) / requests:.1f} a request, p50 {p50:.1f})"
        )


async def concurrent(
    runtime: Runtime, args: argparse.Namespace, tag: str, spent: dict[str, float]
) -> None:
    """``--clients`` clients sending 1-item requests at once: throughput and the groups."""
    groups: list[tuple[int, float]] = []
    real = RetainPipeline._write

    async def write(self: RetainPipeline, bank_id: str, requests: Any) -> None:
        started = time.perf_counter()
        await real(self, bank_id, requests)
        groups.append((len(requests), time.perf_counter() - started))

    RetainPipeline._write = write  # type: ignore[method-assign]
    # The committer holds the method it was built with: give it the timed one.
    runtime.retainer._committer._write = functools.partial(write, runtime.retainer)
    latencies: list[float] = []

    async def client(c: int) -> None:
        stream = notes(seed=args.seed + c, start=datetime(2026, 7, 1, tzinfo=UTC))
        for _ in range(args.requests // args.clients):
            item = next(stream)
            item = RetainItem(content=item.content, timestamp=item.timestamp, tags=[tag])
            started = time.perf_counter()
            await runtime.retainer.retain(args.bank, [item])
            latencies.append(time.perf_counter() - started)

    spent.clear()
    started = time.perf_counter()
    await asyncio.gather(*(client(c) for c in range(args.clients)))
    elapsed = time.perf_counter() - started
    print(f"{len(latencies)} requests from {args.clients} clients in {elapsed:.1f} s")
    print(f"  latency p50 {1000 * statistics.median(latencies):.0f} ms")
    print(f"  writes {len(groups)}, requests a write p50 {statistics.median(g for g, _ in groups)}")
    print(f"  write p50 {1000 * statistics.median(t for _, t in groups):.0f} ms")
    for label, value in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {label:50s} {value / len(latencies) * 1000:6.1f} ms a request (summed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--data-dir", required=True, help="the service data holding the bank")
    parser.add_argument("--bank", required=True, help="a bank that exists, in local mode")
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7697")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--clients", type=int, default=1, help="concurrent clients (>1)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
