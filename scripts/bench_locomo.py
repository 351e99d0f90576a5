#!/usr/bin/env python3
"""LoCoMo evidence recall@k of Mnemo's recall, next to BM25, dense and RRF baselines.

Follows ../shared/bench/locomo/README.md: one bank per conversation, every turn retained as one
item (``"{speaker}: {text}"`` plus ``" [shares {blip_caption}]"``, timestamp = the session's
date, metadata ``{"dia_id": ...}``), then for each question of categories 1-4 a recall with the
question as query and the last session's date as ``query_timestamp``. Results map to dia_ids
through their metadata; recall@k = |evidence ∩ dia_ids of the top-k results| / |evidence|.

The baselines run in the same process over the same turn texts: BM25 (k1 1.2, b 0.75, NLTK's
English stop words removed, rank_bm25's Okapi formula in pure Python), dense cosine with the
same embedder as the service, and their RRF (k 60).

One deviation from the README: the retain API refuses two items with the same ``document_id``
in one request (and a later request with that id would *replace* the document), so each turn's
document id is ``"{sample_id}/session_{N}/{dia_id}"`` rather than the session's.

The app runs in-process (uvicorn on loopback, as the tests do) against the Neo4j given by
``--neo4j-uri`` / ``MNEMO_NEO4J_URI`` (default: the test Neo4j on port 7697, started if needed),
with a temporary data directory; everything goes through HTTP.

Usage:
  .venv/bin/python scripts/bench_locomo.py [--conversations 5] [--mode local|chunks]
      [--max-questions N] [--max-sessions N] [--budget mid] [--small] [--json out.json] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings, load_settings  # noqa: E402
from app.store.embeddings import Embedder  # noqa: E402
from scripts.bench_support import benchmark_neo4j_auth, benchmark_neo4j_uri  # noqa: E402
from tests.support.live_server import live_server  # noqa: E402

DATA = ROOT.parent / "shared" / "bench" / "locomo" / "locomo_dev.json"
KS = (1, 5, 10, 25)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

# NLTK's English stop words: with \w+ tokens and rank_bm25's Okapi formula this reproduces the
# README's BM25 baseline (R@1/5/10/25 0.295/0.514/0.582/0.656 here vs 0.299/0.514/0.585/0.653);
# scikit-learn's longer list gave a weaker baseline (R@10 0.550).
STOP_WORDS = frozenset(
    """
    i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
    yourselves he him his himself she she's her hers herself it it's its itself they them their
    theirs themselves what which who whom this that that'll these those am is are was were be
    been being have has had having do does did doing a an the and but if or because as until
    while of at by for with about against between into through during before after above below
    to from up down in out on off over under again further then once here there when where why
    how all any both each few more most other some such no nor not only own same so than too
    very s t can will just don don't should should've now d ll m o re ve y ain aren aren't
    couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma
    mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren
    weren't won won't wouldn wouldn't
    """.split()  # noqa: SIM905 - a word list reads better as words
)
_TOKEN = re.compile(r"\w+")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


# -- data -----------------------------------------------------------------------------------------


class Turn:
    """One dialogue turn as retained."""

    def __init__(self, dia_id: str, session: int, at: datetime, content: str) -> None:
        self.dia_id = dia_id
        self.session = session
        self.at = at
        self.content = content


def session_time(text: str) -> datetime:
    """Parse LoCoMo's ``"1:56 pm on 8 May, 2023"``."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turns_of(conversation: dict[str, Any]) -> list[Turn]:
    """Every turn of every session that has turns (some date keys have no session)."""
    turns: list[Turn] = []
    for key, value in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match or not isinstance(value, list):
            continue
        session = int(match.group(1))
        at = session_time(conversation[f"{key}_date_time"])
        for turn in value:
            content = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                content += f" [shares {turn['blip_caption']}]"
            turns.append(Turn(turn["dia_id"], session, at, content))
    turns.sort(key=lambda t: (t.session, _turn_number(t.dia_id)))
    return turns


def _turn_number(dia_id: str) -> int:
    match = _EVIDENCE.fullmatch(dia_id)
    return int(match.group(2)) if match else 0


