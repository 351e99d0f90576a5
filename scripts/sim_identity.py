#!/usr/bin/env python3
"""Offline simulation of Mnemo's entity resolution on an identity corpus (no database).

Usage:
  .venv/bin/python scripts/sim_identity.py [CORPUS.json] [--out DIR] [--examples N] [--quiet]
      [--trace forward|reverse] [--set FIELD=VALUE ...]

Replays the corpus items one at a time (forward, then reversed) against the pure core in
app.resolve, with an in-memory stand-in for what the Neo4j store provides: entities with their
names, type, first/last seen and mention count; a co-occurrence graph (each item's mentions
co-occur, with counts); and a candidate index that answers only what a Neo4j index can (exact
name key, lookup keys: core / compact / acronym, word tokens as a full-text index would,
trigram fuzzy match), capped per mention (exact matches always kept). After each item the
entities it touched are re-evaluated against their own candidates (``reconsider``), as the
store will do. Reviews are counted, never decided (a review leaves the pair apart). Writes the
two assignment files and scores them with the corpus's score.py (a subprocess), then prints
P/R/F1 per order, F1 per case family, false merges in the near-miss family, and agreement.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.resolve.decide import resolve_fact
from app.resolve.model import (
    Candidate,
    CreateAndReview,
    Evidence,
    FactMentions,
    KeepApart,
    Mention,
    Merge,
    Neighbour,
    Review,
)
from app.resolve.normalise import fold, index_keys, name_form, name_key, type_class
from app.resolve.reconsider import reconsider
from app.resolve.scoring import DEFAULT_POLICY, ResolutionPolicy

DEFAULT_CORPUS = Path("/work/shared/bench/identity/identity_dev.json")
FAMILIES = ("namesakes", "aliases", "near_misses", "unicode_case", "hub", "long_gap")
# Re-evaluation rounds per touched entity (a merge re-queues the survivor).
RECONSIDER_ROUNDS = 8


@dataclass
class Entity:
    """One stored entity of the simulated bank."""

    id: str
    canonical: str
    type: str | None
    first: datetime
    last: datetime
    names: dict[str, bool] = field(default_factory=dict)  # name key -> stated alias
    mentions: int = 0
    neighbours: Counter[str] = field(default_factory=Counter)  # id -> facts together


class Bank:
    """In-memory stand-in for the store: entities, co-occurrence graph, candidate index."""

    def __init__(self, policy: ResolutionPolicy, trace: bool = False) -> None:
        self.policy = policy
        self.trace = trace
        self.entities: dict[str, Entity] = {}
        self.merged_into: dict[str, str] = {}
        self.by_key: dict[str, set[str]] = defaultdict(set)
        self.by_lookup: dict[str, set[str]] = defaultdict(set)
        self.by_token: dict[str, set[str]] = defaultdict(set)
        self.by_trigram: dict[str, set[str]] = defaultdict(set)
        self.reviews: list[tuple[str, tuple[str, ...]]] = []
        self.counter = 0

    # ---- index ---------------------------------------------------------------------------

    def _index_name(self, eid: str, key: str, entity_type: str | None) -> None:
        keys = index_keys(key, entity_type)
        self.by_key[key].add(eid)
        for k in keys.lookup:
            self.by_lookup[k].add(eid)
        for t in keys.text.split():
            self.by_token[t].add(eid)
        for g in _trigrams(key):
            self.by_trigram[g].add(eid)

    def _unindex(self, eid: str) -> None:
        for table in (self.by_key, self.by_lookup, self.by_token, self.by_trigram):
            for ids in table.values():
                ids.discard(eid)

    def lookup(self, key: str, entity_type: str | None) -> list[str]:
        """Candidate ids: exact key, then lookup keys, then shared tokens, then trigrams."""
        form = name_form(key, type_class(entity_type))
        exact = sorted(self.by_key.get(key, ()))
        cap = max(self.policy.max_candidates, len(exact))
        out = list(exact)
        seen = set(out)

        def add(ids: list[str]) -> None:
            for i in ids:
                if i not in seen and len(out) < cap:
                    seen.add(i)
                    out.append(i)

        lookup_hits: set[str] = set()
        for k in index_keys(key, entity_type).lookup:
            lookup_hits |= self.by_lookup.get(k, set())
        if len(form.words) == 1:  # a single word may be the acronym of a stored name
            lookup_hits |= self.by_lookup.get(form.words[0], set())
        add(sorted(lookup_hits))
        token_hits: Counter[str] = Counter()
        for t in form.tokens:
            for i in self.by_token.get(t, ()):
                token_hits[i] += 1
        add([i for i, _ in sorted(token_hits.items(), key=lambda kv: (-kv[1], kv[0]))])
        grams = _trigrams(key)
        gram_hits: Counter[str] = Counter()
        for g in grams:
            for i in self.by_trigram.get(g, ()):
                gram_hits[i] += 1
        fuzzy = [i for i, c in gram_hits.items() if c / len(grams) >= 0.5]
        add(sorted(fuzzy, key=lambda i: (-gram_hits[i], i)))
        return out

    # ---- what the pure core reads ----------------------------------------------------------

    def candidate(self, eid: str) -> Candidate:
        e = self.entities[eid]
        return Candidate(
            entity_id=e.id,
            canonical_name=e.canonical,
            names=tuple(e.names),
            stated_names=tuple(k for k, stated in e.names.items() if stated),
            type=e.type,
            first_seen=e.first,
            last_seen=e.last,
            mention_count=e.mentions,
            degree=len(e.neighbours),
            neighbours=tuple(
                Neighbour(n, len(self.entities[n].neighbours), self.series(n), count)
                for n, count in sorted(e.neighbours.items())
            ),
        )

    def series(self, eid: str) -> str:
        e = self.entities[eid]
        return index_keys(name_key(e.canonical), e.type).series

    # ---- writes ----------------------------------------------------------------------------

    def create(self, text: str, entity_type: str | None, at: datetime) -> str:
        self.counter += 1
        eid = f"e{self.counter:04d}"
        self.entities[eid] = Entity(id=eid, canonical=text, type=entity_type, first=at, last=at)
        return eid

    def add_name(self, eid: str, key: str, stated: bool) -> None:
        e = self.entities[eid]
        if key not in e.names or (stated and not e.names[key]):
            e.names[key] = e.names.get(key, False) or stated
            self._index_name(eid, key, e.type)

    def touch(self, eid: str, at: datetime) -> None:
        e = self.entities[eid]
        e.mentions += 1
        e.first, e.last = min(e.first, at), max(e.last, at)

    def cooccur(self, ids: list[str]) -> None:
        for a in ids:
            for b in ids:
                if a != b:
                    self.entities[a].neighbours[b] += 1

    def merge(self, keep: str, gone: str) -> None:
        k, g = self.entities[keep], self.entities.pop(gone)
        self._unindex(gone)
        for key, stated in g.names.items():
            k.names[key] = k.names.get(key, False) or stated
        for key in k.names:
            self._index_name(keep, key, k.type)
        k.mentions += g.mentions
        k.first, k.last = min(k.first, g.first), max(k.last, g.last)
        for n, count in g.neighbours.items():
            moved = self.entities[n].neighbours.pop(gone, 0)
            if n != keep:
                k.neighbours[n] += count
                self.entities[n].neighbours[keep] += moved
        k.neighbours.pop(gone, None)
        self.merged_into[gone] = keep

    def final(self, eid: str) -> str:
        while eid in self.merged_into:
            eid = self.merged_into[eid]
        return eid


def _trigrams(key: str) -> set[str]:
    s = f"  {fold(key)} "
    return {s[i:i + 3] for i in range(len(s) - 2)}


def _evidence(e: Evidence) -> str:
    return (f"{e.entity_id} {e.score:.2f} [{e.name.kind} {e.name.score:.2f} ctx {e.context:.2f}"
            f" rec {e.recency:.2f} fam {e.familiarity:.2f}]")


def _describe(d: object) -> str:
    if isinstance(d, Merge):
        return f"MERGE {_evidence(d.evidence)}"
    if isinstance(d, CreateAndReview | Review):
        return f"{type(d).__name__} ({d.reason}) " + "; ".join(_evidence(e) for e in d.evidence)
    return repr(d)[:160]


def process_item(bank: Bank, item: dict[str, Any]) -> list[str]:
    """Resolve one item's mentions, write the results, reconsider what changed."""
    at = datetime.fromisoformat(str(item["timestamp"]).replace("Z", "+00:00"))
    mentions = tuple(Mention(text=m["text"], type=m["type"]) for m in item["mentions"])
    fact = FactMentions(mentions=mentions, at=at, content=str(item["content"]),
                        bank_entities=len(bank.entities))
    candidates = [
        tuple(bank.candidate(i) for i in bank.lookup(name_key(m.text), m.type))
        for m in mentions
    ]
    decisions = resolve_fact(fact, candidates, bank.policy)
    assigned = [""] * len(mentions)
    for group in decisions:
        d = group.decision
        if bank.trace:
            texts = [mentions[i].text for i in group.mentions]
            print(f"  {item['id']} {texts} -> {_describe(d)}")
        if isinstance(d, Merge):
            eid = d.entity_id
        else:
            first = mentions[group.mentions[0]]
            eid = bank.create(first.text, first.type, at)
            if isinstance(d, CreateAndReview):
                bank.reviews.append((d.reason, (eid, *(e.entity_id for e in d.evidence))))
        for key in group.names:
            bank.add_name(eid, key, key in group.stated_names)
        bank.touch(eid, at)
        for i in group.mentions:
            assigned[i] = eid
    touched = sorted({a for a in assigned if a})
    bank.cooccur(touched)
    reconsider_all(bank, touched, at)
    return assigned


