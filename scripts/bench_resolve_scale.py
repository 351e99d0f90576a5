"""Entity resolution time per mention at growing bank sizes (1k, 10k, 100k entities).

For each size, a fresh bank is seeded with that many generated entities (distinct synthetic
names built from a shared pool of syllables, so words recur across entities as real given
names and surnames do; a tenth carry an alias; each co-occurs with a few others). Seeding uses
the bulk path ``app.resolve.bulk`` (entities, names, lookup fields and co-occurrences written as
the resolver would have stored them) — retaining 100k entities through the pipeline would take
tens of minutes and measure retain, not resolution; ``--load retain`` seeds through real
``chunks``-mode retains instead, for a check at small sizes.

Then a fixed sample of facts is resolved and settled by the real ``GraphResolver`` against the
real Neo4j,
one fact per transaction (as one retain item would be), each transaction rolled back so the bank
is the same for every fact and every size. The sample mixes existing names (exact), near
variants (case, a dropped letter, a given name alone, a title) and new names; the existing ones
are drawn from the first entities generated, which every size contains. Printed: per-mention
milliseconds (median of ``--repeat`` timed passes after a warm-up pass) at each size and the
growth ratio from the smallest to the largest size (target: at most 2x from 1k to 100k).

    .venv/bin/python scripts/bench_resolve_scale.py                     # 1k, 10k, 100k
    .venv/bin/python scripts/bench_resolve_scale.py --sizes 500,2000    # CI size

Uses the test Neo4j by default (scripts/test starts it; MNEMO_NEO4J_URI overrides).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import load_settings
from app.curate.schemas.banks import Bank, BankUpdate
from app.errors import NotFound
from app.resolve.bulk import SeedEntity, SeedPair, seed_co_occurrences, seed_entities
from app.resolve.graph_resolver import GraphResolver
from app.resolve.port import FactToResolve, MentionToResolve
from app.retain.schemas import EntityHint, RetainItem
from app.runtime import Runtime
from app.store.graph import Tx
from scripts.bench_support import benchmark_neo4j_auth

ONSETS = [
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "ch",
    "dr",
    "gr",
    "kh",
    "sh",
    "st",
    "tr",
]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
CODAS = ["", "", "", "n", "r", "s", "l", "m", "th", "k"]
TYPES = ["person"] * 6 + ["organization"] * 2 + ["place", "product"]
ORG_TAILS = ["Labs", "Systems", "Group", "Health", "Foods"]
T0 = datetime(2024, 1, 1, tzinfo=UTC)
SEED_BATCH = 5000


def word(rng: random.Random, syllables: int) -> str:
    return "".join(
        rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables)
    ).capitalize()


def given_names(rng: random.Random, count: int) -> list[str]:
    """A pool of given names shared by many entities (as "Alex" or "Sarah" are)."""
    return sorted({word(rng, rng.choice((2, 2, 3))) for _ in range(count * 2)})[:count]


class Generator:
    """Distinct entity names, deterministic: the first n of a larger run are the same."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._given = given_names(random.Random(seed + 1), 2000)
        self._seen: set[str] = set()

    def name(self, entity_type: str) -> str:
        rng = self._rng
        while True:
            if entity_type == "person":
                name = f"{rng.choice(self._given)} {word(rng, rng.choice((2, 3)))}"
            elif entity_type == "organization":
                name = f"{word(rng, 2)} {rng.choice(ORG_TAILS)}"
            elif entity_type == "product":
                name = f"{word(rng, 2)} {rng.randint(1, 9)}"
            else:
                name = word(rng, rng.choice((2, 3)))
            if name.casefold() not in self._seen:
                self._seen.add(name.casefold())
                return name

    def entities(self, n: int) -> list[SeedEntity]:
        out = []
        rng = self._rng
        for i in range(n):
            entity_type = TYPES[i % len(TYPES)]
            name = self.name(entity_type)
            aliases: tuple[str, ...] = ()
            if i % 10 == 3:
                aliases = ("".join(w[0] for w in name.split()).upper() + str(i % 97),)
            first = T0 + timedelta(days=rng.randint(0, 300))
            out.append(
                SeedEntity(
                    id=f"seed{i:07d}",
                    name=name,
                    type=entity_type,
                    aliases=aliases,
                    first_seen=first,
                    last_seen=first + timedelta(days=rng.randint(0, 60)),
                    mention_count=rng.randint(1, 12),
                )
            )
        return out


