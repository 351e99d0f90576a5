"""The resolution scale benchmark runs end to end at a tiny size (its CI mode)."""

from __future__ import annotations

import pytest

from tests.support.scripts import run_script


@pytest.mark.slow
def test_bench_resolve_scale_prints_per_mention_cost_and_growth(test_neo4j: str) -> None:
    out = run_script(
        "bench_resolve_scale.py",
        "--sizes",
        "60,240",
        "--sample",
        "4",
        "--repeat",
        "1",
        neo4j_uri=test_neo4j,
    )
    lines = out.splitlines()
    assert any(line.strip().startswith("60 entities") and "ms/mention" in line for line in lines)
    assert any(line.strip().startswith("240 entities") for line in lines)
    assert any(line.startswith("growth 60 → 240 entities") for line in lines)
