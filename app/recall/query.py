"""What every recall channel reads: the bank, the query text and the request's filters.

``RecallQuery`` is built once per request by the service and handed to each channel, so that the
channels cannot disagree about the filters. It renders the filters for the two stores that
apply them inside their searches: Cypher parameters (``cypher_filters``) and the vector store's
``VectorFilter`` (``vector_filter``).
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from app.domain.dates import as_utc
from app.domain.tags import TagsMatch
from app.recall.candidates import TimeWindow
from app.store.vectors import VectorFilter


class RecallQuery(msgspec.Struct, frozen=True, kw_only=True):
    """One recall request as the channels see it.

    ``tags`` is None when the request sets no tag filter (an empty list means the same, see
    ``app.domain.tags``), and holds distinct tags otherwise. ``window`` is the event-time
    window the query asks about (given, or parsed from the text), if any. ``now`` is the
    reference time of the query (``query_timestamp`` or the clock), read by the boosts.
    """

    bank_id: str
    text: str
    now: datetime
    fact_types: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    tags_match: TagsMatch = "any"
    window: TimeWindow | None = None

    def cypher_filters(self) -> dict[str, object]:
        """The ``$fact_types``, ``$tags`` and ``$tags_match`` parameters of the recall Cypher."""
        return {
            "fact_types": list(self.fact_types) if self.fact_types is not None else None,
            "tags": list(self.tags) if self.tags else None,
            "tags_match": self.tags_match,
        }

    def vector_filter(self, window: TimeWindow | None = None) -> VectorFilter:
        """The same filters for the vector store; ``window`` adds an event-time overlap."""
        return VectorFilter(
            bank_id=self.bank_id,
            fact_types=self.fact_types,
            tags=self.tags or None,
            tags_match=self.tags_match,
            occurred_after=_seconds(window.start) if window else None,
            occurred_before=_seconds(window.end) if window else None,
        )


def _seconds(moment: datetime) -> float:
    return as_utc(moment).timestamp()
