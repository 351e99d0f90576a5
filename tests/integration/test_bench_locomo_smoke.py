"""The LoCoMo benchmark at CI size: 5 sessions of one conversation, 20 questions, over HTTP."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_locomo.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_locomo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_locomo", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_locomo_benchmark_runs_at_ci_size(test_neo4j: str) -> None:
    bench = _load()
    parser_args = ["--small", "--max-questions", "20", "--neo4j-uri", test_neo4j]
    args = bench.build_parser().parse_args(parser_args)
    args = bench.apply_small(args)
    report = bench.run(args)
    assert 10 <= report["questions"] <= 20
    results = report["results"]
    assert set(results) == {"mnemo", "bm25", "dense", "rrf"}
    overall = results["mnemo"]["overall"]
    # Recall@k never falls as k grows, and Mnemo finds some evidence in its top 25.
    values = [overall[f"R@{k}"] for k in (1, 5, 10, 25)]
    assert values == sorted(values)
    assert values[-1] > 0.3
