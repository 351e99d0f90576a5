"""The small interfaces recall depends on, so that channels and the service never see a driver.

``GraphReader`` is the part of ``app.store.graph.Graph`` recall uses (named read statements),
``QueryEmbedder`` the part of the embedder, ``BankGuard`` the part of the bank service;
``Reranker`` is the optional cross-encoder hook (none ships: no model is available offline);
``EntityFinder`` finds the entities a query names (``app.recall.entities.NameIndexLookup`` now,
the entity resolver's candidate lookup later).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import msgspec
import numpy as np
import numpy.typing as npt

from app.recall.candidates import QueryEntity


class GraphReader(Protocol):
    """Runs named Cypher statements (``cypher/<area>/<name>.cypher``) and returns records."""

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one statement in its own transaction."""
        ...


class QueryEmbedder(Protocol):
    """Embeds the query (``app.store.embeddings.Embedder``)."""

    async def embed_one(self, text: str) -> npt.NDArray[np.float32]:
        """One L2-normalised vector."""
        ...


class BankGuard(Protocol):
    """Says whether a bank exists (``app.domain.banks.BankDirectory``)."""

    async def require(self, bank_id: str) -> None:
        """Raise ``NotFound`` unless the bank exists."""
        ...


class RerankCandidate(msgspec.Struct, frozen=True, kw_only=True):
    """A fused fact offered to a reranker: its id and text."""

    id: str
    text: str


class Reranker(Protocol):
    """Re-scores fused candidates against the query (a cross-encoder, typically).

    It returns ``(id, score)`` for the candidates it scored, higher is better; ids it leaves
    out keep their fused order below the scored ones. Off (None) by default.
    """

    async def rerank(
        self, query: str, candidates: Sequence[RerankCandidate]
    ) -> list[tuple[str, float]]:
        """Score candidates for the query."""
        ...


class EntityFinder(Protocol):
    """Finds the entities of a bank that a query names."""

    async def find(self, bank_id: str, text: str, limit: int) -> list[QueryEntity]:
        """At most ``limit`` entities, best first."""
        ...
