#!/usr/bin/env python3
"""Benchmark the embedded Qdrant Edge store: upsert throughput and filtered search latency.

Usage:
  .venv/bin/python scripts/bench_vectors.py [--points 100000] [--banks 10] [--dim 384]
      [--queries 200] [--limit 20] [--dir PATH] [--no-optimize]

Writes random unit vectors spread over ``--banks`` banks (with fact types, tags and event times)
through ``EdgeVectorStore``, then times filtered top-``limit`` searches (bank + fact type + tags
``any`` + the default valid state) before and after ``optimize()``, and reports how many of the
exact (pre-index) hits the HNSW search still finds. Uses a temporary shard (removed after)
unless ``--dir``.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.store.qdrant_edge import EdgeVectorStore
from app.store.vectors import VectorFilter, VectorHit, VectorPayload, VectorPoint

FACT_TYPES = ("world", "experience", "observation")
TAGS = ("work", "family", "travel", "health", "food")


def make_points(n: int, banks: int, dim: int, rng: np.random.Generator) -> list[VectorPoint]:
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    starts = rng.uniform(0, 3e8, n)
    points = []
    for i in range(n):
        tags = tuple(t for t in TAGS if rng.random() < 0.3)
        payload = VectorPayload(
            bank_id=f"bank-{i % banks}",
            fact_type=FACT_TYPES[i % len(FACT_TYPES)],
            tags=tags,
            occurred_start=float(starts[i]),
            occurred_end=float(starts[i] + 86_400),
        )
        points.append(VectorPoint(id=str(uuid.uuid4()), vector=vectors[i], payload=payload))
    return points


async def timed_searches(
    store: EdgeVectorStore, queries: np.ndarray, banks: int, limit: int
) -> tuple[list[float], list[list[VectorHit]]]:
    latencies, results = [], []
    for k, query in enumerate(queries):
        where = VectorFilter(
            bank_id=f"bank-{k % banks}",
            fact_types=("world", "experience"),
            tags=(TAGS[k % len(TAGS)],),
            tags_match="any",
        )
        start = time.perf_counter()
        hits = await store.search(query, where, limit)
        latencies.append(time.perf_counter() - start)
        results.append(hits)
    return latencies, results


def report(label: str, latencies: list[float]) -> None:
    ms = np.array(latencies) * 1000
    print(
        f"{label:<16} p50 {np.percentile(ms, 50):7.2f} ms   p95 {np.percentile(ms, 95):7.2f} ms"
        f"   max {ms.max():7.2f} ms"
    )


async def run(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(42)
    points = make_points(args.points, args.banks, args.dim, rng)
    queries = rng.standard_normal((args.queries, args.dim)).astype(np.float32)
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench-vectors-"))
    store = EdgeVectorStore(root / "shard", dim=args.dim, optimize_on_open_min_points=None)
    await store.open()
    try:
        start = time.perf_counter()
        for chunk in range(0, len(points), 10_000):
            await store.upsert(points[chunk : chunk + 10_000])
        upsert_s = time.perf_counter() - start
        start = time.perf_counter()
        await store.flush()
        flush_s = time.perf_counter() - start
        print(
            f"upsert           {args.points} points x {args.dim}-d in {upsert_s:.2f} s "
            f"({args.points / upsert_s:,.0f} points/s); flush {flush_s:.2f} s"
        )
        print(f"banks            {args.banks} ({args.points // args.banks} points each)")

        await timed_searches(store, queries[:10], args.banks, args.limit)  # warm-up
        before, exact = await timed_searches(store, queries, args.banks, args.limit)
        report("before optimize", before)
        if args.no_optimize:
            return
        start = time.perf_counter()
        await store.optimize()
        optimize_s = time.perf_counter() - start
        stats = await store.stats()
        print(
            f"optimize         {optimize_s:.1f} s ({stats.indexed_points} indexed, "
            f"{stats.segments} segments)"
        )
        await timed_searches(store, queries[:10], args.banks, args.limit)
        after, approx = await timed_searches(store, queries, args.banks, args.limit)
        report("after optimize", after)
        overlap = [
            len({h.id for h in a} & {h.id for h in e}) / max(len(e), 1)
            for a, e in zip(approx, exact, strict=True)
        ]
        print(f"recall@{args.limit}        {np.mean(overlap):.3f} (HNSW hits / exact hits)")
    finally:
        await store.close()
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--banks", type=int, default=10)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--dir", help="shard parent folder (default: a new temporary folder)")
    parser.add_argument("--no-optimize", action="store_true")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
