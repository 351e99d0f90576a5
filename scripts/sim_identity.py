#!/usr/bin/env python3
"""Offline simulation of Mnemo's entity resolution on an identity corpus (no database).

Usage:
  .venv/bin/python scripts/sim_identity.py [CORPUS.json] [--out DIR] [--examples N] [--quiet]
      [--set FIELD=VALUE ...]

Replays the corpus items one at a time (forward, then reversed) against the pure core in
app.resolve, through the same working set (``app.resolve.working_set``) and procedure
(``app.resolve.batch.resolve_one``) that the store-backed resolver runs over what it loads from
Neo4j: candidates from an index, decisions, then re-evaluation of every touched entity.
Reviews are counted, never decided (a review leaves the pair apart). Writes the
two assignment files and scores them with the corpus's score.py (a subprocess), then prints
P/R/F1 per order, F1 per case family, false merges in the near-miss family, and agreement.

``--candidate-recall`` audits the candidate index as well: at every lookup, each entity of the
working set that the name checks admit for the name looked up (``batch.could_merge``, the
superset test the store applies to its index hits) and that the lookup did not return is
counted. Zero means no merge was lost to retrieval: what the resolver missed, it decided.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import Settings
from app.domain.names import name_key
from app.resolve.batch import FactInput, could_merge
from app.resolve.memory_bank import MemoryBank
from app.resolve.model import Mention
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy
from app.resolve.settle import COMPANY_REVIEW, SHARED_REVIEW
from app.resolve.settle_store import CachedEmbed
from app.resolve.supplied_aliases import aliases_stated_for
from app.resolve.working_set import WorkingSet
from app.store.embeddings import Embedder
from scripts.bench_identity import score, scorer_for  # the same scorer runner as the benchmark

DEFAULT_CORPUS = (
    Path(__file__).resolve().parents[2] / "shared" / "bench" / "identity" / "identity_dev.json"
)
FAMILIES = ("namesakes", "aliases", "near_misses", "unicode_case", "hub", "long_gap")
# Re-evaluation rounds per touched entity (a merge re-queues the survivor).
RECONSIDER_ROUNDS = 8


def run(
    items: list[dict[str, Any]],
    policy: ResolutionPolicy,
    *,
    settle: bool = True,
    embed: Callable[[Sequence[str]], Sequence[Sequence[float]]] | None = None,
) -> tuple[dict[str, str], MemoryBank]:
    """Replay items in the given order; the assignment {anchor: final entity id} and the bank."""
    bank = MemoryBank(policy, settle=settle, embed=embed)
    for item in items:
        content = str(item["content"])
        bank.retain(
            FactInput(
                mentions=tuple(
                    Mention(
                        text=m["text"],
                        type=m["type"],
                        aliases=aliases_stated_for(content, m["text"]),
                    )
                    for m in item["mentions"]
                ),
                at=datetime.fromisoformat(str(item["timestamp"]).replace("Z", "+00:00")),
                content=content,
                memory_id=str(item["id"]),
            )
        )
    assignment: dict[str, str] = {}
    for item, fact, positions in zip(items, bank.facts, bank.positions, strict=True):
        for mention, index in zip(fact.mentions, positions, strict=True):
            assignment[f"{item['id']}#{index}"] = mention.entity_id
    return assignment, bank


@contextlib.contextmanager
def audited_lookups() -> Iterator[Counter[str]]:
    """Count, while open, the admissible entities each ``WorkingSet.lookup`` left out."""
    counts: Counter[str] = Counter()
    lookup = WorkingSet.lookup

    def audited(ws: WorkingSet, key: str, entity_type: str | None) -> tuple[str, ...]:
        found = lookup(ws, key, entity_type)
        counts["lookups"] += 1
        for entity in ws.entities.values():
            names = [*entity.names, name_key(entity.canonical)]
            if could_merge(names, entity.type, entity.is_label, [(key, entity_type)], ws.policy):
                counts["admissible"] += 1
                counts["not retrieved"] += entity.id not in found
        return found

    WorkingSet.lookup = audited  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        WorkingSet.lookup = lookup  # type: ignore[method-assign]


def _embedding_model() -> Callable[[Sequence[str]], Sequence[Sequence[float]]]:
    """The service's embedding model (the default settings), called without an event loop."""
    embedder = asyncio.run(Embedder.load(Settings()))
    # As the store's settles do: a block is settled again at every item that touches it.
    cached = CachedEmbed(embedder.embed)

    def embed(texts: Sequence[str]) -> Sequence[Sequence[float]]:
        return [list(map(float, row)) for row in asyncio.run(cached(texts))]

    return embed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Simulate entity resolution on an identity corpus.")
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--out", type=Path, default=Path(".data/sim_identity"))
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--quiet", action="store_true", help="only the summary lines")
    ap.add_argument("--no-settle", action="store_true", help="first pass only (no settle)")
    ap.add_argument(
        "--no-embeddings",
        action="store_true",
        help="settle without the embedding model (no namesakes told apart by company)",
    )
    ap.add_argument(
        "--candidate-recall",
        action="store_true",
        help="also count admissible entities the candidate lookup did not return",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="override a numeric ResolutionPolicy field, e.g. tie_margin=0.1",
    )
    args = ap.parse_args(argv)
    corpus = json.loads(args.corpus.read_text(encoding="utf-8"))
    scorer = scorer_for(args.corpus)
    args.out.mkdir(parents=True, exist_ok=True)
    overrides = {k: float(v) for k, v in (s.split("=", 1) for s in args.set)}
    policy = msgspec.structs.replace(DEFAULT_POLICY, **overrides)
    items = list(corpus["items"])
    embed = None if args.no_embeddings else _embedding_model()
    paths: dict[str, Path] = {}
    for order, seq in (("forward", items), ("reverse", items[::-1])):
        with audited_lookups() if args.candidate_recall else contextlib.nullcontext() as audit:
            assignment, bank = run(seq, policy, settle=not args.no_settle, embed=embed)
        if audit is not None:
            print(
                f"   candidate recall ({order}): {audit['lookups']} lookups, "
                f"{audit['admissible']} admissible entities, {audit['not retrieved']} not retrieved"
            )
        path = args.out / f"{order}.json"
        path.write_text(json.dumps(assignment, ensure_ascii=False, indent=1), encoding="utf-8")
        paths[order] = path
        res = score(scorer, args.corpus, str(path), "--examples", str(args.examples))
        print_order(order, res, bank, args.quiet)
        print_company_reviews(corpus, assignment, bank)
    cmp = score(scorer, args.corpus, "--compare", str(paths["forward"]), str(paths["reverse"]))
    agree = 100 * (1 - float(cmp["disagreement_share_of_linked"]))
    print(
        f"\nagreement: {cmp['linked_by_either']} pairs linked by either order, "
        f"{cmp['disagreeing_pairs']} disagree -> {agree:.2f}% agree"
    )
    if not args.quiet:
        for ex in cmp.get("examples", [])[: args.examples]:
            a, b = ex["a"], ex["b"]
            print(
                f"  [{ex['kind']}] {a['anchor']} {a.get('text')!r} ~ "
                f"{b['anchor']} {b.get('text')!r}"
            )
    return 0


