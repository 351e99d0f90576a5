"""Retain throughput while a bank grows: facts/s and per-fact cost at each size.

Generates realistic notes (recurring people, places, organisations, products and dates) and
retains them through the real pipeline (real Neo4j, the configured vector store, real
embeddings), in `local` and `chunks` modes, one fresh bank per mode. At each checkpoint it prints
the throughput of the window that ended there and the per-fact cost, then the cost growth ratio
(last window / first window): no full scans means the ratio stays near 1. Under each window, where
its time went: how much of it the bank's write was held by retain's first pass, by the settle
behind it and by other writers (consolidation), and how many cores this process used. A
warm-up into a throwaway bank comes first (``--warmup``), so that the first window is not
Neo4j's cold start.

    .venv/bin/python scripts/bench_retain.py                      # 1k → 50k facts, both modes
    .venv/bin/python scripts/bench_retain.py --sizes 500,2000 --modes local --warmup 0  # CI size
    .venv/bin/python scripts/bench_retain.py --sizes 10000 --modes local --statements 8
        # and under each window, per writer, the statements that held the bank's write longest

Uses the test Neo4j by default (scripts/test starts it; MNEMO_NEO4J_URI overrides) and a
temporary data directory for the vector store.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import random
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import load_settings
from app.curate.schemas.banks import BankUpdate
from app.curate.schemas.memories import MemoryFilter
from app.retain.schemas import EntityHint, RetainItem
from app.runtime import Runtime
from app.store.graph import Graph, Tx
from scripts.bench_support import benchmark_neo4j_auth

FIRST = [
    "Sarah",
    "Priya",
    "Alex",
    "Tomas",
    "Ines",
    "Noor",
    "Hugo",
    "Mei",
    "Omar",
    "Lena",
    "Kofi",
    "Yuki",
    "Ravi",
    "Elena",
    "Marco",
    "Aisha",
    "Jonas",
    "Chloe",
    "Diego",
    "Hana",
]
LAST = [
    "Chen",
    "Raman",
    "Kim",
    "Silva",
    "Novak",
    "Haddad",
    "Laurent",
    "Tanaka",
    "Okafor",
    "Berg",
    "Rossi",
    "Patel",
    "Garcia",
    "Nguyen",
    "Meyer",
    "Costa",
    "Ivanova",
    "Ahmed",
]
PLACES = [
    "Lisbon",
    "Berlin",
    "Nairobi",
    "Osaka",
    "Toronto",
    "Madrid",
    "Oslo",
    "Lyon",
    "Porto",
    "Seoul",
    "Austin",
    "Dublin",
    "Krakow",
    "Accra",
    "Lima",
    "Hanoi",
    "Zurich",
    "Cairo",
]
ORGS = [
    "Acme Robotics",
    "Northwind Labs",
    "Blue Harbor Bank",
    "Atlas Health",
    "Kestrel Air",
    "Orbit Foods",
    "Helios Energy",
    "Juniper Media",
    "Quanta Freight",
    "Lumen Schools",
]
PROJECTS = [
    "Project Atlas",
    "Ocean Probe 1",
    "the Falcon rollout",
    "the Q3 audit",
    "the Phoenix migration",
    "the Delta pilot",
    "Sprint 14",
    "the Orion launch",
]
TEMPLATES = [
    "{p1} met {p2} in {place} to discuss {project}.",
    "On {date}, {p1} joined {org} as head of {project}.",
    "{p1} flew to {place} last week for the {org} offsite.",
    "{p2} said {project} slipped because {org} changed the budget.",
    "{p1} and {p2} moved {project} to {place} in {month}.",
    "Yesterday {p1} presented {project} to the board of {org}.",
    "{p2} has lived in {place} since {year} and works with {p1}.",
    "{org} signed a contract with {p1} for {project} on {date}.",
]


def people(rng: random.Random, count: int) -> list[str]:
    names = {f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(count * 3)}
    return sorted(names)[:count]


def notes(seed: int, start: datetime) -> Iterator[RetainItem]:
    """An endless stream of one-to-three-sentence notes, a few minutes apart."""
    rng = random.Random(seed)
    cast = people(rng, 150)
    when = start
    while True:
        when += timedelta(minutes=rng.randint(5, 240))
        sentences = []
        for _ in range(rng.choice((1, 2, 2, 3))):
            day = when - timedelta(days=rng.randint(0, 60))
            sentences.append(
                rng.choice(TEMPLATES).format(
                    p1=rng.choice(cast),
                    p2=rng.choice(cast),
                    place=rng.choice(PLACES),
                    org=rng.choice(ORGS),
                    project=rng.choice(PROJECTS),
                    date=day.strftime("%d %B %Y"),
                    month=day.strftime("%B %Y"),
                    year=rng.randint(2005, 2022),
                )
            )
        text = " ".join(sentences)
        hints = [EntityHint(text=n, type="person") for n in cast if n in text]
        yield RetainItem(content=text, timestamp=when, entities=hints or None)


class Window(msgspec.Struct, frozen=True):
    """One checkpoint: the bank's size and the throughput of the window that ended there."""

    bank_facts: int
    window_facts: int
    seconds: float

    @property
    def facts_per_s(self) -> float:
        """Throughput of the window."""
        return self.window_facts / self.seconds

    @property
    def ms_per_fact(self) -> float:
        """Cost of one fact in the window."""
        return 1000 * self.seconds / max(self.window_facts, 1)