def evidence_ids(evidence: Iterable[str]) -> set[str]:
    """Evidence dia_ids, repairing the malformed ones ("D:11:26", "D8:6; D9:17")."""
    ids: set[str] = set()
    for entry in evidence:
        for a, b in _EVIDENCE.findall(entry):
            ids.add(f"D{int(a)}:{int(b)}")
    return ids


def questions_of(
    sample: dict[str, Any], limit: int | None, dia_ids: set[str] | None = None
) -> list[dict[str, Any]]:
    """Questions of categories 1-4 with evidence (all of it among ``dia_ids``, when given)."""
    kept = [
        q
        for q in sample["qa"]
        if q.get("category") in CATEGORIES
        and evidence_ids(q["evidence"])
        and (dia_ids is None or evidence_ids(q["evidence"]) <= dia_ids)
    ]
    return kept[:limit] if limit else kept


# -- baselines ------------------------------------------------------------------------------------


def bm25_tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS]


class BM25:
    """Okapi BM25 as rank_bm25's ``BM25Okapi`` computes it (k1 1.2, b 0.75, epsilon 0.25)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avg = sum(self.lengths) / max(1, len(docs))
        df: Counter[str] = Counter()
        for d in docs:
            df.update(set(d))
        n = len(docs)
        idf = {t: math.log(n - f + 0.5) - math.log(f + 0.5) for t, f in df.items()}
        # rank_bm25 floors negative idfs at epsilon × the mean idf.
        floor = 0.25 * (sum(idf.values()) / max(1, len(idf)))
        self.idf = {t: (v if v >= 0 else floor) for t, v in idf.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        out = []
        for doc, length in zip(self.docs, self.lengths, strict=True):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.avg)
            for term in query:
                tf = doc.get(term, 0)
                if tf:
                    score += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
            out.append(score)
        return out


def top_ids(scores: Sequence[float], ids: Sequence[str], k: int) -> list[str]:
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return [ids[i] for i in order[:k]]


def rrf_ids(lists: Sequence[Sequence[str]], k: int = 60) -> list[str]:
    score: dict[str, float] = defaultdict(float)
    for ranked in lists:
        for rank, item in enumerate(ranked, start=1):
            score[item] += 1.0 / (k + rank)
    return sorted(score, key=lambda i: -score[i])


# -- scoring --------------------------------------------------------------------------------------


def recall_at(ranked_dia_ids: Sequence[str], evidence: set[str]) -> dict[int, float]:
    """recall@k over the top-k *results* (a result without a dia_id still takes its slot)."""
    return {k: len(evidence & set(ranked_dia_ids[:k])) / len(evidence) for k in KS}


class Tally:
    """Mean recall@k per system, overall and per category."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0] * len(KS))
        self.counts: Counter[tuple[str, str]] = Counter()

    def add(self, system: str, category: int, values: dict[int, float]) -> None:
        for group in ("overall", CATEGORIES[category]):
            key = (system, group)
            self.counts[key] += 1
            for i, k in enumerate(KS):
                self.sums[key][i] += values[k]

    def mean(self, system: str, group: str) -> list[float]:
        n = self.counts[(system, group)]
        return [s / n if n else 0.0 for s in self.sums[(system, group)]]

    def as_dict(self, systems: Sequence[str]) -> dict[str, Any]:
        groups = ["overall", *CATEGORIES.values()]
        return {
            system: {
                group: {
                    "n": self.counts[(system, group)],
                    **{
                        f"R@{k}": round(v, 4)
                        for k, v in zip(KS, self.mean(system, group), strict=True)
                    },
                }
                for group in groups
            }
            for system in systems
        }


# -- the run --------------------------------------------------------------------------------------


def settings_for(args: argparse.Namespace, data_dir: Path) -> Settings:
    return load_settings(
        {},
        data_dir=str(data_dir),
        neo4j_uri=benchmark_neo4j_uri(args.neo4j_uri),
        **benchmark_neo4j_auth(),
    )


