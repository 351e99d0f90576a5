#!/usr/bin/env python3
"""Recall latency on a generated bank growing from 10k to 100k facts, next to vector-only search.

A deterministic generator writes facts about recurring people, places, organisations and topics
(Zipf-distributed, so some entities are hubs), each with an event date over three years and
0-2 tags, through the retain pipeline in ``chunks`` mode with caller-supplied entities, in big
batches. At each size the same mix of queries runs (entity questions, dated questions, topic
questions, tag-filtered ones) at budget ``mid``; the report gives recall p50/p95, the per-phase
timings from the trace (so the slow channel is named), and, on the same store in the same run,
the vector-only search (embed + filtered nearest neighbours) that a plain vector memory would do.

The vector store is Qdrant Edge in-process. Its HNSW index is built only by ``optimize()``
(never behind a request's back: it holds the GIL), so each size is measured twice when
``--optimize`` is on: right after the growth (new points unindexed, searched exhaustively) and
after ``optimize()``.

The app's services run in-process (``Runtime``) against the Neo4j of ``--neo4j-uri`` /
``MNEMO_NEO4J_URI`` (default: the test Neo4j on port 7697, started if needed), with a temporary
data directory. Service-level timings leave out HTTP (about 1-2 ms on loopback).

Usage:
  .venv/bin/python scripts/bench_recall.py [--sizes 10000,20000,50000,100000]
      [--queries 200] [--batch 2000] [--optimize/--no-optimize] [--small] [--json out.json]
      [--data-dir DIR --bank ID]   (keep the bank and grow it on a later run)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings, load_settings  # noqa: E402
from app.curate.schemas.banks import BankUpdate  # noqa: E402
from app.recall.schemas import RecallRequest  # noqa: E402
from app.retain.schemas import EntityHint, RetainItem  # noqa: E402
from app.runtime import Runtime  # noqa: E402
from app.store.vectors import VectorFilter  # noqa: E402
from scripts.bench_support import benchmark_neo4j_auth, benchmark_neo4j_uri  # noqa: E402

SHOWN_PHASES = ("embed", "query_entities", "vector", "keyword", "graph", "temporal", "hydrate")
START = datetime(2022, 1, 1, tzinfo=UTC)
DAYS = 3 * 365
TAGS = ("work", "family", "travel", "health", "money", "hobby")
TOPICS = (
    "the budget",
    "hiring",
    "the product launch",
    "a hiking trip",
    "the quarterly report",
    "a birthday party",
    "the new office",
    "a marketing plan",
    "the garden",
    "a charity run",
    "the mortgage",
    "a cooking class",
    "the data migration",
    "a wedding",
    "the school play",
    "a client complaint",
    "the server outage",
    "a book club",
    "the holiday schedule",
    "a job offer",
    "the football match",
    "a dentist visit",
    "the rent increase",
    "a concert",
)
TEMPLATES = (
    "{a} met {b} in {place} to talk about {topic}.",
    "{a} called {b} about {topic} while travelling to {place}.",
    "{a} and {b} from {org} worked late on {topic}.",
    "{a} told {b} that {org} would sponsor {topic}.",
    "{a} wrote to {org} in {place} regarding {topic}.",
    "In {place}, {a} finally finished {topic} with help from {b}.",
    "{a} was worried about {topic} after a long chat with {b}.",
)
SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ren",
    "sa",
    "tor",
    "vi",
    "ne",
    "dal",
    "bri",
    "ost",
    "ela",
    "fin",
    "gar",
    "hul",
    "ja",
    "kel",
    "mar",
    "nor",
    "pe",
    "qua",
    "ros",
    "sten",
    "ul",
    "wen",
    "yor",
    "zed",
)


# -- the generated world --------------------------------------------------------------------------


class World:
    """Recurring entities with Zipf-like popularity, and a fact/query generator over them."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.people = self._names(3000, 2, 3)
        self.places = [n.title() + " " + s for n in self._names(400, 2, 2) for s in ("City",)]
        self.orgs = [
            n.title() + " " + s
            for n, s in zip(
                self._names(300, 2, 3), ("Labs", "Group", "Foods", "Bank") * 100, strict=False
            )
        ]
        self.index = 0

    def _names(self, n: int, low: int, high: int) -> list[str]:
        names: list[str] = []
        seen: set[str] = set()
        while len(names) < n:
            name = "".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.randint(low, high)))
            if name not in seen:
                seen.add(name)
                names.append(name.title())
        return names

    def _pick(self, pool: Sequence[str]) -> str:
        # Zipf-like: index ~ pareto, so the first names recur far more often (hubs).
        i = int(self.rng.paretovariate(1.1)) - 1
        return pool[i % len(pool)] if i < len(pool) else self.rng.choice(pool)

    def fact(self) -> RetainItem:
        """One fact as a retain item (chunks mode: the content is the fact)."""
        a, b = self._pick(self.people), self._pick(self.people)
        place, org = self._pick(self.places), self._pick(self.orgs)
        topic = self.rng.choice(TOPICS)
        text = self.rng.choice(TEMPLATES).format(a=a, b=b, place=place, org=org, topic=topic)
        at = START + timedelta(days=self.rng.uniform(0, DAYS))
        tags = self.rng.sample(TAGS, self.rng.choice((0, 1, 1, 2)))
        names = [a, b] + ([place] if "{place}" in text or place in text else [])
        if org in text:
            names.append(org)
        self.index += 1
        return RetainItem(
            content=text,
            timestamp=at,
            tags=tags or None,
            entities=[EntityHint(text=n) for n in dict.fromkeys(names)],
            document_id=f"gen-{self.index}",
        )

    def queries(self, n: int) -> list[RecallRequest]:
        """A fixed mix: entity, entity + time, topic + place, tag-filtered questions."""
        rng = random.Random(99)
        out: list[RecallRequest] = []
        for i in range(n):
            a = self.people[int(rng.paretovariate(1.1)) % 300]
            topic = rng.choice(TOPICS)
            place = self.places[rng.randrange(50)]
            month = (START + timedelta(days=rng.uniform(0, DAYS))).strftime("%B %Y")
            kind = i % 4
            if kind == 0:
                query = f"What did {a} talk about with their friends?"
                out.append(RecallRequest(query=query))
            elif kind == 1:
                query = f"What happened with {a} in {month}?"
                out.append(RecallRequest(query=query, query_timestamp=START + timedelta(days=DAYS)))
            elif kind == 2:
                query = f"Who worked on {topic} in {place}?"
                out.append(RecallRequest(query=query))
            else:
                query = f"Anything about {topic}?"
                out.append(RecallRequest(query=query, tags=[rng.choice(TAGS)], tags_match="any"))
        return out


