"""The reference semantics of ``tags`` + ``tags_match`` filters.

The stores apply the same filter inside their queries (Qdrant payload filters, Cypher
predicates) so that filtering never happens after a LIMIT; their tests cross-check them against
``tags_match`` here. With query tags Q and a fact's tags F:

=============  ============================  ==================
mode           tagged fact matches when      untagged fact
=============  ============================  ==================
``any``        F ∩ Q ≠ ∅                     matches
``all``        Q ⊆ F                         matches
``any_strict`` F ∩ Q ≠ ∅                     does not match
``all_strict`` Q ⊆ F                         does not match
``exact``      F = Q (as sets)               does not match
=============  ============================  ==================

No query tags (None or empty) means no tag filter: every fact matches, whatever the mode, so a
client that sends ``tags_match`` without ``tags`` is not surprised by an empty answer.
Tags compare as exact strings (case-sensitive); normalising them is the write path's job.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal, get_args

import msgspec

# One tag as a client sends it (tags compare as exact, case-sensitive strings).
Tag = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]

TagsMatch = Literal["any", "all", "any_strict", "all_strict", "exact"]
TAGS_MATCH_MODES: tuple[TagsMatch, ...] = get_args(TagsMatch)


def tags_match(
    fact_tags: Iterable[str] | None,
    query_tags: Iterable[str] | None,
    mode: TagsMatch = "any",
) -> bool:
    """Whether a fact with ``fact_tags`` passes the filter ``query_tags`` under ``mode``."""
    if mode not in TAGS_MATCH_MODES:
        raise ValueError(f"unknown tags_match mode {mode!r}")
    query = frozenset(query_tags or ())
    if not query:
        return True
    fact = frozenset(fact_tags or ())
    if mode == "exact":
        return fact == query
    if not fact:
        return mode in ("any", "all")
    if mode in ("any", "any_strict"):
        return not fact.isdisjoint(query)
    return query <= fact  # "all" and "all_strict" on a tagged fact
