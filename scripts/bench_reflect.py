#!/usr/bin/env python3
"""LoCoMo evidence recall of reflect's ``based_on`` (offline), at each budget, and its latency.

The conversations are retained as ``bench_locomo.py`` retains them (one bank per conversation,
one item per turn, metadata ``{"dia_id"}``, ``local`` extraction by default). For each question
of categories 1-4, with the last session's date as ``query_timestamp``:

- reflect at each budget (``low``, ``mid``, ``high``) with ``include.facts``: evidence recall =
  |evidence ∩ dia_ids of the memories in ``based_on``| / |evidence|; the number of memories
  cited; the latency over HTTP;
- the baseline in the same run: recall's own recall@10 at ``mid`` (``bench_locomo.py``'s
  figure), which the ``mid`` answer is meant to match or beat.

Tuning and measuring are kept apart: the report gives every figure for the first
``--tune`` conversations (the part anything was tuned on), for the others (measured only), and
for all. The service runs offline (no LLM), in-process over HTTP, against ``--neo4j-uri`` /
``MNEMO_NEO4J_URI`` (default: the test Neo4j).

Usage:
  .venv/bin/python scripts/bench_reflect.py [--conversations 5] [--tune 2]
      [--budgets low,mid,high] [--max-questions N] [--max-sessions N] [--small] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.bench_locomo import (  # noqa: E402
    CATEGORIES,
    add_conversation_options,
    evidence_ids,
    retain_conversation,
    run_and_report,
    sessions_asked,
    settings_for,
)
from tests.support.live_server import live_server  # noqa: E402

BUDGETS = ("low", "mid", "high")
PARTS = ("tune", "measure", "all")


def dia_ids(memories: Sequence[dict[str, Any]]) -> list[str]:
    """The dia_ids of memories (from their metadata), in order."""
    return [str((m.get("metadata") or {}).get("dia_id", "")) for m in memories]


def recall_at_10(
    http: httpx.Client, bank: str, question: str, now: datetime
) -> tuple[list[str], float]:
    started = time.perf_counter()
    response = http.post(
        f"/v1/default/banks/{bank}/memories/recall",
        json={"query": question, "query_timestamp": now.isoformat(), "budget": "mid"},
    )
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return dia_ids(response.json()["results"])[:10], elapsed


def reflect_cited(
    http: httpx.Client, bank: str, question: str, now: datetime, budget: str
) -> tuple[list[str], float]:
    started = time.perf_counter()
    response = http.post(
        f"/v1/default/banks/{bank}/reflect",
        json={
            "query": question,
            "query_timestamp": now.isoformat(),
            "budget": budget,
            "include": {"facts": {}},
        },
    )
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return dia_ids(response.json()["based_on"]["memories"]), elapsed


class Tally:
    """Mean evidence recall and cited count per (system, part, group), latencies per system."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str, str], float] = defaultdict(float)
        self.cited: dict[tuple[str, str, str], float] = defaultdict(float)
        self.counts: dict[tuple[str, str, str], int] = defaultdict(int)
        self.latencies: dict[tuple[str, str], list[float]] = defaultdict(list)

    def add(self, system: str, part: str, category: int, value: float, cited: int) -> None:
        for p in (part, "all"):
            for group in ("overall", CATEGORIES[category]):
                key = (system, p, group)
                self.sums[key] += value
                self.cited[key] += cited
                self.counts[key] += 1

    def report(self, systems: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for system in systems:
            out[system] = {}
            for part in PARTS:
                groups: dict[str, Any] = {}
                for group in ("overall", *CATEGORIES.values()):
                    n = self.counts[(system, part, group)]
                    groups[group] = {
                        "n": n,
                        "evidence_recall": round(self.sums[(system, part, group)] / n, 4)
                        if n
                        else None,
                        "cited": round(self.cited[(system, part, group)] / n, 1) if n else None,
                    }
                lat = sorted(self.latencies[(system, part)])
                groups["latency_ms"] = {
                    "p50": round(1000 * lat[len(lat) // 2], 1) if lat else None,
                    "p95": round(1000 * lat[int(len(lat) * 0.95)], 1) if lat else None,
                }
                out[system][part] = groups
        return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    samples = json.loads(args.data.read_text(encoding="utf-8"))[: args.conversations]
    budgets = [b for b in args.budgets.split(",") if b]
    data_dir = Path(tempfile.mkdtemp(prefix="mnemo-reflect-"))
    settings = settings_for(args, data_dir)
    tally = Tally()
    banks: list[str] = []
    try:
        with live_server(settings) as url, httpx.Client(base_url=url, timeout=300.0) as http:
            for index, sample in enumerate(samples):
                part = "tune" if index < args.tune else "measure"
                sid = sample["sample_id"]
                turns, questions = sessions_asked(sample, args)
                bank = f"reflect-{sid}-{uuid.uuid4().hex[:6]}"
                banks.append(bank)
                seconds = retain_conversation(http, bank, sid, turns, args.mode)
                now = max(t.at for t in turns)
                for question in questions:
                    evidence = evidence_ids(question["evidence"])
                    text, category = question["question"], question["category"]
                    top, elapsed = recall_at_10(http, bank, text, now)
                    tally.latencies[("recall@10 (mid)", part)].append(elapsed)
                    tally.latencies[("recall@10 (mid)", "all")].append(elapsed)
                    tally.add(
                        "recall@10 (mid)",
                        part,
                        category,
                        len(evidence & set(top)) / len(evidence),
                        len(top),
                    )
                    for budget in budgets:
                        cited, elapsed = reflect_cited(http, bank, text, now, budget)
                        system = f"reflect {budget}"
                        tally.add(
                            system,
                            part,
                            category,
                            len(evidence & set(cited)) / len(evidence),
                            len(cited),
                        )
                        tally.latencies[(system, part)].append(elapsed)
                        tally.latencies[(system, "all")].append(elapsed)
                print(
                    f"{sid} ({part}): {len(turns)} turns retained in {seconds:.1f} s, "
                    f"{len(questions)} questions",
                    file=sys.stderr,
                )
            if not args.keep:
                for bank in banks:
                    http.delete(f"/v1/default/banks/{bank}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    systems = ["recall@10 (mid)", *(f"reflect {b}" for b in budgets)]
    return {
        "mode": args.mode,
        "conversations": len(samples),
        "tune_conversations": min(args.tune, len(samples)),
        "results": tally.report(systems),
    }


def print_table(report: dict[str, Any]) -> None:
    results = report["results"]
    print(
        f"LoCoMo evidence recall of reflect's based_on (offline), {report['conversations']} "
        f"conversations (tune: first {report['tune_conversations']}), extraction "
        f"{report['mode']!r}; baseline: recall@10 at mid, same run"
    )
    for part in PARTS:
        first = next(iter(results.values()))[part]["overall"]
        print(f"\n{part} (n={first['n']})")
        print(
            f"  {'system':<18}{'overall':>9}"
            + "".join(f"{c:>13}" for c in CATEGORIES.values())
            + f"{'cited':>8}{'p50 ms':>9}{'p95 ms':>9}"
        )
        for system, parts in results.items():
            row = parts[part]
            if not row["overall"]["n"]:
                continue
            cells = "".join(
                f"{row[c]['evidence_recall']:>13.3f}" if row[c]["n"] else f"{'-':>13}"
                for c in CATEGORIES.values()
            )
            lat = row["latency_ms"]
            p50 = f"{lat['p50']:>9.1f}" if lat["p50"] is not None else f"{'-':>9}"
            p95 = f"{lat['p95']:>9.1f}" if lat["p95"] is not None else f"{'-':>9}"
            print(
                f"  {system:<18}{row['overall']['evidence_recall']:>9.3f}{cells}"
                f"{row['overall']['cited']:>8.1f}{p50}{p95}"
            )


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add_conversation_options(parser)
    parser.add_argument("--tune", type=int, default=2, help="the first N are the tuning part")
    parser.add_argument("--budgets", default=",".join(BUDGETS))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.getLogger("httpx").setLevel(logging.WARNING)
    return run_and_report(build_parser(), run, print_table, argv)


if __name__ == "__main__":
    raise SystemExit(main())