class Snapshot(msgspec.Struct, frozen=True):
    """A WriteClock's reading."""

    wall_s: float
    cpu_s: float  # this process's, every thread
    held_s: dict[str, float]  # the bank's write held, by writer
    # Seconds and runs of each statement under the bank's write, by (writer, statement name);
    # empty unless the clock times statements.
    statements_s: dict[tuple[str, str], float] = {}
    statement_runs: dict[tuple[str, str], int] = {}


# The works of Graph.write that retain runs, by name (see WriteClock).
WRITERS = {"RetainPipeline._write": "first pass", "RetainPipeline._settle": "settle"}


class WriteClock:
    """Seconds a bank's write was held, by writer, and this process's CPU seconds.

    Wraps the runtime's ``Graph.write`` (the one door of every bank writer) and times each
    transaction's work, from after the bank lock to before the commit. The writer is told by
    its work's name: retain's first pass and its settle are the pipeline's ``_write`` and
    ``_settle``; anything else (consolidation, a publish) is "other".

    ``statements``: each statement run under a bank's write is timed too, by name (``Tx.run``
    is wrapped for the whole process: this script's only). What the write held beyond its
    statements is its Python work and what it waited for (embedding, the event loop).
    """

    def __init__(self, graph: Graph, *, statements: bool = False) -> None:
        self.held: defaultdict[str, float] = defaultdict(float)
        self.statements: defaultdict[tuple[str, str], float] = defaultdict(float)
        self.runs: defaultdict[tuple[str, str], int] = defaultdict(int)
        writer: contextvars.ContextVar[str | None] = contextvars.ContextVar("writer", default=None)
        write = graph.write

        async def timed_write(
            bank_id: str, work: Callable[[Tx], Awaitable[object]], **options: object
        ) -> object:
            kind = WRITERS.get(work.__qualname__.removesuffix(".<locals>.work"), "other")
            exclusive = options.get("exclusive", True)

            async def timed(tx: Tx) -> object:
                started = time.perf_counter()
                token = writer.set(kind if exclusive else None)
                try:
                    return await work(tx)
                finally:
                    writer.reset(token)
                    if exclusive:
                        self.held[kind] += time.perf_counter() - started

            return await write(bank_id, timed, **options)  # type: ignore[arg-type]

        graph.write = timed_write  # type: ignore[method-assign,assignment]
        if not statements:
            return
        run = Tx.run

        async def timed_run(tx: Tx, name: str, params: Any = None) -> list[dict[str, Any]]:
            kind = writer.get()
            started = time.perf_counter()
            try:
                return await run(tx, name, params)
            finally:
                if kind is not None:
                    self.statements[(kind, name)] += time.perf_counter() - started
                    self.runs[(kind, name)] += 1

        Tx.run = timed_run  # type: ignore[method-assign]

    def snapshot(self) -> Snapshot:
        """The clock's reading now."""
        return Snapshot(
            time.perf_counter(),
            time.process_time(),
            dict(self.held),
            dict(self.statements),
            dict(self.runs),
        )


