"""The reflect benchmark at CI size, on the small LoCoMo-format conversation of the recall smoke."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.integration.test_bench_locomo_smoke import QUESTIONS, _conversation

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_reflect.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_reflect", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_reflect", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_reflect_benchmark_runs_at_ci_size(test_neo4j: str, tmp_path: Path) -> None:
    data = tmp_path / "locomo_small.json"
    data.write_text(json.dumps(_conversation()), encoding="utf-8")
    bench = _load()
    args = bench.build_parser().parse_args(
        ["--data", str(data), "--neo4j-uri", test_neo4j, "--tune", "1"]
    )
    report = bench.run(args)

    results = report["results"]
    assert set(results) == {"recall@10 (mid)", "reflect low", "reflect mid", "reflect high"}
    overall = {system: parts["all"]["overall"] for system, parts in results.items()}
    assert all(row["n"] == len(QUESTIONS) for row in overall.values())
    # More budget quotes more sources, so evidence recall never falls from low to high.
    recalls = [overall[f"reflect {b}"]["evidence_recall"] for b in ("low", "mid", "high")]
    assert recalls == sorted(recalls)
    assert overall["reflect mid"]["evidence_recall"] >= 0.8
    assert results["reflect mid"]["all"]["latency_ms"]["p95"] is not None