def retain_conversation(
    http: httpx.Client, bank: str, sample_id: str, turns: Sequence[Turn], mode: str
) -> float:
    """Create the bank and retain every turn, one request per session; returns seconds."""
    response = http.put(
        f"/v1/default/banks/{bank}", json={"name": bank, "retain_extraction_mode": mode}
    )
    response.raise_for_status()
    started = time.perf_counter()
    by_session: dict[int, list[Turn]] = defaultdict(list)
    for turn in turns:
        by_session[turn.session].append(turn)
    for session, session_turns in sorted(by_session.items()):
        items = [
            {
                "content": t.content,
                "timestamp": t.at.isoformat(),
                "document_id": f"{sample_id}/session_{session}/{t.dia_id}",
                "metadata": {"dia_id": t.dia_id},
            }
            for t in session_turns
        ]
        response = http.post(f"/v1/default/banks/{bank}/memories", json={"items": items})
        if response.status_code != 200:
            raise SystemExit(f"retain failed ({response.status_code}): {response.text[:500]}")
    return time.perf_counter() - started


def wait_for_consolidation(http: httpx.Client, bank: str, timeout_s: float = 600.0) -> None:
    """Questions wait until the service has consolidated the bank (observations are recalled).

    The bank's stats count a fact as pending until its observation is searchable.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pending = http.get(f"/v1/default/banks/{bank}/stats").json()["pending_consolidation"]
        if pending == 0:
            return
        time.sleep(1.0)
    print(f"{bank}: consolidation did not finish in {timeout_s:.0f} s", file=sys.stderr)


FACT_TYPES = ["world", "experience"]


def mnemo_ranking(
    http: httpx.Client,
    bank: str,
    question: str,
    now: datetime,
    budget: str,
    types: list[str] | None = None,
) -> tuple[list[str], float]:
    """Mnemo's ranking as dia_ids.

    An observation has none (it is no turn), so it counts as a miss: ``types=None`` (every
    type, observations included) is measured strictly.
    """
    started = time.perf_counter()
    body: dict[str, Any] = {"query": question, "query_timestamp": now.isoformat(), "budget": budget}
    if types is not None:
        body["types"] = types
    response = http.post(f"/v1/default/banks/{bank}/memories/recall", json=body)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    ranked = [(r.get("metadata") or {}).get("dia_id", "") for r in response.json()["results"]]
    return ranked, elapsed


async def embed_all(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    return await embedder.embed(list(texts))


def run(args: argparse.Namespace) -> dict[str, Any]:
    samples = json.loads(args.data.read_text(encoding="utf-8"))[: args.conversations]
    data_dir = Path(tempfile.mkdtemp(prefix="mnemo-locomo-"))
    settings = settings_for(args, data_dir)
    embedder = asyncio.run(Embedder.load(settings))
    tally = Tally()
    # mnemo: recall as a client calls it (every type, observations included); mnemo-facts: the
    # same without observations (types world and experience), recall as it was before them.
    systems = ["mnemo", "mnemo-facts", "bm25", "dense", "rrf"]
    latencies: list[float] = []
    retain_seconds = 0.0
    banks: list[str] = []
    try:
        with live_server(settings) as url, httpx.Client(base_url=url, timeout=300.0) as http:
            for sample in samples:
                sid = sample["sample_id"]
                turns, questions = sessions_asked(sample, args)
                bank = f"locomo-{sid}-{uuid.uuid4().hex[:6]}"
                banks.append(bank)
                seconds = retain_conversation(http, bank, sid, turns, args.mode)
                retain_seconds += seconds
                wait_for_consolidation(http, bank)
                now = max(t.at for t in turns)
                ids = [t.dia_id for t in turns]
                bm25 = BM25([bm25_tokens(t.content) for t in turns])
                vectors = asyncio.run(embed_all(embedder, [t.content for t in turns]))
                qvectors = asyncio.run(embed_all(embedder, [q["question"] for q in questions]))
                depth = max(KS)
                for question, qvec in zip(questions, qvectors, strict=True):
                    evidence = evidence_ids(question["evidence"])
                    ranked, elapsed = mnemo_ranking(
                        http, bank, question["question"], now, args.budget
                    )
                    latencies.append(elapsed)
                    facts_only, _ = mnemo_ranking(
                        http, bank, question["question"], now, args.budget, FACT_TYPES
                    )
                    by_bm25 = top_ids(bm25.scores(bm25_tokens(question["question"])), ids, depth)
                    by_dense = top_ids((vectors @ qvec).tolist(), ids, depth)
                    # RRF over each list's full depth (every turn), as the baseline was measured.
                    by_rrf = rrf_ids(
                        [
                            top_ids(bm25.scores(bm25_tokens(question["question"])), ids, len(ids)),
                            top_ids((vectors @ qvec).tolist(), ids, len(ids)),
                        ]
                    )
                    for system, ranking in (
                        ("mnemo", ranked),
                        ("mnemo-facts", facts_only),
                        ("bm25", by_bm25),
                        ("dense", by_dense),
                        ("rrf", by_rrf),
                    ):
                        tally.add(system, question["category"], recall_at(ranking, evidence))
                print(
                    f"{sid}: {len(turns)} turns retained in {seconds:.1f} s, "
                    f"{len(questions)} questions",
                    file=sys.stderr,
                )
            if not args.keep:
                for bank in banks:
                    http.delete(f"/v1/default/banks/{bank}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    lat = sorted(latencies)
    return {
        "mode": args.mode,
        "budget": args.budget,
        "conversations": len(samples),
        "questions": tally.counts[("mnemo", "overall")],
        "retain_seconds": round(retain_seconds, 1),
        "recall_latency_ms": {
            "p50": round(1000 * lat[len(lat) // 2], 1) if lat else None,
            "p95": round(1000 * lat[int(len(lat) * 0.95)], 1) if lat else None,
        },
        "results": tally.as_dict(systems),
    }


def print_table(report: dict[str, Any]) -> None:
    results = report["results"]
    groups = list(next(iter(results.values())))
    print(
        f"LoCoMo evidence recall, {report['conversations']} conversations, "
        f"{report['questions']} questions, extraction mode {report['mode']!r}, "
        f"budget {report['budget']!r}"
    )
    print(
        f"retain {report['retain_seconds']} s; recall latency over HTTP p50 "
        f"{report['recall_latency_ms']['p50']} ms, p95 {report['recall_latency_ms']['p95']} ms"
    )
    for group in groups:
        n = results["mnemo"][group]["n"]
        print(f"\n{group} (n={n})")
        print(f"  {'system':<12}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
        for system, per_group in results.items():
            row = per_group[group]
            print(f"  {system:<12}" + "".join(f"{row['R@' + str(k)]:>8.3f}" for k in KS))


def sessions_asked(
    sample: dict[str, Any], args: argparse.Namespace
) -> tuple[list[Turn], list[dict[str, Any]]]:
    """A conversation's turns within ``--max-sessions`` and the questions they can answer."""
    turns = turns_of(sample["conversation"])
    if args.max_sessions:
        turns = [t for t in turns if t.session <= args.max_sessions]
    questions = questions_of(
        sample,
        args.max_questions,
        {t.dia_id for t in turns} if args.max_sessions else None,
    )
    return turns, questions


