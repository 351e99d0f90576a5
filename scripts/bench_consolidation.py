"""Consolidation benchmark: quality on a labelled corpus, and throughput as a bank grows.

**Quality** (``scripts/data/consolidation_corpus.json``; every split in a fresh `local` bank):
each fact is retained as its own document, in time order, then the consolidation worker runs
until nothing is due (offline, or the configured LLM with ``--llm``). Over all pairs of the
split's facts: precision and recall of "share an observation" against the corpus's groups of
restatements; conflicting pairs joined (facts that differ in a number, date, negation, entity,
place or direction and must never share one; target 0); groups whose observation has exactly
their facts as sources and that ``proof_count``; observations with fewer than two sources. The
baseline, in the same run over the same stored vectors: complete-linkage clustering on cosine
alone at the same threshold (what the claim guards add).

**Throughput**: one bank grows with ``bench_retain``'s generated notes; at each size N of
``--sizes`` a window of ``--window`` new facts is retained into the bank (its N - window earlier
facts already consolidated) and consolidated, timed: facts/s and ms/fact, and the cost growth
from the first size to the last (target ≤ 2×).

    .venv/bin/python scripts/bench_consolidation.py                        # both parts
    .venv/bin/python scripts/bench_consolidation.py --sizes 2000,5000      # smaller throughput
    .venv/bin/python scripts/bench_consolidation.py --skip-throughput      # quality only

Uses the test Neo4j by default (``MNEMO_NEO4J_URI`` or ``--neo4j-uri`` override) and a temporary
data directory for the vector store.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_retain import notes
from bench_support import benchmark_neo4j_auth, benchmark_neo4j_uri

from app.config import load_settings
from app.curate.schemas.banks import BankUpdate
from app.curate.schemas.memories import MemoryFilter
from app.retain.schemas import RetainItem
from app.runtime import Runtime

CORPUS = Path(__file__).resolve().parent / "data" / "consolidation_corpus.json"


def corpus_facts(split: dict[str, Any]) -> list[dict[str, Any]]:
    """Every fact of a split with its gold group and what it must never join."""
    facts: list[dict[str, Any]] = []
    for group in split["groups"]:
        for n, f in enumerate(group["facts"]):
            facts.append({**f, "key": f"{group['id']}.{n}", "group": group["id"]})
    for conflict in split["conflicts"]:
        for n, f in enumerate(conflict["facts"]):
            key = f"{conflict['id']}.{n}"
            facts.append(
                {**f, "key": key, "group": key, "conflict": conflict["id"],
                 "against": conflict.get("against"), "kind": conflict["kind"]}
            )  # fmt: skip
    for n, f in enumerate(split["singletons"]):
        facts.append({**f, "key": f"single.{n}", "group": f"single.{n}"})
    return sorted(facts, key=lambda f: (f["at"], f["key"]))


def conflicting(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether the corpus says these two facts must never share an observation."""
    for x, y in ((a, b), (b, a)):
        if x.get("conflict") and x.get("conflict") == y.get("conflict"):
            return True
        if x.get("against") and x["against"] == y["group"]:
            return True
    return False


def score(facts: list[dict[str, Any]], clusters: list[set[str]]) -> dict[str, Any]:
    """Pairwise precision/recall of "same observation", conflicting joins, exact groups."""
    member: dict[str, set[int]] = {}
    for n, cluster in enumerate(clusters):
        for key in cluster:
            member.setdefault(key, set()).add(n)
    tp = fp = fn = joined = 0
    for a, b in itertools.combinations(facts, 2):
        gold = a["group"] == b["group"]
        predicted = bool(member.get(a["key"], set()) & member.get(b["key"], set()))
        tp += gold and predicted
        fp += predicted and not gold
        fn += gold and not predicted
        joined += predicted and conflicting(a, b)
    groups: dict[str, set[str]] = {}
    for f in facts:
        groups.setdefault(f["group"], set()).add(f["key"])
    gold_groups = [g for g in groups.values() if len(g) > 1]
    exact = sum(1 for g in gold_groups if g in clusters)
    return {
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "conflicting_joined": joined,
        "exact_groups": exact,
        "groups": len(gold_groups),
        "observations": len(clusters),
    }


