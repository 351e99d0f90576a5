"""Build an identity corpus JSON (the format of shared/bench/identity) from its markup file.

Each line of the markup is ``DATE | CASES | content``; mentions in the content are marked
``{surface|type|gold}``. Items on one date keep their order (minutes apart). Cases are
comma-separated ``family/sub-case`` names; every item is listed under its sub-case and its
family. The hub of each ``hub`` case is the identity its items mention most often (the writer
need not name the hub first).

    .venv/bin/python scripts/data/build_identity_corpus.py scripts/data/identity_dev2.txt \
        scripts/data/identity_dev2.json
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

MARK = re.compile(r"\{([^{}|]+)\|([^{}|]+)\|([^{}|]+)\}")


def build(lines: list[str], about: str, prefix: str = "d2") -> dict[str, object]:
    items = []
    cases: dict[str, list[str]] = defaultdict(list)
    hub_mentions: dict[str, Counter[str]] = defaultdict(Counter)
    per_date: dict[str, int] = defaultdict(int)
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        date, case_text, marked = (part.strip() for part in line.split("|", 2))
        mentions = [{"text": m[1], "type": m[2], "gold": m[3]} for m in MARK.finditer(marked)]
        content = MARK.sub(lambda m: m[1], marked)
        n = per_date[date]
        per_date[date] += 1
        item_id = f"{prefix}-{len(items) + 1:03d}"
        items.append(
            {
                "id": item_id,
                "timestamp": f"{date}T{9 + n // 60:02d}:{n % 60:02d}:00Z",
                "content": content,
                "mentions": mentions,
            }
        )
        for case in case_text.split(","):
            case = case.strip()
            family = case.split("/")[0]
            for name in dict.fromkeys((family, case)):
                cases[name].append(item_id)
            if family == "hub":
                hub_mentions[case].update({m["gold"] for m in mentions})
    hubs = sorted({counts.most_common(1)[0][0] for counts in hub_mentions.values() if counts})
    return {"about": about, "hubs": hubs, "items": items, "cases": dict(cases)}


def main() -> int:
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    lines = source.read_text(encoding="utf-8").splitlines()
    about = " ".join(line.lstrip("# ").strip() for line in lines[:1])
    # An optional third argument: the item id prefix (each corpus its own, e.g. "d3").
    corpus = build(lines, about, sys.argv[3] if len(sys.argv) > 3 else "d2")
    target.write_text(json.dumps(corpus, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