def pairs_for(entities: list[SeedEntity], seed: int) -> list[SeedPair]:
    """About three co-occurrences per entity, with nearby (same cluster) partners mostly."""
    rng = random.Random(seed)
    found: dict[tuple[str, str], SeedPair] = {}
    n = len(entities)
    for i, e in enumerate(entities):
        for _ in range(3):
            j = min(n - 1, max(0, i + rng.randint(-50, 50)))
            if j == i:
                continue
            a, b = sorted((e.id, entities[j].id))
            found.setdefault((a, b), SeedPair(a, b, rng.randint(1, 4), e.first_seen, e.last_seen))
    return list(found.values())


def variant(rng: random.Random, name: str, entity_type: str) -> str:
    """A near variant of a stored name: case, a dropped letter, a given name, a title."""
    choice = rng.randrange(4)
    words = name.split()
    if choice == 0:
        return name.upper()
    if choice == 1 and len(words[-1]) > 4:
        w = words[-1]
        k = rng.randrange(1, len(w) - 1)
        return " ".join([*words[:-1], w[:k] + w[k + 1 :]])
    if choice == 2 and entity_type == "person":
        return words[0]
    return f"Dr. {words[-1]}" if entity_type == "person" else f"The {name}"


def sample_facts(existing: list[SeedEntity], count: int, seed: int) -> list[FactToResolve]:
    """Facts of three mentions each: an existing name, a near variant, and a new name."""
    rng = random.Random(seed)
    fresh = Generator(seed + 1000)
    fresh._seen = {e.name.casefold() for e in existing}  # new names are new at every size
    facts = []
    for n in range(count):
        a, b = rng.sample(existing, 2)
        new_type = rng.choice(TYPES)
        mentions = (
            MentionToResolve(text=a.name, type=a.type),
            MentionToResolve(text=variant(rng, b.name, b.type), type=b.type),
            MentionToResolve(text=fresh.name(new_type), type=new_type),
        )
        facts.append(
            FactToResolve(
                memory_id=f"sample-{n}",
                at=T0 + timedelta(days=200 + n % 100),
                content=" and ".join(m.text for m in mentions) + " met.",
                mentions=mentions,
            )
        )
    return facts


class _Rollback(Exception):
    """Raised to end a timed transaction without writing."""


async def seed_bank(runtime: Runtime, bank_id: str, entities: list[SeedEntity], how: str) -> None:
    if how == "retain":
        # ~20 caller entities per item, as a dense document would carry.
        for start in range(0, len(entities), 2000):
            chunk = entities[start : start + 2000]
            items = [
                RetainItem(
                    content="Notes: " + ", ".join(e.name for e in chunk[k : k + 20]) + ".",
                    timestamp=chunk[k].first_seen,
                    entities=[EntityHint(text=e.name, type=e.type) for e in chunk[k : k + 20]],
                )
                for k in range(0, len(chunk), 20)
            ]
            await runtime.retainer.retain(bank_id, items)
        return
    for start in range(0, len(entities), SEED_BATCH):
        batch = entities[start : start + SEED_BATCH]
        await runtime.graph.write(
            bank_id, lambda tx, batch=batch: seed_entities(tx, bank_id, batch)
        )
    pairs = pairs_for(entities, seed=11)
    for start in range(0, len(pairs), SEED_BATCH):
        chunk = pairs[start : start + SEED_BATCH]
        await runtime.graph.write(
            bank_id, lambda tx, chunk=chunk: seed_co_occurrences(tx, bank_id, chunk)
        )


async def seeded_size(runtime: Runtime, bank_id: str) -> int | None:
    """Entities in the bank, or None when there is no such bank."""
    try:
        bank = await runtime.banks.get(bank_id)
    except NotFound:
        return None
    return bank.counts.entities


