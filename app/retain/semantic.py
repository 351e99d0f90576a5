"""Semantic neighbours of facts: which stored facts a fact is "about the same thing" as.

One job: given facts (ids and their unit vectors), find the links the link policy asks for,
within the given facts and to the bank's stored facts (observations, which restate facts, are
not linked). Writing them is the publish step's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from app.domain.facts import EXTRACTED_FACT_TYPES
from app.retain.links import DEFAULT_LINKS, Link, LinkPolicy, semantic_pairs
from app.store.vectors import VectorFilter, VectorStore


class SemanticLinkFinder:
    """Finds SEMANTIC links of facts in the vector store."""

    def __init__(self, vectors: VectorStore, policy: LinkPolicy = DEFAULT_LINKS) -> None:
        self._vectors = vectors
        self._policy = policy

    async def find(
        self, bank_id: str, ids: Sequence[str], vectors: npt.NDArray[np.float32]
    ) -> list[Link]:
        """Links of facts (ids and their vectors): among themselves and to stored facts.

        A stored hit that is one of the given facts is left to the pairs among them: an edited
        fact's previous vector, or a repaired fact whose vector was already written, would
        otherwise link a fact to itself or give a pair twice.
        """
        links = semantic_pairs(list(ids), vectors, self._policy)
        found = await self._vectors.search_many(
            vectors,
            VectorFilter(bank_id=bank_id, fact_types=EXTRACTED_FACT_TYPES),
            self._policy.semantic_top_k,
            min_score=self._policy.semantic_threshold,
        )
        given = set(ids)
        for fact_id, hits in zip(ids, found, strict=True):
            links.extend(
                Link(fact_id, hit.id, round(hit.score, 4)) for hit in hits if hit.id not in given
            )
        return links