def add_conversation_options(parser: argparse.ArgumentParser) -> None:
    """The options of every benchmark over LoCoMo's conversations: which, how much, where."""
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="conversations in LoCoMo's format (default: %(default)s)",
    )
    parser.add_argument("--conversations", type=int, default=5, help="how many (1-5)")
    parser.add_argument("--mode", choices=("local", "chunks"), default="local")
    parser.add_argument("--max-questions", type=int, default=None, help="per conversation")
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=None,
        help="retain only the first N sessions (and ask only questions whose evidence is there)",
    )
    parser.add_argument("--neo4j-uri", default=None)
    parser.add_argument(
        "--small", action="store_true", help="CI size: 1 conversation, 5 sessions, 40 questions"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--keep", action="store_true", help="keep the banks afterwards")


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add_conversation_options(parser)
    parser.add_argument("--budget", choices=("low", "mid", "high"), default="mid")
    return parser


def apply_small(args: argparse.Namespace) -> argparse.Namespace:
    """``--small``: one conversation, its first 5 sessions, at most 40 questions."""
    if args.small:
        args.conversations, args.max_questions = 1, args.max_questions or 40
        args.max_sessions = args.max_sessions or 5
    return args


def run_and_report(
    parser: argparse.ArgumentParser,
    run: Callable[[argparse.Namespace], dict[str, Any]],
    print_table: Callable[[dict[str, Any]], None],
    argv: Sequence[str] | None,
) -> int:
    """Parse, run, print the table, and write the report as JSON when ``--json`` asks."""
    args = apply_small(parser.parse_args(argv))
    report = run(args)
    print_table(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_and_report(build_parser(), run, print_table, argv)


if __name__ == "__main__":
    raise SystemExit(main())
