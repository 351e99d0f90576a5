"""The review rows a resolution or a settle files, one per pair of entities, ever.

Both the first pass (``graph_resolver``) and the settle (``settle_store``) file what their
working sets recorded; curation finds a pair's review by the same id (``review_id``).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterable

import msgspec

from app.resolve.working_set import ReviewRecord


def review_id(bank_id: str, a: str, b: str) -> str:
    """One review per pair, ever: the id is derived from the pair."""
    low, high = sorted((a, b))
    return str(uuid.UUID(hashlib.sha256(f"{bank_id}|{low}|{high}".encode()).hexdigest()[:32]))


def review_rows(
    bank_id: str,
    records: Iterable[ReviewRecord],
    final: Callable[[str], str],
    filed: Callable[[str, str], bool],
    reason_prefix: str = "",
) -> list[dict[str, object]]:
    """The rows of ``resolve/file_reviews``: one per pair (``review_id``), the last record's.

    ``final`` maps an id to the entity it ended up in (evidence included); ``filed(a, b)``
    says whether a pair of final ids is filed at all. A record's evidence is encoded once,
    whatever the number of pairs it files.
    """
    out: dict[str, dict[str, object]] = {}
    for record in records:
        a = final(record.entity_id)
        pairs = [b for b in map(final, record.others) if a != b and filed(a, b)]
        if not pairs:
            continue
        evidence = json.dumps(
            msgspec.to_builtins(
                [msgspec.structs.replace(e, entity_id=final(e.entity_id)) for e in record.evidence]
            ),
            ensure_ascii=False,
            default=str,
        )
        for b in pairs:
            rid = review_id(bank_id, a, b)
            out[rid] = {
                "id": rid,
                "entity_a": a,
                "entity_b": b,
                "reason": f"{reason_prefix}{record.reason}",
                "evidence_json": evidence,
            }
    return list(out.values())
