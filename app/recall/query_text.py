"""The text each channel searches with: the vector channel leaves out names too common to mean much.

An entity the query names that a large share of the bank's facts mention (the user of a personal
memory, both speakers of a chat history) is a stop word *for this bank*: it tells no fact apart
from most others. In the keyword channel BM25's IDF already discounts it, but an embedding does
not: on short facts the name dominates the vector, so "What book is Jon reading?" came closest
to "Jon: How's it going?" (LoCoMo: vector-only recall@10 0.579 with the names, 0.646 without).
So the vector (and temporal) channels embed the query without such names; the keyword and graph
channels still use them, and a query that would be left with too little is embedded whole.

Which names are hubs is read per bank (``recall/hub_names``: every name of each entity that at
least ``RecallRecipe.hub_share`` of the bank's facts mention; none in a bank under 20 facts) and
cached for a minute, so the vector channel never waits for the query's entity lookup.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from app.recall.channels.keyword import STOP_WORDS
from app.recall.entities import query_name_keys

_WORD = re.compile(r"\w+")
# The query keeps its names unless at least this many content words remain without them.
MIN_CONTENT_WORDS = 2


def hub_mentions(text: str, hub_keys: Collection[str]) -> list[str]:
    """The words of ``text`` that name a hub: runs of 1-4 words whose ``name_key`` is a hub's.

    ``hub_keys`` are the normalised names of the bank's hubs (``recall/hub_names``); a
    possessive ("Gina's") counts for its name.
    """
    if not hub_keys:
        return []
    return [surface for key, surface in query_name_keys(text).items() if key in hub_keys]


def without_names(text: str, names: Iterable[str]) -> str:
    """``text`` with each name (and its possessive "'s") removed, case-insensitively.

    Returns ``text`` unchanged when fewer than ``MIN_CONTENT_WORDS`` content words would remain.
    """
    masked = text
    for name in sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True):
        pattern = r"(?<!\w)" + re.escape(name) + r"(?:['\u2019]s)?(?!\w)"
        masked = re.sub(pattern, " ", masked, flags=re.IGNORECASE)
    masked = re.sub(r"\s+", " ", masked).strip()
    content = [w for w in _WORD.findall(masked.lower()) if w not in STOP_WORDS]
    return masked if len(content) >= MIN_CONTENT_WORDS else text
