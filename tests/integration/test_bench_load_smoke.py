"""The load benchmark end to end at a tiny size: it measures what it promises and its checks pass.

Full size (10k-fact banks, 30 s scenarios) is for the benchmark runs in docs/benchmarks.md.
"""

from __future__ import annotations

import re

import pytest

from tests.support.scripts import run_script


@pytest.mark.slow
def test_bench_load_reports_each_scenario_against_the_batch_baseline_and_its_checks_pass(
    test_neo4j: str,
) -> None:
    out = run_script(
        "bench_load.py",
        "--bank-facts",
        "60",
        "--baseline-seconds",
        "2",
        "--scenarios",
        "3x1@1+1,4x2@2+0",
        "--duration",
        "3",
        neo4j_uri=test_neo4j,
    )
    assert re.search(r"^baseline: 3 clients x 100-item batches .* = [\d.]+ facts/s$", out, re.M)
    for label in ("3x1@1+1", "4x2@2+0"):
        pattern = rf"^\s*{re.escape(label)}: ([\d,]+) requests, ([\d,]+) facts .*$"
        line = re.search(pattern, out, re.M)
        assert line, out
        assert int(line.group(1).replace(",", "")) > 0
        assert "of the baseline" in line.group(0)
        assert re.search(r"retain p50 \d+ ms p95 \d+ ms", line.group(0))
        assert "errors 0" in line.group(0)
    # The scenario with a recall client measured recalls.
    recalls = re.search(r"3x1@1\+1: .* recall p50 \d+ ms p95 \d+ ms \((\d[\d,]*)\)", out)
    assert recalls and int(recalls.group(1).replace(",", "")) > 0, out
    assert re.search(r"^check stored: .* ok$", out, re.M), out
    assert re.search(r"^check searchable: .* ok$", out, re.M), out
    assert re.search(r"^check names: .* ok$", out, re.M), out
