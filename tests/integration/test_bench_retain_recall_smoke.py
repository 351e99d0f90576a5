"""The retain-throughput and recall-latency benchmarks run end to end at a tiny size (CI mode).

Full size (1k → 50k and 10k → 100k facts) takes far longer than CI allows; the numbers are in
the issue reports. Here: the scripts work against the real Neo4j and report what they promise.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.scripts import run_script

CYPHER = Path(__file__).resolve().parents[2] / "cypher"


@pytest.mark.slow
def test_bench_retain_prints_throughput_per_size_and_cost_growth(test_neo4j: str) -> None:
    out = run_script(
        "bench_retain.py",
        "--sizes",
        "60,200",
        "--batch",
        "20",
        "--modes",
        "local,chunks",
        "--warmup",
        "30",
        "--statements",
        "3",
        neo4j_uri=test_neo4j,
    )
    assert re.search(r"^warm-up: [\d,]+ facts in [\d.]+ s \(not counted\)$", out, re.M), out
    for mode in ("local", "chunks"):
        windows = re.findall(rf"^{mode}\s+bank=\s*([\d,]+) facts .* ([\d.]+) facts/s", out, re.M)
        assert len(windows) == 2, out
        sizes = [int(size.replace(",", "")) for size, _ in windows]
        assert sizes[0] >= 60 and sizes[1] >= 200  # the bank grew to each checkpoint
        assert all(float(rate) > 0 for _, rate in windows)
        # Under each window, where its time went: the bank's write held, by writer.
        held = re.findall(
            rf"^{mode}\s+bank write held ([\d.]+) of the window \((.*)\); "
            r"this process ([\d.]+) cores$",
            out,
            re.M,
        )
        assert len(held) == 2, out
        for total, parts, cores in held:
            shares = dict(part.rsplit(" ", 1) for part in parts.split(", "))
            assert float(shares["first pass"]) > 0 and float(cores) > 0, out
            assert float(total) == pytest.approx(sum(map(float, shares.values())), abs=0.02)
        # And which statements held it: the first pass's share, then its three longest.
        first = re.findall(
            rf"^{mode}\s+first pass: held ([\d.]+) s, statements ([\d.]+) s \(([\d.]+)\)", out, re.M
        )
        assert len(first) == 2 and all(0 < float(s) <= float(h) for h, s, _ in first), out
        named = re.findall(rf"^{mode}\s+ ([a-z_]+/[a-z_]+)\s+[\d.]+ s\s+[\d,]+ runs", out, re.M)
        # Named as they are loaded: by their file under cypher/.
        assert len(named) >= 2 and all((CYPHER / f"{n}.cypher").is_file() for n in named), out
        assert re.search(rf"^{mode}\s+per-fact cost at [\d,]+ / at 60: [\d.]+x$", out, re.M), out


@pytest.mark.slow
def test_bench_recall_reports_latency_per_size_next_to_vector_only(
    test_neo4j: str, tmp_path: Path
) -> None:
    report_path = tmp_path / "recall.json"
    out = run_script(
        "bench_recall.py",
        "--sizes",
        "150,300",
        "--queries",
        "12",
        "--batch",
        "150",
        "--json",
        str(report_path),
        neo4j_uri=test_neo4j,
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert [row["facts"] for row in report["rows"]] == [150, 300]
    for row in report["rows"]:
        for state in ("unindexed", "indexed"):
            measured = row[state]
            assert 0 < measured["recall_ms"]["p50"] <= measured["recall_ms"]["p95"]
            assert measured["vector_only_ms"]["p50"] > 0
            # The trace's phases name the channels, so a slow one can be found.
            assert {"vector", "keyword", "graph", "hydrate"} <= set(measured["phases_ms"])
    assert "p95 grew" in out