def cosine_baseline(keys: list[str], vectors: np.ndarray, threshold: float) -> list[set[str]]:
    """Complete-linkage clusters on cosine alone, facts in time order (no claim guards)."""
    clusters: list[list[int]] = []
    for i in range(len(keys)):
        best, best_score = None, threshold
        for n, cluster in enumerate(clusters):
            low = min(float(vectors[i] @ vectors[j]) for j in cluster)
            if low >= best_score:
                best, best_score = n, low
        if best is None:
            clusters.append([i])
        else:
            clusters[best].append(i)
    return [{keys[i] for i in c} for c in clusters if len(c) > 1]


async def quality(runtime: Runtime, name: str, split: dict[str, Any]) -> dict[str, Any]:
    """Retain a split into a fresh bank, consolidate it, score the observations."""
    facts = corpus_facts(split)
    bank_id = f"bench-consolidation-{name}-{uuid.uuid4().hex[:6]}"
    await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode="local"))
    key_of: dict[str, str] = {}
    try:
        for f in facts:
            answer = await runtime.retainer.retain(
                bank_id,
                [RetainItem(content=f["text"], timestamp=datetime.fromisoformat(f["at"]),
                            document_id=f["key"])],
            )  # fmt: skip
            for memory_id in answer.memory_ids:
                key_of[memory_id] = f["key"]
            if len(answer.memory_ids) != 1:
                print(f"  note: {f['key']} gave {len(answer.memory_ids)} facts", file=sys.stderr)
        started = time.perf_counter()
        await runtime.worker.run_until_idle(timeout_s=600)
        seconds = time.perf_counter() - started
        page = await runtime.memories.page(
            bank_id,
            MemoryFilter(types=("observation",), states=("valid",)),
            limit=1000,
            offset=0,
        )
        clusters = [{key_of[s] for s in o.source_memory_ids or []} for o in page.items]
        proof_ok = sum(1 for o in page.items if o.proof_count == len(o.source_memory_ids or []))
        single = sum(1 for o in page.items if o.proof_count < 2)
        ids = list(key_of)
        stored = await runtime.vectors.vectors(bank_id, ids)
        keys = [key_of[i] for i in ids if i in stored]
        vectors = np.stack([stored[i] for i in ids if i in stored])
        order = sorted(range(len(keys)), key=lambda n: next(
            (f["at"], f["key"]) for f in facts if f["key"] == keys[n]))  # fmt: skip
        threshold = runtime.consolidator.policy.offline.threshold
        baseline = cosine_baseline([keys[n] for n in order], vectors[order], threshold)
        report = {
            "split": name,
            "facts": len(facts),
            "seconds": round(seconds, 1),
            "mnemo": score(facts, clusters),
            "baseline": score(facts, baseline),
            "proof_counts_exact": f"{proof_ok}/{len(page.items)}",
            "single_source_observations": single,
        }
    finally:
        await runtime.banks.delete(bank_id)
    return report


