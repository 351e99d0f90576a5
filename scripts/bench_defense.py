"""Memory defense on a labelled set of secrets and personal data: found, missed, false alarms.

Reads tests/data/defense/{dev,holdout}.jsonl (dev: tuned on; holdout: only measured) and
runs every detector of ``app.domain.defense`` on each text. A finding counts when it overlaps
an expected value of the same category (secret or pii); an expected value no finding of its
category overlaps is a false negative; a finding that overlaps no expected value is a false
positive. Baselines in the same run: detect-secrets (its default plugins and filters,
scanning each text as a file) for secrets, and a naive pattern pair (email, 9+ digit runs)
for personal data.

    .venv/bin/python scripts/bench_defense.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.domain.defense import detect  # noqa: E402

DATA = ROOT / "tests" / "data" / "defense"
Span = tuple[int, int, str]  # start, end, category


def mnemo(text: str) -> list[Span]:
    return [(f.start, f.end, f.category) for f in detect(text)]


def detect_secrets_baseline() -> Callable[[str], list[Span]] | None:
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def run(text: str) -> list[Span]:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
            handle.write(text)
        found: list[Span] = []
        with default_settings():
            collection = SecretsCollection()
            collection.scan_file(handle.name)
        lines = text.split("\n")
        for secrets in collection.data.values():
            for secret in secrets:
                value = secret.secret_value or ""
                line_start = sum(len(line) + 1 for line in lines[: secret.line_number - 1])
                at = text.find(value, line_start) if value else -1
                if at >= 0:
                    found.append((at, at + len(value), "secret"))
                else:  # no value kept: the whole line
                    line = lines[secret.line_number - 1]
                    found.append((line_start, line_start + len(line), "secret"))
        Path(handle.name).unlink()
        return found

    return run


_NAIVE_EMAIL = re.compile(r"\S+@\S+\.\w+")
_NAIVE_DIGITS = re.compile(r"(?:\d[ -]?){9,}\d")


def naive_pii(text: str) -> list[Span]:
    return [(m.start(), m.end(), "pii") for p in (_NAIVE_EMAIL, _NAIVE_DIGITS)
            for m in p.finditer(text)]  # fmt: skip


def score(rows: list[dict], find: Callable[[str], list[Span]], categories: set[str]) -> dict:
    tp = fn = fp = 0
    negatives = flagged_negatives = 0
    missed: list[str] = []
    false: list[str] = []
    started = time.perf_counter()
    chars = 0
    for row in rows:
        text = row["text"]
        chars += len(text)
        spans = [s for s in find(text) if s[2] in categories]
        expected = []
        for e in row["expect"]:
            if e["category"] in categories:
                at = text.index(e["value"])
                expected.append((at, at + len(e["value"]), e["category"], e["kind"]))
        if not [e for e in row["expect"] if e["category"] in categories]:
            negatives += 1
            flagged_negatives += bool(spans)
        for start, end, category, kind in expected:
            if any(s < end and start < e and c == category for s, e, c in spans):
                tp += 1
            else:
                fn += 1
                missed.append(f"{kind}: {text[:70]!r}")
        for s, e, c in spans:
            if not any(s < end and start < e for start, end, _, _ in expected):
                fp += 1
                false.append(f"{c}: {text[s:e][:40]!r} in {text[:50]!r}")
    elapsed = time.perf_counter() - started
    return {
        "expected": tp + fn, "found": tp, "missed": fn, "false_positives": fp,
        "recall": round(tp / max(tp + fn, 1), 3), "precision": round(tp / max(tp + fp, 1), 3),
        "negative_texts": negatives, "negative_texts_flagged": flagged_negatives,
        "us_per_kb": round(elapsed / max(chars, 1) * 1e9, 1),
        "missed_examples": missed[:12], "false_examples": false[:12],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--verbose", action="store_true", help="print misses and false alarms")
    args = parser.parse_args()
    baseline_secrets = detect_secrets_baseline()
    report: dict[str, dict] = {}
    for part in ("dev", "holdout"):
        rows = [json.loads(line) for line in (DATA / f"{part}.jsonl").read_text().splitlines()]
        report[part] = {
            "mnemo_secret": score(rows, mnemo, {"secret"}),
            "mnemo_pii": score(rows, mnemo, {"pii"}),
            "naive_pii": score(rows, naive_pii, {"pii"}),
        }
        if baseline_secrets is not None:
            report[part]["detect_secrets"] = score(rows, baseline_secrets, {"secret"})
        print(f"== {part}: {len(rows)} texts")
        for name, result in report[part].items():
            print(
                f"  {name:15} found {result['found']:3}/{result['expected']:3} "
                f"(recall {result['recall']:.3f})  false positives {result['false_positives']:3} "
                f"(precision {result['precision']:.3f})  negative texts flagged "
                f"{result['negative_texts_flagged']}/{result['negative_texts']}  "
                f"{result['us_per_kb']} µs/KB"
            )
            if args.verbose and name.startswith("mnemo"):
                for line in result["missed_examples"]:
                    print("     missed:", line)
                for line in result["false_examples"]:
                    print("     false: ", line)
    if baseline_secrets is None:
        print("(detect-secrets is not installed: no secrets baseline; pip install detect-secrets)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
