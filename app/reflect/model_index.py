"""Finding the mental models that match a question, by the meaning of their source query.

Each model keeps the embedding of ``name: source_query`` (written when it is created or its
question changes). A bank holds tens of models, so matching reads them all in one statement
and compares vectors here; nothing goes to the vector store, whose collection holds memories.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import datetime

import msgspec
import numpy as np

from app.domain.tags import TagsMatch, tags_match
from app.recall.ports import GraphReader
from app.recall.rows import listed

# A model is consulted before reflect answers from this cosine similarity of the question to
# its source query on (all-MiniLM-L6-v2: paraphrases of one question score 0.6-0.9, questions
# about the same person but another subject 0.3-0.5).
CONSULT_MIN_SCORE = 0.55
# The search_mental_models tool shows the model candidates down to this score, best first.
SEARCH_MIN_SCORE = 0.3


class ModelMatch(msgspec.Struct, frozen=True, kw_only=True):
    """A mental model that matches a question, and how closely."""

    id: str
    name: str
    source_query: str
    content: str
    tags: list[str]
    score: float
    last_refreshed_at: datetime | None = None


class _Stored(msgspec.Struct):
    id: str
    name: str
    source_query: str
    content: str
    tags: list[str]
    embedding: list[float] | None = None
    last_refreshed_at: datetime | None = None


def question_text(name: str, source_query: str) -> str:
    """What a model's embedding is computed from."""
    return f"{name}: {source_query}"


class MentalModelIndex:
    """Reads a bank's mental models and ranks them against a query vector."""

    def __init__(self, graph: GraphReader) -> None:
        self._graph = graph

    async def matching(
        self,
        bank_id: str,
        query_vector: Callable[[], Awaitable[Sequence[float]]],
        *,
        tags: Sequence[str] | None,
        mode: TagsMatch,
        exclude: Collection[str] = (),
        min_score: float = CONSULT_MIN_SCORE,
        limit: int = 3,
    ) -> list[ModelMatch]:
        """Models whose question is close to the query, best first.

        ``query_vector`` is awaited only when the bank has a model to compare with, so a bank
        without mental models costs one cheap read and no embedding. Tags filter models as they
        filter memories (a model's tags against the request's).
        """
        rows = await self._graph.run("mental_models/search", {"bank_id": bank_id})
        models = msgspec.convert(listed(rows, "models"), list[_Stored], strict=False)
        usable = [
            m
            for m in models
            if m.embedding and m.id not in exclude and tags_match(m.tags, tags, mode)
        ]
        if not usable:
            return []
        vectors = np.asarray([m.embedding for m in usable], dtype=np.float32)
        scores = vectors @ np.asarray(await query_vector(), dtype=np.float32)
        ranked = sorted(zip(usable, scores.tolist(), strict=True), key=lambda p: (-p[1], p[0].id))
        return [
            ModelMatch(
                id=m.id,
                name=m.name,
                source_query=m.source_query,
                content=m.content,
                tags=m.tags,
                score=round(score, 4),
                last_refreshed_at=m.last_refreshed_at,
            )
            for m, score in ranked[:limit]
            if score >= min_score
        ]
