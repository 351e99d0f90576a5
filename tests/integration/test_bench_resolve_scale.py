"""The resolution scale benchmark runs end to end at a tiny size (its CI mode)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_resolve_scale_prints_per_mention_cost_and_growth(test_neo4j: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench_resolve_scale.py"),
            "--sizes",
            "60,240",
            "--sample",
            "4",
            "--repeat",
            "1",
        ],
        env={**os.environ, "MNEMO_NEO4J_URI": test_neo4j},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert any(line.strip().startswith("60 entities") and "ms/mention" in line for line in lines)
    assert any(line.strip().startswith("240 entities") for line in lines)
    assert any(line.startswith("growth 60 → 240 entities") for line in lines)