def breakdown(before: Snapshot, after: Snapshot) -> str:
    """The shares of the window the bank's write was held, by writer; this process's cores."""
    wall = after.wall_s - before.wall_s
    held = {kind: (s - before.held_s.get(kind, 0.0)) / wall for kind, s in after.held_s.items()}
    parts = ", ".join(f"{kind} {share:.2f}" for kind, share in sorted(held.items()))
    return (
        f"bank write held {sum(held.values()):.2f} of the window ({parts}); "
        f"this process {(after.cpu_s - before.cpu_s) / wall:.2f} cores"
    )


def statement_lines(before: Snapshot, after: Snapshot, top: int) -> list[str]:
    """Per writer: its statements' share of the time it held the write, and the ``top`` ones."""
    lines = []
    for kind in sorted(after.held_s):
        held = after.held_s[kind] - before.held_s.get(kind, 0.0)
        spent = {
            name: (
                s - before.statements_s.get((k, name), 0.0),
                after.statement_runs[(k, name)] - before.statement_runs.get((k, name), 0),
            )
            for (k, name), s in after.statements_s.items()
            if k == kind
        }
        total = sum(s for s, _ in spent.values())
        if held <= 0 or not spent:
            continue
        lines.append(
            f"{kind}: held {held:.1f} s, statements {total:.1f} s ({total / held:.2f}), "
            f"the rest {held - total:.1f} s"
        )
        for name, (s, runs) in sorted(spent.items(), key=lambda kv: -kv[1][0])[:top]:
            lines.append(
                f"  {name:32s} {s:7.1f} s  {runs:6,d} runs  {1000 * s / max(runs, 1):7.1f} ms each"
            )
    return lines


async def warm_up(runtime: Runtime, facts: int, batch: int) -> None:
    """Retain ``facts`` into a throwaway bank first, uncounted.

    A freshly started Neo4j runs its first few thousand statements slowly while its JIT
    compiles them (the first window ran at ~60 % of the second): without a warm-up, the
    smallest bank looks slow and the cost growth ratio looks better than it is.
    """
    bank_id = f"bench-warmup-{uuid.uuid4().hex[:6]}"
    await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode="local"))
    stream = notes(seed=11, start=datetime(2023, 1, 1, tzinfo=UTC))
    started, done = time.perf_counter(), 0
    try:
        while done < facts:
            answer = await runtime.retainer.retain(bank_id, [next(stream) for _ in range(batch)])
            done += len(answer.memory_ids)
    finally:
        await runtime.banks.delete(bank_id)
    print(f"warm-up: {done:,d} facts in {time.perf_counter() - started:.1f} s (not counted)")


async def pending(runtime: Runtime, bank_id: str) -> int:
    """How many of the bank's facts wait for consolidation."""
    page = await runtime.memories.page(
        bank_id, MemoryFilter(consolidation_states=("pending",)), limit=1, offset=0
    )
    return page.total