def reconsider_all(bank: Bank, touched: list[str], at: datetime) -> None:
    """Re-evaluate each changed entity against its own candidates until nothing merges."""
    queue = list(touched)
    budget = RECONSIDER_ROUNDS * max(1, len(touched))
    while queue and budget > 0:
        budget -= 1
        eid = bank.final(queue.pop(0))
        e = bank.entities[eid]
        others: list[str] = []
        for key in e.names:
            others.extend(i for i in bank.lookup(key, e.type) if i != eid and i not in others)
        result = reconsider(bank.candidate(eid), [bank.candidate(i) for i in others],
                            bank.policy, changed_at=at, bank_entities=len(bank.entities))
        if bank.trace and not isinstance(result, KeepApart):
            sizes = f"n={e.mentions}"
            if isinstance(result, Merge):
                sizes += f"/{bank.entities[result.entity_id].mentions}"
            print(f"    reconsider {eid} {list(e.names)} {sizes} -> {_describe(result)}")
        if isinstance(result, Merge):
            keep, gone = sorted((eid, result.entity_id),
                                key=lambda x: (-bank.entities[x].mentions, x))
            bank.merge(keep, gone)
            queue.append(keep)
        elif isinstance(result, Review):
            review = ("reconsider: " + result.reason,
                      (eid, *(ev.entity_id for ev in result.evidence)))
            if review not in bank.reviews:
                bank.reviews.append(review)