# -- measuring ------------------------------------------------------------------------------------


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(runtime: Runtime, bank: str, queries: Sequence[RecallRequest]) -> dict[str, Any]:
    """Recall latency (p50/p95), per-phase p50/p95, and vector-only latency, same queries."""
    for request in queries[:10]:  # warm the plan caches and the embedder
        await runtime.recall.recall(bank, request)
    totals: list[float] = []
    phases: dict[str, list[float]] = {}
    vector_only: list[float] = []
    vector_search: list[float] = []
    for request in queries:
        traced = RecallRequest(**{**_fields(request), "trace": True})
        started = time.perf_counter()
        answer = await runtime.recall.recall(bank, traced)
        totals.append(1000 * (time.perf_counter() - started))
        assert answer.trace is not None
        for phase, ms in answer.trace.timings_ms.items():
            phases.setdefault(phase, []).append(ms)
        started = time.perf_counter()
        vector = await runtime.embedder.embed_one(request.query)
        embedded = time.perf_counter()
        await runtime.vectors.search(
            vector.tolist(),
            VectorFilter(bank_id=bank, tags=tuple(request.tags or ()) or None),
            50,
        )
        done = time.perf_counter()
        vector_only.append(1000 * (done - started))
        vector_search.append(1000 * (done - embedded))
    return {
        "recall_ms": {"p50": round(pct(totals, 0.5), 1), "p95": round(pct(totals, 0.95), 1)},
        "vector_only_ms": {
            "p50": round(pct(vector_only, 0.5), 1),
            "p95": round(pct(vector_only, 0.95), 1),
            "search_p50": round(pct(vector_search, 0.5), 1),
            "search_p95": round(pct(vector_search, 0.95), 1),
        },
        "phases_ms": {
            name: {"p50": round(pct(v, 0.5), 1), "p95": round(pct(v, 0.95), 1)}
            for name, v in sorted(phases.items())
        },
        "mean_results": None,
    }


