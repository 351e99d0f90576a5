"""The LoCoMo benchmark at CI size, over HTTP, on a small conversation written in LoCoMo's format.

The development conversations live outside the repository (../shared/bench/locomo); this test
checks the benchmark's machinery (retain per turn, recall, dia_id mapping, baselines, recall@k)
on a conversation of its own, so it runs wherever the repository does.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_locomo.py"

SESSION_1 = [
    ("Melanie", "I finally painted the sunrise over Lake Tahoe, all orange and violet."),
    ("Caroline", "That sounds lovely! I started volunteering at the animal shelter."),
    ("Melanie", "My son Leo joined the school chess club this month."),
    ("Caroline", "I adopted a grey kitten from the shelter and named her Pebble."),
    ("Melanie", "How is your new job at the bakery going?"),
    ("Caroline", "The bakery is busy; I bake sourdough loaves every morning at five."),
]
SESSION_2 = [
    ("Melanie", "We went camping near Yosemite and saw a black bear by the river."),
    ("Caroline", "I ran my first half marathon in Portland last Sunday."),
    ("Melanie", "Leo won his first chess tournament against older kids."),
    ("Caroline", "Pebble knocked my sourdough starter off the counter, what a mess."),
    ("Melanie", "I signed up for a pottery class on Thursday evenings."),
    ("Caroline", "My sister Dana is visiting from Chicago next week."),
]
QUESTIONS = [
    ("What did Melanie paint?", ["D1:1"], 4),
    ("What is the name of Caroline's kitten?", ["D1:4"], 4),
    ("Which race did Caroline run in Portland?", ["D2:2"], 4),
    ("Where did Melanie see a bear while camping?", ["D2:1"], 4),
    ("How did Leo do in chess?", ["D1:3", "D2:3"], 1),
    ("What happened to Caroline's sourdough starter?", ["D2:4"], 4),
]


def _conversation() -> list[dict[str, Any]]:
    conversation: dict[str, Any] = {"speaker_a": "Melanie", "speaker_b": "Caroline"}
    for n, (turns, when) in enumerate(
        [(SESSION_1, "1:56 pm on 8 May, 2023"), (SESSION_2, "10:15 am on 27 May, 2023")], start=1
    ):
        conversation[f"session_{n}_date_time"] = when
        conversation[f"session_{n}"] = [
            {"speaker": who, "dia_id": f"D{n}:{i}", "text": text}
            for i, (who, text) in enumerate(turns, start=1)
        ]
    qa = [
        {"question": q, "answer": "-", "evidence": evidence, "category": category}
        for q, evidence, category in QUESTIONS
    ]
    qa.append(
        {"question": "Is Dana a pilot?", "adversarial_answer": "no", "evidence": [], "category": 5}
    )
    return [{"sample_id": "smoke-1", "conversation": conversation, "qa": qa}]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_locomo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_locomo", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_locomo_benchmark_runs_at_ci_size(test_neo4j: str, tmp_path: Path) -> None:
    data = tmp_path / "locomo_small.json"
    data.write_text(json.dumps(_conversation()), encoding="utf-8")
    bench = _load()
    args = bench.build_parser().parse_args(["--data", str(data), "--neo4j-uri", test_neo4j])
    report = bench.run(bench.apply_small(args))

    assert report["questions"] == len(QUESTIONS)  # the adversarial question is left out
    results = report["results"]
    assert set(results) == {"mnemo", "mnemo-facts", "bm25", "dense", "rrf"}
    overall = results["mnemo"]["overall"]
    values = [overall[f"R@{k}"] for k in (1, 5, 10, 25)]
    assert values == sorted(values)  # recall@k never falls as k grows
    # Each question names its evidence in plain words: Mnemo finds nearly all of it in its top 5
    # of 12 turns.
    assert overall["R@5"] >= 0.8
