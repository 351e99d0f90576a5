#!/usr/bin/env python3
"""Where a consolidation batch's time goes as a bank grows.

Grows one bank with ``bench_retain``'s generated notes (offline consolidation of the backlog
untimed); at each size of ``--sizes`` a window of ``--window`` new facts is retained and
consolidated, and the time of each part of the batches (every Cypher statement by name, the
vector searches and reads, the tagger, the decisions, the vector publish) is printed in
milliseconds per consolidated fact, so that the parts that grow with the bank stand out.

    .venv/bin/python scripts/profile_consolidation.py --sizes 2000,10000 --neo4j-uri bolt://...
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_retain import notes  # noqa: E402
from bench_support import benchmark_neo4j_auth, benchmark_neo4j_uri  # noqa: E402

from app.config import load_settings  # noqa: E402
from app.consolidate import service  # noqa: E402
from app.consolidate.language import Tagger  # noqa: E402
from app.consolidate.service import Consolidator  # noqa: E402
from app.curate.schemas.banks import BankUpdate  # noqa: E402
from app.runtime import Runtime  # noqa: E402
from app.store.graph import Graph, Tx  # noqa: E402
from app.store.qdrant_edge import EdgeVectorStore  # noqa: E402
from scripts.profile_retain import timed  # noqa: E402

SPENT: dict[str, float] = defaultdict(float)


def by_name(prefix: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await fn(self, name, *args, **kwargs)
        finally:
            SPENT[f"{prefix} {name}"] += time.perf_counter() - started

    return wrapper


def timed_sync(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[label] += time.perf_counter() - started

    return wrapper


def instrument() -> None:
    Graph.run = by_name("graph", Graph.run)  # type: ignore[method-assign]
    Tx.run = by_name("tx", Tx.run)  # type: ignore[method-assign]
    EdgeVectorStore.search_many = timed("vectors.search_many", SPENT, EdgeVectorStore.search_many)  # type: ignore[method-assign]
    EdgeVectorStore.vectors = timed("vectors.vectors", SPENT, EdgeVectorStore.vectors)  # type: ignore[method-assign]
    Tagger.tag = timed("tagger", SPENT, Tagger.tag)  # type: ignore[method-assign]
    Consolidator.run_batch = timed("= run_batch", SPENT, Consolidator.run_batch)  # type: ignore[method-assign]
    Consolidator._read = timed("  read", SPENT, Consolidator._read)  # type: ignore[method-assign]
    Consolidator._read_claims = timed("  read_claims", SPENT, Consolidator._read_claims)  # type: ignore[method-assign]
    Consolidator._write = timed("  write", SPENT, Consolidator._write)  # type: ignore[method-assign]
    Consolidator.publish_vectors = timed("= publish_vectors", SPENT, Consolidator.publish_vectors)  # type: ignore[method-assign]
    service.decide_offline = timed_sync("  decide_offline", service.decide_offline)


async def run(args: argparse.Namespace) -> None:
    instrument()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="mnemo-profile-") as data_dir:
        settings = load_settings(
            {},
            data_dir=data_dir,
            neo4j_uri=benchmark_neo4j_uri(args.neo4j_uri),
            consolidation_worker=False,
            **benchmark_neo4j_auth(),
        )
        async with Runtime.open(settings, background=False) as runtime:
            bank_id = f"profile-consolidation-{uuid.uuid4().hex[:6]}"
            await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode="local"))
            stream = notes(seed=7, start=datetime(2024, 1, 1, tzinfo=UTC))
            facts = 0

            async def grow(target: int) -> None:
                nonlocal facts
                while facts < target:
                    answer = await runtime.retainer.retain(
                        bank_id, [next(stream) for _ in range(args.batch)]
                    )
                    facts += len(answer.memory_ids)

            tables: list[tuple[int, int, float, dict[str, float]]] = []
            try:
                for size in sizes:
                    await grow(size - args.window)
                    await runtime.worker.run_until_idle(timeout_s=7200)
                    await grow(size)
                    SPENT.clear()
                    started = time.perf_counter()
                    handled = await runtime.worker.run_until_idle(timeout_s=7200)
                    seconds = time.perf_counter() - started
                    tables.append((facts, handled, seconds, dict(SPENT)))
                    stats = await runtime.graph._driver.execute_query(
                        "MATCH (o:Observation {bank_id: $b}) WHERE o.state = 'valid' "
                        "RETURN count(o) AS observations, max(o.proof_count) AS max_proof, "
                        "avg(o.proof_count) AS mean_proof, "
                        "percentileDisc(o.proof_count, 0.9) AS p90_proof",
                        {"b": bank_id},
                    )
                    print(f"  {dict(stats.records[0])}", flush=True)
                    print(
                        f"bank {facts:,d}: {handled:,d} facts in {seconds:.1f} s "
                        f"({1000 * seconds / max(handled, 1):.2f} ms/fact)",
                        flush=True,
                    )
            finally:
                await runtime.banks.delete(bank_id)
    labels = sorted(
        {k for *_, spent in tables for k in spent}, key=lambda k: -tables[-1][3].get(k, 0)
    )
    print(f"{'ms per fact':60s}" + "".join(f"{t[0]:>10,d}" for t in tables))
    print(f"{'total':60s}" + "".join(f"{1000 * t[2] / max(t[1], 1):10.3f}" for t in tables))
    for label in labels:
        print(
            f"{label[:60]:60s}"
            + "".join(f"{1000 * t[3].get(label, 0) / max(t[1], 1):10.3f}" for t in tables)
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--neo4j-uri", default=None)
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