def _fields(request: RecallRequest) -> dict[str, Any]:
    return {f: getattr(request, f) for f in request.__struct_fields__}


def settings_for(args: argparse.Namespace, data_dir: Path) -> Settings:
    return load_settings(
        {},
        data_dir=str(data_dir),
        neo4j_uri=benchmark_neo4j_uri(args.neo4j_uri),
        **benchmark_neo4j_auth(),
        # Big retain batches amortise the per-request work; the default limit is 1,000 items.
        max_items_per_request=max(args.batch, 1000),
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    persistent = args.data_dir is not None
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="mnemo-bench-recall-"))
    settings = settings_for(args, data_dir)
    world = World()
    queries = world.queries(args.queries)
    bank = args.bank or f"bench-recall-{uuid.uuid4().hex[:8]}"
    rows: list[dict[str, Any]] = []
    try:
        async with Runtime.open(settings, background=False) as runtime:
            await runtime.banks.put(bank, BankUpdate(name=bank, retain_extraction_mode="chunks"))
            # A bank kept from an earlier run (--data-dir, --bank) grows from where it stopped;
            # the generator is deterministic, so it continues the same sequence of facts.
            written = await runtime.vectors.count(bank)
            for _ in range(written):
                world.fact()
            try:
                for size in [s for s in args.sizes if s >= written]:
                    started = time.perf_counter()
                    while written < size:
                        batch = [world.fact() for _ in range(min(args.batch, size - written))]
                        await runtime.retainer.retain(bank, batch)
                        written += len(batch)
                        print(f"  {written} facts", file=sys.stderr, flush=True)
                    retain_s = time.perf_counter() - started
                    row: dict[str, Any] = {"facts": size, "retain_s": round(retain_s, 1)}
                    row["unindexed"] = await measure(runtime, bank, queries)
                    if args.optimize:
                        started = time.perf_counter()
                        await runtime.vectors.optimize()
                        row["optimize_s"] = round(time.perf_counter() - started, 1)
                        row["indexed"] = await measure(runtime, bank, queries)
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
            finally:
                if not args.keep and not persistent:
                    await runtime.banks.delete(bank)
    finally:
        if not persistent:
            shutil.rmtree(data_dir, ignore_errors=True)
    return {"bank": bank, "queries": len(queries), "budget": "mid", "rows": rows}


def print_table(report: dict[str, Any]) -> None:
    print(f"recall latency, budget mid, {report['queries']} queries per size (service level)")
    header = (
        f"{'facts':>8} {'state':>10} {'recall p50':>11} {'p95':>7} {'vec-only p50':>13} "
        f"{'p95':>7}  slowest phases (p50 ms)"
    )
    print(header)
    for row in report["rows"]:
        for state in ("unindexed", "indexed"):
            if state not in row:
                continue
            m = row[state]
            phases = {
                k: v["p50"]
                for k, v in m["phases_ms"].items()
                if k
                in ("embed", "query_entities", "vector", "keyword", "graph", "temporal", "hydrate")
            }
            slow = ", ".join(f"{k} {v}" for k, v in sorted(phases.items(), key=lambda kv: -kv[1]))
            print(
                f"{row['facts']:>8} {state:>10} {m['recall_ms']['p50']:>11} "
                f"{m['recall_ms']['p95']:>7} {m['vector_only_ms']['p50']:>13} "
                f"{m['vector_only_ms']['p95']:>7}  {slow}"
            )
    if len(report["rows"]) >= 2:
        first, last = report["rows"][0], report["rows"][-1]
        state = "indexed" if "indexed" in last else "unindexed"
        growth = last[state]["recall_ms"]["p95"] / max(first[state]["recall_ms"]["p95"], 1e-9)
        print(f"p95 grew ×{growth:.2f} for ×{last['facts'] / first['facts']:.0f} facts ({state})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,20000,50000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=2000, help="items per retain call")
    parser.add_argument("--optimize", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument("--small", action="store_true", help="CI size: 1k and 2k facts")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the bank afterwards")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="persistent data dir (kept; resumable)"
    )
    parser.add_argument("--bank", default=None, help="bank id to create or grow")
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if args.small:
        args.sizes, args.queries, args.batch = [1000, 2000], min(args.queries, 24), 500
    report = asyncio.run(run(args))
    print_table(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
