"""The vector channel: nearest neighbours of the query embedding in the vector store."""

from __future__ import annotations

from collections.abc import Sequence

from app.recall.ports import GraphReader
from app.recall.query import RecallQuery
from app.recall.rows import listed
from app.store.vectors import VectorStore


class VectorChannel:
    """Cosine nearest neighbours, bank, type, state and tag filters applied inside the search.

    The hits are joined to Neo4j in one round trip (``recall/vector_join``), which drops facts
    that are not recall-visible there: invalidated a moment ago, or still ``vector_pending``
    (half-written: their graph side is not confirmed). Score: the cosine similarity.
    """

    def __init__(self, graph: GraphReader, vectors: VectorStore) -> None:
        self._graph = graph
        self._vectors = vectors

    async def search(
        self, query: RecallQuery, embedding: Sequence[float], limit: int
    ) -> list[tuple[str, float]]:
        """Up to ``limit`` ``(id, cosine)`` pairs, most similar first."""
        hits = await self._vectors.search(embedding, query.vector_filter(), limit)
        if not hits:
            return []
        rows = await self._graph.run(
            "recall/vector_join",
            {"bank_id": query.bank_id, "hits": [{"id": h.id, "score": h.score} for h in hits]},
        )
        return [(str(hit["id"]), float(hit["score"])) for hit in listed(rows, "hits")]
