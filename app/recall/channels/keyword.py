"""The keyword channel: Lucene BM25 over fact text and entity names, scoped inside the query."""

from __future__ import annotations

import re

from app.domain.tags import TagsMatch
from app.recall.ports import GraphReader
from app.recall.query import RecallQuery
from app.recall.rows import listed
from app.store.search_keys import UNTAGGED, bank_key, count_token, escape_lucene, tag_token

# Distinct query words used (each appears in two fields; Lucene refuses > 1,024 clauses).
MAX_TERMS = 64
_WORD = re.compile(r"\w+")
# Function words left out of the query. The index's 'english' analyzer drops only Lucene's 33
# stop words, so "what", "did", "when", "you" stayed and made questions match chit-chat
# questions ("What did it look like?") on LoCoMo. Only the query side is filtered: facts are
# indexed whole. A query made only of these words searches them after all.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be been before being below
    between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves
    out over own same she should so some such than that the their theirs them themselves then
    there these they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours yourself yourselves
    """.split()  # noqa: SIM905 - a word list reads better as words
)


def query_terms(text: str) -> list[str]:
    """The query's distinct content words (letters, digits, underscore), lower-cased, in order.

    Only word characters survive, so Lucene syntax in a query (``"foo" AND (bar:* OR ~)``) can
    never be parsed as syntax; each term is escaped as well, belt and braces.
    """
    words = list(dict.fromkeys(match.group(0).lower() for match in _WORD.finditer(text)))
    content = [word for word in words if word not in STOP_WORDS]
    return (content or words)[:MAX_TERMS]


def tags_clause(tags: tuple[str, ...] | None, mode: TagsMatch) -> str | None:
    """The Lucene clause over ``tag_tokens`` that implements ``tags_match`` (None: no filter).

    Mirrors ``app.domain.tags.tags_match``: ``any``/``all`` admit untagged facts through the
    ``untagged0`` token, the ``_strict`` forms do not, ``exact`` adds the tag-count token.
    """
    if not tags:
        return None
    tokens = [tag_token(tag) for tag in sorted(set(tags))]
    any_of = "tag_tokens:(" + " OR ".join(tokens) + ")"
    all_of = " AND ".join(f"tag_tokens:{token}" for token in tokens)
    if mode == "any":
        return f"({any_of} OR tag_tokens:{UNTAGGED})"
    if mode == "any_strict":
        return any_of
    if mode == "all":
        return f"(({all_of}) OR tag_tokens:{UNTAGGED})"
    if mode == "all_strict":
        return f"({all_of})"
    if mode == "exact":
        return f"({all_of} AND tag_tokens:{count_token(len(tokens))})"
    raise ValueError(f"unknown tags_match mode {mode!r}")


def lucene_query(query: RecallQuery) -> str | None:
    """The whole Lucene query, or None when the text has no word to search.

    Filter clauses (bank, state, type, tags) are boosted ``^0`` so that the score is the BM25
    of the words alone, comparable across requests with different filters.
    """
    terms = " ".join(escape_lucene(term) for term in query_terms(query.text))
    if not terms:
        return None
    clauses = [f"bank_key:{bank_key(query.bank_id)}", "state:valid"]
    if query.fact_types is not None:
        clauses.append("fact_type:(" + " OR ".join(sorted(set(query.fact_types))) + ")")
    tags = tags_clause(query.tags, query.tags_match)
    if tags is not None:
        clauses.append(tags)
    filters = " AND ".join(f"{clause}^0" for clause in clauses)
    return f"{filters} AND (text:({terms}) OR entity_names:({terms}))"


class KeywordChannel:
    """BM25 over the ``memory_search`` full-text index; score: Lucene's BM25 score."""

    def __init__(self, graph: GraphReader) -> None:
        self._graph = graph

    async def search(self, query: RecallQuery, limit: int) -> list[tuple[str, float]]:
        """Up to ``limit`` ``(id, bm25)`` pairs, best match first."""
        if query.fact_types is not None and not query.fact_types:
            return []
        lucene = lucene_query(query)
        if lucene is None:
            return []
        rows = await self._graph.run(
            "recall/keyword", {"bank_id": query.bank_id, "lucene": lucene, "limit": limit}
        )
        return [(str(hit["id"]), float(hit["score"])) for hit in listed(rows, "hits")]
