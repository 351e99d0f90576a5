"""Identity benchmark: pairwise P/R/F1 of "same entity" over a corpus, forward and reverse.

Follows ../shared/bench/identity/README.md: for each order a fresh bank in `chunks` mode; the
items retained one request at a time with their mentions as `entities`; each memory read back
through the API to see which entity every mention resolved to; the assignment scored by the
corpus's own score.py (per order, per case family, examples, and order agreement).

    .venv/bin/python scripts/bench_identity.py ../shared/bench/identity/identity_dev.json
    .venv/bin/python scripts/bench_identity.py CORPUS --url http://127.0.0.1:8888  # running service

Without --url the service runs in this process against the test Neo4j (MNEMO_NEO4J_URI
overrides) with a temporary data directory. A settle runs behind the writes on timers, so
which writes one settle covers depends on the machine's pace; ``--settle-after N`` settles
each time the queued writes touched N entities instead (``bench_support.settle_timing``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.client import MnemoClient
from app.config import load_settings
from app.curate.schemas.banks import BankUpdate
from app.domain.names import name_key, type_class
from app.embedded import serve_in_thread
from app.retain.schemas import EntityHint, RetainItem
from scripts.bench_support import SETTLE_AFTER_HELP, benchmark_neo4j_auth, settle_timing


@contextmanager
def service(url: str | None, settle_after: int | None = None) -> Iterator[str]:
    """The given service, or one served from this process (``settle_timing``)."""
    if url:
        yield url
        return
    uri = os.environ.get("MNEMO_NEO4J_URI", "bolt://127.0.0.1:7697")
    with tempfile.TemporaryDirectory(prefix="mnemo-identity-") as data_dir:
        settings = load_settings(
            {},
            data_dir=data_dir,
            neo4j_uri=uri,
            log_level="warning",
            **benchmark_neo4j_auth(),
            **settle_timing(settle_after),
        )
        with serve_in_thread(settings) as served:
            yield served


def assign(client: MnemoClient, items: list[dict[str, Any]]) -> tuple[dict[str, str], float]:
    """Retain items one request at a time; map each mention anchor to its entity id."""
    bank = f"identity-{uuid.uuid4().hex[:8]}"
    client.put_bank(bank, BankUpdate(retain_extraction_mode="chunks"))
    assignment: dict[str, str] = {}
    started = time.perf_counter()
    try:
        memories = []
        for item in items:
            answer = client.retain(
                bank,
                [
                    RetainItem(
                        content=item["content"],
                        timestamp=item["timestamp"],
                        entities=[
                            EntityHint(text=m["text"], type=m["type"]) for m in item["mentions"]
                        ],
                    )
                ],
            )
            memories.append(answer.memory_ids)
        elapsed = time.perf_counter() - started
        for item, memory_ids in zip(items, memories, strict=True):
            # By surface, and by surface and type where one item names two things alike
            # ("Florence and I landed in Florence").
            by_surface: dict[str, str] = {}
            by_typed: dict[tuple[str, str], str] = {}
            for memory_id in memory_ids:
                for entity in client.get_memory(bank, memory_id)["mentions"]:
                    key = name_key(entity["mention"])
                    by_surface.setdefault(key, entity["id"])
                    by_typed.setdefault((key, type_class(entity.get("type"))), entity["id"])
            for index, mention in enumerate(item["mentions"]):
                key = name_key(mention["text"])
                entity_id = by_typed.get((key, type_class(mention["type"])), by_surface.get(key))
                if entity_id is not None:
                    assignment[f"{item['id']}#{index}"] = entity_id
    finally:
        client.delete_bank(bank)
    return assignment, elapsed


SHARED_SCORER = Path(__file__).resolve().parents[2] / "shared" / "bench" / "identity" / "score.py"


def scorer_for(corpus: Path) -> Path:
    """The corpus's own score.py, else the shared one (corpora kept in this repository)."""
    own = corpus.parent / "score.py"
    return own if own.exists() else SHARED_SCORER


def score(scorer: Path, corpus: Path, *args: str) -> dict[str, Any]:
    """Run the corpus's scorer and return its JSON result."""
    out = subprocess.run(
        [sys.executable, str(scorer), str(corpus), *args, "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def report(order: str, res: dict[str, Any], mentions: int, elapsed: float, examples: int) -> None:
    """Print one order's scores, per family, and examples."""
    print(
        f"== {order}: P={res['precision']:.4f} R={res['recall']:.4f} F1={res['f1']:.4f}  "
        f"false-merge pairs {res['false_merge_pairs']}, missed {res['missed_merge_pairs']}  "
        f"({mentions / elapsed:.1f} mentions resolved/s)"
    )
    for family, row in sorted(res["per_case"].items()):
        if "/" in family:
            continue  # sub-cases: see the scorer's own output for them
        print(f"   {family:13s} F1={row['f1']:.3f}  false-merge pairs {row['false_merge_pairs']}")
    for group in res["false_merge_groups"][:examples]:
        a, b = group["example"]
        print(
            f"   FALSE MERGE {group['gold_a']} x {group['gold_b']}: {a['text']!r} ~ {b['text']!r}"
        )
    for group in res["missed_merge_groups"][:examples]:
        a, b = group["example"]
        print(f"   MISSED {group['gold']} ({group['pairs']} pairs): {a['text']!r} vs {b['text']!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--url", help="a running Mnemo (default: serve one in this process)")
    parser.add_argument("--out", type=Path, default=Path(".data/bench_identity"))
    parser.add_argument("--examples", type=int, default=5)
    parser.add_argument("--settle-after", type=int, metavar="N", help=SETTLE_AFTER_HELP)
    args = parser.parse_args()
    if args.url and args.settle_after:
        parser.error("--settle-after sets the timing of a service this script serves, not --url's")
    corpus = json.loads(args.corpus.read_text(encoding="utf-8"))
    scorer = scorer_for(args.corpus)
    args.out.mkdir(parents=True, exist_ok=True)
    items = list(corpus["items"])
    mentions = sum(len(i["mentions"]) for i in items)
    paths = {}
    with service(args.url, args.settle_after) as url, MnemoClient(url) as client:
        for order, sequence in (("forward", items), ("reverse", items[::-1])):
            assignment, elapsed = assign(client, sequence)
            path = args.out / f"{order}.json"
            path.write_text(json.dumps(assignment, ensure_ascii=False, indent=1), encoding="utf-8")
            paths[order] = path
            res = score(scorer, args.corpus, str(path), "--examples", str(args.examples))
            report(order, res, mentions, elapsed, args.examples)
    compared = score(scorer, args.corpus, "--compare", str(paths["forward"]), str(paths["reverse"]))
    agree = 1 - float(compared["disagreement_share_of_linked"])
    print(
        f"order agreement: {compared['linked_by_either']} pairs linked by either order, "
        f"{compared['disagreeing_pairs']} disagree -> {agree:.2%} agree"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