def print_order(order: str, res: dict[str, Any], bank: MemoryBank, quiet: bool) -> None:
    print(
        f"== {order}: P={res['precision']:.4f} R={res['recall']:.4f} F1={res['f1']:.4f}  "
        f"(false-merge pairs {res['false_merge_pairs']}, missed {res['missed_merge_pairs']}, "
        f"reviews {len(bank.reviews)}, settles {bank.settles})"
    )
    per_case = res["per_case"]
    print("   " + "   ".join(f"{f} F1={per_case[f]['f1']:.3f}" for f in FAMILIES if f in per_case))
    near = per_case.get("near_misses", {})
    print(f"   near_misses false-merge pairs: {near.get('false_merge_pairs')}")
    if quiet:
        return
    for fm in res["false_merge_groups"][:8]:
        x, y = fm["example"]
        print(
            f"   FALSE {fm['pairs']:3d}  {fm['gold_a']} x {fm['gold_b']}   e.g. "
            f"{x['anchor']} {x['text']!r} ~ {y['anchor']} {y['text']!r}"
        )
    for mm in res["missed_merge_groups"][:12]:
        x, y = mm["example"]
        print(
            f"   MISSED {mm['pairs']:3d}  {mm['gold']} ({mm['anchors']} anchors in "
            f"{mm['predicted_clusters']} entities)   e.g. {x['anchor']} {x['text']!r} vs "
            f"{y['anchor']} {y['text']!r}"
        )


def print_company_reviews(
    corpus: dict[str, Any], assignment: dict[str, str], bank: MemoryBank
) -> None:
    """How many reviews of namesakes parted by company name two different people.

    Each entity is read as the identity most of its mentions have; a review between entities
    of one identity put one person's facts apart.
    """
    golds: dict[str, Counter[str]] = defaultdict(Counter)
    for item in corpus["items"]:
        for index, mention in enumerate(item["mentions"]):
            entity = assignment.get(f"{item['id']}#{index}")
            if entity:
                golds[entity][mention["gold"]] += 1
    pairs = {
        frozenset((r.entity_id, other))
        for r in bank.reviews
        if COMPANY_REVIEW in r.reason or SHARED_REVIEW in r.reason
        for other in r.others
        if r.entity_id in golds and other in golds and r.entity_id != other
    }
    apart = sum(len({golds[e].most_common(1)[0][0] for e in pair}) == 2 for pair in pairs)
    print(f"   company reviews: {len(pairs)} pairs, {apart} between two identities")


if __name__ == "__main__":
    sys.exit(main())
