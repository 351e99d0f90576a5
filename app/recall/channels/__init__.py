"""Recall channels, one class per file and one job each (neo4j-graphrag's retrievers).

Each channel returns raw candidates, ``(fact id, score)`` pairs best first, in its own score
scale; ``app.recall.candidates.ranked`` turns them into ranks and the service fuses the ranks.
No channel formats results or knows about the others: the graph channel receives its seeds
from the service.

- ``VectorChannel``: nearest neighbours of the query embedding (filters inside the search).
- ``KeywordChannel``: Lucene BM25 over fact text and entity names (filters inside the query).
- ``GraphChannel``: expansion from seed facts and query entities through shared entities and
  SEMANTIC / CAUSED_BY links.
- ``TemporalChannel``: facts inside the query's time window, spreading along TEMPORAL /
  CAUSED_BY links.
"""

from app.recall.channels.graph import GraphChannel, GraphSeeds
from app.recall.channels.keyword import KeywordChannel
from app.recall.channels.temporal import TemporalChannel
from app.recall.channels.vector import VectorChannel

Scored = list[tuple[str, float]]

__all__ = [
    "GraphChannel",
    "GraphSeeds",
    "KeywordChannel",
    "Scored",
    "TemporalChannel",
    "VectorChannel",
]