def run(items: list[dict[str, Any]], policy: ResolutionPolicy,
        trace: bool = False) -> tuple[dict[str, str], Bank]:
    """Replay items in the given order; the assignment {anchor: final entity id} and the bank."""
    bank = Bank(policy, trace)
    raw: dict[str, str] = {}
    for item in items:
        for idx, eid in enumerate(process_item(bank, item)):
            raw[f"{item['id']}#{idx}"] = eid
    return {anchor: bank.final(eid) for anchor, eid in raw.items()}, bank


def score(scorer: Path, corpus: Path, *args: str) -> dict[str, Any]:
    """Run the corpus's scorer with ``--json`` and return its result."""
    out = subprocess.run([sys.executable, str(scorer), str(corpus), *args, "--json"],
                         check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Simulate entity resolution on an identity corpus.")
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--out", type=Path, default=Path(".data/sim_identity"))
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--quiet", action="store_true", help="only the summary lines")
    ap.add_argument("--trace", choices=("forward", "reverse"), help="print every decision")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="override a numeric ResolutionPolicy field, e.g. tie_margin=0.1")
    args = ap.parse_args(argv)
    corpus = json.loads(args.corpus.read_text(encoding="utf-8"))
    scorer = args.corpus.parent / "score.py"
    args.out.mkdir(parents=True, exist_ok=True)
    overrides = {k: float(v) for k, v in (s.split("=", 1) for s in args.set)}
    policy = msgspec.structs.replace(DEFAULT_POLICY, **overrides)
    items = list(corpus["items"])
    paths: dict[str, Path] = {}
    for order, seq in (("forward", items), ("reverse", items[::-1])):
        assignment, bank = run(seq, policy, trace=args.trace == order)
        path = args.out / f"{order}.json"
        path.write_text(json.dumps(assignment, ensure_ascii=False, indent=1), encoding="utf-8")
        paths[order] = path
        res = score(scorer, args.corpus, str(path), "--examples", str(args.examples))
        print_order(order, res, bank, args.quiet)
    cmp = score(scorer, args.corpus, "--compare", str(paths["forward"]), str(paths["reverse"]))
    agree = 100 * (1 - float(cmp["disagreement_share_of_linked"]))
    print(f"\nagreement: {cmp['linked_by_either']} pairs linked by either order, "
          f"{cmp['disagreeing_pairs']} disagree -> {agree:.2f}% agree")
    if not args.quiet:
        for ex in cmp.get("examples", [])[: args.examples]:
            a, b = ex["a"], ex["b"]
            print(f"  [{ex['kind']}] {a['anchor']} {a.get('text')!r} ~ "
                  f"{b['anchor']} {b.get('text')!r}")
    return 0


def print_order(order: str, res: dict[str, Any], bank: Bank, quiet: bool) -> None:
    print(f"== {order}: P={res['precision']:.4f} R={res['recall']:.4f} F1={res['f1']:.4f}  "
          f"(false-merge pairs {res['false_merge_pairs']}, missed {res['missed_merge_pairs']}, "
          f"reviews {len(bank.reviews)})")
    per_case = res["per_case"]
    print("   " + "   ".join(f"{f} F1={per_case[f]['f1']:.3f}" for f in FAMILIES if f in per_case))
    near = per_case.get("near_misses", {})
    print(f"   near_misses false-merge pairs: {near.get('false_merge_pairs')}")
    if quiet:
        return
    for fm in res["false_merge_groups"][:8]:
        x, y = fm["example"]
        print(f"   FALSE {fm['pairs']:3d}  {fm['gold_a']} x {fm['gold_b']}   e.g. "
              f"{x['anchor']} {x['text']!r} ~ {y['anchor']} {y['text']!r}")
    for mm in res["missed_merge_groups"][:12]:
        x, y = mm["example"]
        print(f"   MISSED {mm['pairs']:3d}  {mm['gold']} ({mm['anchors']} anchors in "
              f"{mm['predicted_clusters']} entities)   e.g. {x['anchor']} {x['text']!r} vs "
              f"{y['anchor']} {y['text']!r}")


if __name__ == "__main__":
    sys.exit(main())