async def time_sample(
    runtime: Runtime,
    resolver: GraphResolver,
    bank: Bank,
    facts: list[FactToResolve],
    stored: set[str],
) -> tuple[float, Counter[str]]:
    """Seconds spent resolving the sample, and what each kind of mention resolved to.

    One rolled-back transaction per fact; an outcome says whether the mention went to a
    stored entity or a new one.
    """
    spent = 0.0
    outcomes: Counter[str] = Counter()
    for fact in facts:

        async def resolve_and_roll_back(tx: Tx, fact: FactToResolve = fact) -> None:
            nonlocal spent
            start = time.perf_counter()
            [resolved] = await resolver.resolve(tx, bank, [fact])
            # The settle of the block the fact touched (its own mentions are not written in
            # this benchmark, so the replay holds the block's stored facts only). The service
            # runs it behind the write, for many writes at once; here each fact pays a whole one.
            pending = await resolver.record_mentions(tx, bank.id, [fact], [resolved])
            await resolver.settle(tx, bank.id, pending)
            spent += time.perf_counter() - start
            seeded = [r.entity_id in stored for r in resolved]
            outcomes["exact→existing" if seeded[0] else "exact→new"] += 1
            outcomes["variant→existing" if seeded[1] else "variant→new"] += 1
            outcomes["new→existing" if seeded[2] else "new→new"] += 1
            raise _Rollback

        with contextlib.suppress(_Rollback):
            await runtime.graph.write(bank.id, resolve_and_roll_back)
    return spent, outcomes


async def run(args: argparse.Namespace) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    uri = os.environ.get("MNEMO_NEO4J_URI", "bolt://127.0.0.1:7697")
    everything = Generator(seed=7).entities(max(sizes))
    facts = sample_facts(everything[: min(sizes)], args.sample, seed=5)
    mentions = sum(len(f.mentions) for f in facts)
    results: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory(prefix="mnemo-bench-") as data_dir:
        settings = load_settings({}, data_dir=data_dir, neo4j_uri=uri, **benchmark_neo4j_auth())
        async with Runtime.open(settings, background=False) as runtime:
            # As the service builds it: a settle reads the embedding model for namesakes.
            resolver = GraphResolver(
                embed=runtime.embedder.embed, stored_vectors=runtime.vectors.vectors
            )
            for size in sizes:
                # --keep: a stable id, reused by the next run when it holds the same entities.
                bank_id = f"bench-resolve-{size}-{args.load}"
                if not args.keep:
                    bank_id += f"-{uuid.uuid4().hex[:6]}"
                reused = args.keep and await seeded_size(runtime, bank_id) == size
                if not reused:
                    if args.keep and await seeded_size(runtime, bank_id) is not None:
                        await runtime.banks.delete(bank_id)
                    await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode="chunks"))
                try:
                    started = time.perf_counter()
                    if not reused:
                        await seed_bank(runtime, bank_id, everything[:size], args.load)
                    seeded = time.perf_counter() - started
                    bank = await runtime.banks.config(bank_id)
                    listed = await runtime.entities.page(bank_id, limit=size + 1)
                    stored = {e.id for e in listed.items}
                    await time_sample(runtime, resolver, bank, facts, stored)  # warm-up
                    passes = []
                    for _ in range(args.repeat):
                        spent, outcomes = await time_sample(runtime, resolver, bank, facts, stored)
                        passes.append(spent)
                    per_mention = 1000 * statistics.median(passes) / mentions
                    results.append((size, per_mention))
                    how = "reused" if reused else f"seeded in {seeded:6.1f} s ({args.load})"
                    print(
                        f"{size:>8,d} entities  {how}  {per_mention:6.2f} ms/mention  "
                        f"({mentions} mentions, median of {args.repeat})  "
                        f"{dict(sorted(outcomes.items()))}",
                        flush=True,
                    )
                finally:
                    if not args.keep:
                        await runtime.banks.delete(bank_id)
    first, last = results[0], results[-1]
    print(
        f"growth {first[0]:,d} → {last[0]:,d} entities: {last[1] / first[1]:.2f}x per mention "
        "(target ≤ 2x)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--sample", type=int, default=100, help="facts (3 mentions each)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes (median)")
    parser.add_argument("--load", choices=("bulk", "retain"), default="bulk")
    parser.add_argument(
        "--keep", action="store_true", help="keep the banks, and reuse kept ones (inspect them)"
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