async def run_mode(
    runtime: Runtime,
    mode: str,
    sizes: list[int],
    batch: int,
    concurrency: int,
    clock: WriteClock,
    catch_up_s: float = 0.0,
    statements: int = 0,
) -> list[Window]:
    """Grow one fresh bank to each size in turn; print the window's throughput at each."""
    bank_id = f"bench-retain-{mode}-{uuid.uuid4().hex[:6]}"
    await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode=mode))  # type: ignore[arg-type]
    stream = notes(seed=7, start=datetime(2024, 1, 1, tzinfo=UTC))
    facts = window_facts = 0
    windows: list[Window] = []
    window_start = time.perf_counter()
    window_clock = clock.snapshot()

    async def client(target: int) -> None:
        # Several clients retain into the same bank at once, as agents would: extraction and
        # embedding of one request overlap the graph write of another.
        nonlocal facts, window_facts
        while facts < target:
            answer = await runtime.retainer.retain(bank_id, [next(stream) for _ in range(batch)])
            facts += len(answer.memory_ids)
            window_facts += len(answer.memory_ids)

    try:
        for target in sizes:
            await asyncio.gather(*(client(target) for _ in range(concurrency)))
            w = Window(facts, window_facts, time.perf_counter() - window_start)
            windows.append(w)
            print(
                f"{mode:6s} bank={w.bank_facts:>7,d} facts  window {w.window_facts:>6,d} facts in "
                f"{w.seconds:7.1f} s  {w.facts_per_s:7.1f} facts/s  {w.ms_per_fact:6.2f} ms/fact"
                f"  pending {await pending(runtime, bank_id):,d}",
                flush=True,
            )
            # One reading ends this window and starts the next: no time falls between them.
            reading = clock.snapshot()
            print(f"{mode:6s}   {breakdown(window_clock, reading)}", flush=True)
            for line in statement_lines(window_clock, reading, statements):
                print(f"{mode:6s}     {line}", flush=True)
            window_start, window_facts, window_clock = time.perf_counter(), 0, reading
        ratio = windows[-1].ms_per_fact / windows[0].ms_per_fact
        print(f"{mode:6s} per-fact cost at {facts:,d} / at {sizes[0]:,d}: {ratio:.2f}x", flush=True)
        waiting = await pending(runtime, bank_id)
        print(f"{mode:6s} facts still waiting for consolidation: {waiting:,d}", flush=True)
        if waiting and runtime.worker.running and catch_up_s > 0:
            # Once the clients stop, the worker has the machine: how soon does it catch up?
            started = time.perf_counter()
            while waiting and time.perf_counter() - started < catch_up_s:
                await asyncio.sleep(1.0)
                waiting = await pending(runtime, bank_id)
            print(
                f"{mode:6s} after the clients stopped: {waiting:,d} still pending after "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
    finally:
        await runtime.banks.delete(bank_id)
    return windows


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", default="1000,2000,5000,10000,20000,50000")
    parser.add_argument("--modes", default="local,chunks")
    parser.add_argument("--batch", type=int, default=100, help="items per retain request")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=3,
        # Two clients no longer keep a bank's write busy: each waits on its own extraction and
        # embedding longer than the other's write takes (decision 0008).
        help="clients retaining at once",
    )
    parser.add_argument(
        "--warmup", type=int, default=3000, help="facts retained into a throwaway bank first"
    )
    parser.add_argument(
        "--no-consolidation",
        action="store_true",
        help="retain without the consolidation worker running behind (as `mnemo serve` runs it)",
    )
    parser.add_argument(
        "--catch-up",
        type=float,
        default=0.0,
        help="with the worker running: wait up to this many seconds for it to catch up at the end",
    )
    parser.add_argument(
        "--consolidation-yield",
        type=float,
        default=None,
        help="the worker's MNEMO_CONSOLIDATION_YIELD (default: the service's default)",
    )
    parser.add_argument(
        "--compare-consolidation",
        action="store_true",
        help="each mode twice in this run: without the worker, then with it running behind",
    )
    parser.add_argument(
        "--statements",
        type=int,
        default=0,
        metavar="N",
        help="under each window, the N statements that held the bank's write longest, by writer",
    )
    parser.add_argument(
        "--neo4j-uri",
        default=os.environ.get("MNEMO_NEO4J_URI", "bolt://127.0.0.1:7697"),
        help="default: MNEMO_NEO4J_URI, else the test Neo4j (scripts/test starts it)",
    )
    return parser


async def run(args: argparse.Namespace) -> dict[str, list[Window]]:
    """Every mode's checkpoints, by mode."""
    sizes = [int(s) for s in args.sizes.split(",")]
    report: dict[str, list[Window]] = {}
    with tempfile.TemporaryDirectory(prefix="mnemo-bench-") as data_dir:
        tuning = (
            {}
            if args.consolidation_yield is None
            else {"consolidation_yield": args.consolidation_yield}
        )
        settings = load_settings(
            {}, data_dir=data_dir, neo4j_uri=args.neo4j_uri, **tuning, **benchmark_neo4j_auth()
        )
        async with Runtime.open(settings, background=False) as runtime:
            clock = WriteClock(runtime.graph, statements=args.statements > 0)
            if args.warmup > 0:
                await warm_up(runtime, args.warmup, args.batch)
            runs = [False, True] if args.compare_consolidation else [not args.no_consolidation]
            for consolidating in runs:
                if consolidating:
                    # Consolidation runs behind retain, as in `mnemo serve`.
                    await runtime.worker.start()
                label = "with consolidation" if consolidating else "without consolidation"
                print(f"-- {label}", flush=True)
                for mode in args.modes.split(","):
                    key = f"{mode} {label}" if args.compare_consolidation else mode
                    report[key] = await run_mode(
                        runtime,
                        mode,
                        sizes,
                        args.batch,
                        args.concurrency,
                        clock,
                        args.catch_up,
                        args.statements,
                    )
                await runtime.worker.stop()
    return report


if __name__ == "__main__":
    asyncio.run(run(build_parser().parse_args()))
