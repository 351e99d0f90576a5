"""Entities named in a query, found through the name index (a stand-in for the resolver's lookup).

Two lookups, both index-backed and scoped to the bank:

- **exact**: every run of 1–4 words of the query, normalised with ``name_key`` (the one
  normalisation the write path uses), looked up on ``Name`` nodes; a possessive ("Caroline's")
  is also tried without its "'s". Strength 1.0.
- **fuzzy**: the query's capitalised longer words that the exact pass did not resolve, as fuzzy
  terms (edit distance 1) on the ``name_search`` full-text index, for misspelled or partial
  names. A name found this way is kept only when at least half of its own words are (nearly)
  in the query, and its strength is ``FUZZY_STRENGTH × that share``: "Carolin" finds
  "Caroline" (0.8), "Support Group" finds "LGBTQ support group" (0.53), and one common word
  never pulls in a long name.

The class is deliberately small: the entity resolver's candidate retrieval (names, aliases,
guards) will replace it behind the same ``EntityFinder`` port.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from difflib import SequenceMatcher

from app.domain.names import name_key, name_tokens
from app.recall.candidates import QueryEntity
from app.recall.ports import GraphReader
from app.recall.rows import listed
from app.store.search_keys import bank_key, escape_lucene

# Longest name, in words, looked up exactly.
MAX_NAME_WORDS = 4
# Upper bound on the exact keys of one query (a 2,000-character query has ~1,400 n-grams).
MAX_KEYS = 256
# Upper bound on fuzzy terms (each is expanded over the whole name index).
MAX_FUZZY_TERMS = 8
_WORDS = re.compile(r"[^\W\d_][\w'\u2019-]*")
# Words shorter than this are never looked up fuzzily (one edit turns "tim" into "tom").
FUZZY_MIN_CHARS = 5
# Strength of a fuzzy match that covers the whole name.
FUZZY_STRENGTH = 0.8
# How similar two words must be to count as the same word in a fuzzy match.
WORD_SIMILARITY = 0.8
# Full-text names considered per query before the coverage check.
FUZZY_CANDIDATES = 20

# Words that are never names on their own (single-word keys only): they would match entities
# such as a product called "When" far more often than the query means one.
_STOP_WORDS = frozenset(
    """
    a an and are as at be been but by can could did do does for from had has have he her hers
    him his how i if in into is it its me my of on or our she so than that the their them then
    there these they this to too us was we were what when where which who whom why will with
    would you your
    """.split()  # noqa: SIM905 - a word list reads better as words
)


def query_name_keys(text: str) -> dict[str, str]:
    """Map each ``name_key`` of the query's 1–4-word runs to the words it came from.

    Single stop words are skipped; at most ``MAX_KEYS`` keys, shortest runs first.
    """
    words = text.split()
    keys: dict[str, str] = {}
    for size in range(1, MAX_NAME_WORDS + 1):
        for start in range(len(words) - size + 1):
            surface = " ".join(words[start : start + size])
            for key in _key_variants(surface):
                if len(keys) >= MAX_KEYS:
                    return keys
                if size == 1 and (key in _STOP_WORDS or len(key) < 2):
                    continue
                keys.setdefault(key, surface)
    return keys


def _key_variants(surface: str) -> Iterable[str]:
    key = name_key(surface)
    if not key:
        return ()
    for suffix in ("'s", "\u2019s"):
        if key.endswith(suffix):
            bare = name_key(key[: -len(suffix)])
            return (key, bare) if bare else (key,)
    return (key,)


def fuzzy_terms(text: str) -> list[str]:
    """The query's capitalised words long enough for a fuzzy lookup, folded, distinct, in order.

    Capitalised only: a fuzzy term is expanded over every name in the index, and lower-case
    words ("happened", "march") are rarely misspelt names, so they cost time and bring noise.
    """
    terms: list[str] = []
    for word in _WORDS.findall(text):
        if not word[0].isupper():
            continue
        for token in name_tokens(name_key(word)):
            if len(token) >= FUZZY_MIN_CHARS and token not in _STOP_WORDS and token not in terms:
                terms.append(token)
    return terms[:MAX_FUZZY_TERMS]


def names_lucene(bank_id: str, terms: Iterable[str]) -> str | None:
    """The ``name_search`` query: the bank's key (zero-boosted) and each term with ``~1``."""
    fuzzy = " ".join(f"{escape_lucene(term)}~1" for term in terms)
    if not fuzzy:
        return None
    return f"bank_key:{bank_key(bank_id)}^0 AND text:({fuzzy})"


def name_coverage(name: str, query_words: Iterable[str]) -> float:
    """Share of the name's words that (nearly) appear among the query's words."""
    tokens = name_tokens(name_key(name))
    if not tokens:
        return 0.0
    words = tuple(query_words)
    matched = sum(1 for token in tokens if any(_similar(token, word) for word in words))
    return matched / len(tokens)


def _similar(a: str, b: str) -> bool:
    return a == b or SequenceMatcher(None, a, b).ratio() >= WORD_SIMILARITY


def best_entities(found: Iterable[QueryEntity], limit: int) -> list[QueryEntity]:
    """One entry per entity (its strongest match), strongest then most specific first."""
    best: dict[str, QueryEntity] = {}
    for entity in found:
        kept = best.get(entity.id)
        if kept is None or entity.strength > kept.strength:
            best[entity.id] = entity
    ordered = sorted(best.values(), key=lambda e: (-e.strength, e.degree, e.name, e.id))
    return ordered[:limit]


class NameIndexLookup:
    """``EntityFinder`` over the ``Name`` nodes: exact key lookup plus a fuzzy full-text pass."""

    def __init__(self, graph: GraphReader) -> None:
        self._graph = graph

    async def find(self, bank_id: str, text: str, limit: int) -> list[QueryEntity]:
        """At most ``limit`` entities the query names, strongest then most specific first."""
        if limit <= 0:
            return []
        exact = await self._exact(bank_id, text)
        covered = {name_key(e.matched) for e in exact}
        fuzzy = await self._fuzzy(bank_id, text, covered)
        return best_entities([*exact, *fuzzy], limit)

    async def _exact(self, bank_id: str, text: str) -> list[QueryEntity]:
        keys = query_name_keys(text)
        if not keys:
            return []
        rows = await self._graph.run("recall/names_exact", {"bank_id": bank_id, "keys": list(keys)})
        return [
            _entity(row, matched=keys.get(row["key"], row["key"]), strength=1.0)
            for row in listed(rows, "names")
        ]

    async def _fuzzy(self, bank_id: str, text: str, covered: set[str]) -> list[QueryEntity]:
        terms = [t for t in fuzzy_terms(text) if t not in covered]
        lucene = names_lucene(bank_id, terms)
        if lucene is None:
            return []
        rows = await self._graph.run(
            "recall/names_fuzzy",
            {"bank_id": bank_id, "lucene": lucene, "limit": FUZZY_CANDIDATES},
        )
        words = name_tokens(name_key(text))
        found = []
        for row in listed(rows, "names"):
            coverage = name_coverage(row["text"], words)
            if coverage >= 0.5:
                found.append(_entity(row, matched=row["text"], strength=FUZZY_STRENGTH * coverage))
        return found


def _entity(row: Mapping[str, object], *, matched: str, strength: float) -> QueryEntity:
    return QueryEntity(
        id=str(row["entity_id"]),
        name=str(row["name"]),
        type=str(row["type"] or ""),
        degree=int(row["degree"]),  # type: ignore[call-overload]
        matched=matched,
        strength=strength,
    )
