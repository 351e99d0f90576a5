"""The temporal channel: facts inside the query's time window, then their TEMPORAL neighbours."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from app.recall.candidates import TimeWindow
from app.recall.graph_scoring import (
    SpreadLink,
    inside_window_score,
    spread,
    window_overlap_score,
)
from app.recall.ports import GraphReader
from app.recall.query import RecallQuery
from app.recall.recipes import RecallRecipe
from app.recall.rows import from_epoch_ms, listed
from app.store.vectors import VectorStore

# TEMPORAL links followed per fact, strongest first: retain links each fact to its 3 nearest
# facts on each side in event time.
SPREAD_PER_FACT = 6


class TemporalChannel:
    """Window overlap first, meaning second; score in [0, 1] (``graph_scoring``).

    Which facts lie in the window is asked of the vector store, with the window as an
    event-time overlap filter *inside* the nearest-neighbour search: the search is bounded by
    its limit however many facts the window holds (a bank of 100k facts and a query about
    "2023"), uses the payload range indexes, and returns the facts of the window closest in
    meaning first, instead of an arbitrary slice of a long time range. The hits are joined to
    Neo4j in one round trip (``recall/temporal_join``: recall-visible facts and their event
    times); each scores ``inside_window_score`` (overlap share, trimmed a little by cosine).
    The TEMPORAL / CAUSED_BY neighbours of the strongest ``graph_seeds`` of them
    (``recall/temporal_links``, one round trip per hop, ``SPREAD_PER_FACT`` per fact) get a
    decayed share (``graph_scoring.spread``), so
    every fact inside the window outranks every fact reached by spreading; a fact reached only
    by spreading is kept from ``spread_min_score`` up.
    """

    def __init__(self, graph: GraphReader, vectors: VectorStore) -> None:
        self._graph = graph
        self._vectors = vectors

    async def search(
        self,
        query: RecallQuery,
        embedding: Sequence[float],
        window: TimeWindow,
        recipe: RecallRecipe,
    ) -> list[tuple[str, float]]:
        """Up to ``recipe.temporal_limit`` ``(id, temporal score)`` pairs, best first."""
        config = recipe.temporal
        hits = await self._vectors.search(
            embedding, query.vector_filter(window), recipe.temporal_limit
        )
        if not hits:
            return []
        rows = await self._graph.run(
            "recall/temporal_join",
            {"bank_id": query.bank_id, "hits": [{"id": h.id, "score": h.score} for h in hits]},
        )
        inside: dict[str, float] = {}
        for row in listed(rows, "hits"):
            overlap = window_overlap_score(
                from_epoch_ms(row["occurred_start"]),
                from_epoch_ms(row["occurred_end"]),
                window,
                config,
            )
            if overlap > 0:
                inside[str(row["id"])] = inside_window_score(overlap, float(row["score"]), config)
        links: list[SpreadLink] = []
        # Spread from the strongest facts inside the window only: a weak one's neighbours could
        # not reach spread_min_score anyway, and each source costs rows to decode.
        strongest = sorted(inside.items(), key=lambda item: (-item[1], item[0]))
        frontier = [fact_id for fact_id, _ in strongest[: recipe.graph_seeds]]
        seen = set(inside)
        for _ in range(config.spread_hops):
            if not frontier:
                break
            found = await self._graph.run(
                "recall/temporal_links",
                {
                    "bank_id": query.bank_id,
                    "ids": frontier,
                    "per_fact": SPREAD_PER_FACT,
                    **query.cypher_filters(),
                },
            )
            links.extend(
                msgspec.convert(
                    {
                        "source": str(r["source"]),
                        "target": str(r["target"]),
                        "kind": "caused_by" if r["kind"] == "CAUSED_BY" else "temporal",
                        "weight": float(r["weight"]),
                    },
                    SpreadLink,
                )
                for r in listed(found, "links")
            )
            targets = dict.fromkeys(str(r["target"]) for r in listed(found, "links"))
            frontier = [t for t in targets if t not in seen]
            seen.update(frontier)
        scores = {
            fact_id: score
            for fact_id, score in spread(inside, links, config).items()
            if fact_id in inside or score >= config.spread_min_score
        }
        ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return ordered[: recipe.temporal_limit]
