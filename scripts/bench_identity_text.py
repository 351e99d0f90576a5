"""Identity through local extraction: text in, entities found (not supplied), people and places
counted.

Each document of ``scripts/data/identity_text.json`` (narrative sentences, each its own
document over a year, and short conversations) is retained one request at a time into a fresh
bank in ``local`` mode. Every fact is read back through the API; a found mention belongs to a
known person or place when its text, or its text without the titles before it ("Dr. Ana
Lima"), is one of that one's names. For each known one:

- **entities**: how many distinct entities its found mentions landed on (the target is 1);
- **found**: its found mentions over its occurrences in the text (the target is >= 90 %);
- **shared**: entities it shares with another known one (a false merge; the target is 0).

The corpus has a ``tune`` part (used while changing the extractor and the resolver) and a
``measure`` part (other names, only measured); both are reported, and the baseline is the same
run with the settle switched off (``--no-settle`` runs that alone).

``scripts/data/identity_text2.json`` (``--corpus``) is a second corpus of the same kind,
written blind, with names from many languages; ``--show-entities`` prints what each entity of
a known one that is split, or shares an entity, was called.

    .venv/bin/python scripts/bench_identity_text.py
    .venv/bin/python scripts/bench_identity_text.py --part measure --order reverse
    .venv/bin/python scripts/bench_identity_text.py --corpus scripts/data/identity_text2.json

A settle runs behind the writes, on timers (decision 0018), so which writes one settle covers
depends on the machine's pace; ``--settle-after N`` settles each time the queued writes touched
N entities instead, to compare settle timings (a write that arrives while a settle reads can
still fall either side of it).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.client import MnemoClient
from app.config import load_settings
from app.curate.schemas.banks import BankUpdate
from app.domain.names import PERSON_TITLES
from app.embedded import serve_in_thread
from app.retain.schemas import RetainItem
from scripts.bench_support import (
    SETTLE_AFTER_HELP,
    benchmark_neo4j_auth,
    benchmark_neo4j_uri,
    settle_timing,
)

logging.getLogger("httpx").setLevel(logging.WARNING)
CORPUS = Path(__file__).resolve().parent / "data" / "identity_text.json"


def occurrences(text: str, names: dict[str, str]) -> Counter[str]:
    """How often each known one is named in ``text`` (longest names first, no overlaps)."""
    found: Counter[str] = Counter()
    taken: list[tuple[int, int]] = []
    for name in sorted(names, key=len, reverse=True):
        for match in re.finditer(rf"\b{re.escape(name)}\b", text):
            span = match.span()
            if all(span[1] <= a or span[0] >= b for a, b in taken):
                taken.append(span)
                found[names[name]] += 1
    return found


def untitled(mention: str) -> str:
    """A found name without the titles before it: "Dr. Ana Lima" is a find of "Ana Lima"."""
    words = mention.split(" ")
    while len(words) > 1 and words[0].rstrip(".").casefold() in PERSON_TITLES:
        words = words[1:]
    return " ".join(words)


def run(client: MnemoClient, part: dict[str, Any], order: str) -> dict[str, Any]:
    """Retain a part's documents in ``order``; count entities and found mentions per known one."""
    names = {n: key for key, e in part["entities"].items() for n in e["names"]}
    folded = {n.casefold(): key for n, key in names.items()}
    documents = list(part["documents"])
    if order == "reverse":
        documents.reverse()
    bank = f"idtext-{uuid.uuid4().hex[:8]}"
    client.put_bank(bank, BankUpdate(retain_extraction_mode="local"))
    expected: Counter[str] = Counter()
    found: Counter[str] = Counter()
    landed: dict[str, set[str]] = defaultdict(set)
    types: dict[str, Counter[str]] = defaultdict(Counter)
    said: dict[str, Counter[str]] = defaultdict(Counter)
    started = time.perf_counter()
    try:
        memory_ids: list[str] = []
        for doc in documents:
            answer = client.retain(bank, [RetainItem(content=doc["text"], timestamp=doc["t"])])
            memory_ids.extend(answer.memory_ids)
            expected.update(occurrences(doc["text"], names))
        elapsed = time.perf_counter() - started
        per_doc: Counter[str] = Counter()
        for memory_id in memory_ids:
            for entity in client.get_memory(bank, memory_id)["mentions"]:
                said[entity["id"]][entity["mention"]] += 1
                surface = entity["mention"]
                key = folded.get(surface.casefold()) or folded.get(untitled(surface).casefold())
                if key is None:
                    continue
                per_doc[key] += 1
                landed[key].add(entity["id"])
        for key in part["entities"]:
            found[key] = min(per_doc[key], expected[key])
            for entity_id in landed[key]:
                types[key][client.get_entity(bank, entity_id).type or "-"] += 1
    finally:
        client.delete_bank(bank)
    owners: dict[str, set[str]] = defaultdict(set)
    for key, ids in landed.items():
        for entity_id in ids:
            owners[entity_id].add(key)
    rows = {
        key: {
            "entities": len(landed[key]),
            "found": found[key],
            "expected": expected[key],
            "shared": sum(1 for i in landed[key] if len(owners[i]) > 1),
            "types": dict(types[key]),
            "landed": [dict(said[i]) for i in sorted(landed[key])],
        }
        for key in part["entities"]
    }
    return {"rows": rows, "elapsed": elapsed, "documents": len(documents)}


def summary(result: dict[str, Any]) -> str:
    rows = result["rows"]
    one = sum(1 for r in rows.values() if r["entities"] == 1)
    found = sum(r["found"] for r in rows.values())
    expected = sum(r["expected"] for r in rows.values())
    shared = sum(r["shared"] for r in rows.values())
    return (
        f"{one}/{len(rows)} known people and places are one entity, "
        f"{found}/{expected} mentions found ({found / max(expected, 1):.1%}), "
        f"{shared} shared entities, {result['documents'] / result['elapsed']:.1f} documents/s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--part", action="append", choices=["tune", "measure"])
    parser.add_argument("--order", action="append", choices=["forward", "reverse"])
    parser.add_argument("--neo4j-uri")
    parser.add_argument("--settle-after", type=int, metavar="N", help=SETTLE_AFTER_HELP)
    parser.add_argument(
        "--show-entities",
        action="store_true",
        help="for each known one on several entities, or sharing one: what each entity was called",
    )
    args = parser.parse_args()
    corpus = json.loads(args.corpus.read_text(encoding="utf-8"))
    parts = args.part or ["tune", "measure"]
    orders = args.order or ["forward", "reverse"]
    uri = benchmark_neo4j_uri(args.neo4j_uri)
    with tempfile.TemporaryDirectory(prefix="mnemo-idtext-") as data_dir:
        settings = load_settings(
            {},
            data_dir=data_dir,
            neo4j_uri=uri,
            log_level="warning",
            **benchmark_neo4j_auth(),
            **settle_timing(args.settle_after),
        )
        with serve_in_thread(settings) as url, MnemoClient(url) as client:
            for name in parts:
                for order in orders:
                    result = run(client, corpus["parts"][name], order)
                    print(f"== {name} {order}: {summary(result)}")
                    for key, row in result["rows"].items():
                        print(
                            f"   {key:10s} entities={row['entities']} "
                            f"found={row['found']}/{row['expected']} shared={row['shared']} "
                            f"types={row['types']}"
                        )
                        if args.show_entities and (row["entities"] > 1 or row["shared"]):
                            for called in row["landed"]:
                                print(f"      entity called {called}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