async def throughput(
    runtime: Runtime, sizes: list[int], window: int, batch: int
) -> list[dict[str, float]]:
    """Consolidation facts/s of a fresh window at each bank size (see the module docstring)."""
    bank_id = f"bench-consolidation-scale-{uuid.uuid4().hex[:6]}"
    await runtime.banks.put(bank_id, BankUpdate(retain_extraction_mode="local"))
    stream = notes(seed=7, start=datetime(2024, 1, 1, tzinfo=UTC))
    facts = 0
    rows: list[dict[str, float]] = []

    async def grow(target: int) -> None:
        nonlocal facts
        while facts < target:
            answer = await runtime.retainer.retain(bank_id, [next(stream) for _ in range(batch)])
            facts += len(answer.memory_ids)

    try:
        for size in sizes:
            await grow(size - window)
            started = time.perf_counter()
            backlog = await runtime.worker.run_until_idle(timeout_s=7200)
            print(
                f"  bank at {facts:,d} facts: backlog of {backlog:,d} consolidated in "
                f"{time.perf_counter() - started:.1f} s (not timed)",
                flush=True,
            )
            before = facts
            await grow(size)
            started = time.perf_counter()
            handled = await runtime.worker.run_until_idle(timeout_s=7200)
            seconds = time.perf_counter() - started
            row = {
                "bank_facts": float(facts),
                "window_facts": float(facts - before),
                "handled": float(handled),
                "seconds": seconds,
                "facts_per_s": handled / seconds if seconds else 0.0,
                "ms_per_fact": 1000 * seconds / max(handled, 1),
            }
            rows.append(row)
            print(
                f"  bank {facts:>7,d} facts: window of {handled:,d} facts consolidated in "
                f"{seconds:6.1f} s  {row['facts_per_s']:7.1f} facts/s  "
                f"{row['ms_per_fact']:6.2f} ms/fact",
                flush=True,
            )
        observations = await runtime.memories.page(
            bank_id, MemoryFilter(types=("observation",)), limit=1, offset=0
        )
        print(f"  observations in the bank: {observations.total:,d}", flush=True)
    finally:
        await runtime.banks.delete(bank_id)
    return rows


def print_quality(report: dict[str, Any]) -> None:
    m, b = report["mnemo"], report["baseline"]
    print(
        f"{report['split']:8s} {report['facts']} facts, consolidated in {report['seconds']} s\n"
        f"  mnemo    precision {m['precision']:.3f}  recall {m['recall']:.3f}  "
        f"conflicting joined {m['conflicting_joined']}  exact groups "
        f"{m['exact_groups']}/{m['groups']}  observations {m['observations']}\n"
        f"  baseline precision {b['precision']:.3f}  recall {b['recall']:.3f}  "
        f"conflicting joined {b['conflicting_joined']}  exact groups "
        f"{b['exact_groups']}/{b['groups']}  (cosine only)\n"
        f"  proof_count = distinct sources: {report['proof_counts_exact']}; "
        f"observations from one fact: {report['single_source_observations']}",
        flush=True,
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--splits", default="tune,heldout")
    parser.add_argument("--sizes", default="10000,50000")
    parser.add_argument("--window", type=int, default=1000, help="facts timed at each size")
    parser.add_argument("--batch", type=int, default=100, help="items per retain request")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--llm", action="store_true", help="decide with MNEMO_LLM_BASE_URL")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--neo4j-uri", default=None)
    return parser


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Both parts, as the arguments say."""
    report: dict[str, Any] = {"quality": [], "throughput": []}
    corpus = json.loads(args.corpus.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="mnemo-bench-") as data_dir:
        overrides: dict[str, Any] = {
            "data_dir": data_dir,
            "neo4j_uri": benchmark_neo4j_uri(args.neo4j_uri),
            "consolidation_worker": False,
            **benchmark_neo4j_auth(),
        }
        settings = load_settings({} if not args.llm else None, **overrides)
        async with Runtime.open(settings, background=False) as runtime:
            if not args.skip_quality:
                for name in args.splits.split(","):
                    result = await quality(runtime, name, corpus["splits"][name])
                    print_quality(result)
                    report["quality"].append(result)
            if not args.skip_throughput:
                sizes = [int(s) for s in args.sizes.split(",")]
                rows = await throughput(runtime, sizes, args.window, args.batch)
                report["throughput"] = rows
                growth = rows[-1]["ms_per_fact"] / rows[0]["ms_per_fact"]
                print(
                    f"cost per fact at {int(rows[-1]['bank_facts']):,d} / at "
                    f"{int(rows[0]['bank_facts']):,d} facts: {growth:.2f}x",
                    flush=True,
                )
    return report


def main() -> int:
    args = build_parser().parse_args()
    report = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
