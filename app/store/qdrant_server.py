"""The vector store against a Qdrant server, through ``qdrant_client.AsyncQdrantClient``.

Used when ``MNEMO_QDRANT_URL`` is set (several workers or machines share one server). The
collection gets the same layout as the embedded shard (see ``qdrant_edge``): cosine distance, no
global HNSW graph, one graph per bank through the ``is_tenant`` ``bank_id`` index, and payload
indexes on every filtered field. The server builds its indexes itself, in the background.

Tests run this adapter in qdrant-client's local mode (``location=":memory:"`` or ``path=``),
which evaluates the same filters in Python; payload indexes have no effect there and are skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from qdrant_client import AsyncQdrantClient, models

from app.config import Settings
from app.errors import Unavailable
from app.store.vectors import (
    INDEXED_FLOATS,
    INDEXED_KEYWORDS,
    AllOf,
    AnyOf,
    Condition,
    CountAtMost,
    IsEmpty,
    Match,
    MatchAny,
    MemoryState,
    QueryVectors,
    Range,
    VectorFilter,
    VectorHit,
    VectorPoint,
    bank_condition,
    canonical_id,
    filter_plan,
    payload_dict,
)

log = logging.getLogger(__name__)

WRITE_BATCH = 1_000
SCROLL_PAGE = 10_000
HNSW_M_PER_BANK = 16
HNSW_EF_SEARCH = 256  # as in qdrant_edge: recall over a few ms


class ServerVectorStore:
    """:class:`app.store.vectors.VectorStore` over a Qdrant server collection."""

    def __init__(
        self,
        *,
        dim: int,
        collection: str,
        url: str | None = None,
        api_key: str | None = None,
        location: str | None = None,
        path: str | None = None,
        client: AsyncQdrantClient | None = None,
        payload_indexes: bool | None = None,
        timeout_s: int = 30,
    ) -> None:
        """Describe the store; the client is created here but connects lazily (no I/O).

        Give exactly one of ``url`` (a server), ``location=":memory:"`` / ``path`` (qdrant-client
        local mode, for tests) or ``client`` (an already-built client, closed by this store).
        ``payload_indexes`` defaults to "yes, except in local mode" (where they do nothing).
        """
        given = [value is not None for value in (url, location, path, client)]
        if sum(given) != 1:
            raise ValueError("give exactly one of url, location, path or client")
        local = location is not None or path is not None
        self.dim = dim
        self.collection = collection
        self._payload_indexes = not local if payload_indexes is None else payload_indexes
        # Local mode searches exactly and warns about HNSW parameters: send them only to servers.
        self._hnsw_ef: int | None = None if local else HNSW_EF_SEARCH
        self._client = client or AsyncQdrantClient(
            url=url, api_key=api_key, location=location, path=path, timeout=timeout_s
        )
        self._opened = False

    @classmethod
    def from_settings(cls, settings: Settings) -> ServerVectorStore:
        """Build the store for ``settings.qdrant_url`` (no I/O)."""
        if settings.qdrant_url is None:
            raise ValueError("ServerVectorStore needs MNEMO_QDRANT_URL")
        return cls(
            dim=settings.embedding_dim,
            collection=settings.qdrant_collection,
            url=settings.qdrant_url,
            api_key=settings.qdrant_api_key,
        )

    # --- lifecycle ------------------------------------------------------------------------

    async def open(self) -> None:
        """Create the collection and its payload indexes if needed (idempotent)."""
        if self._opened:
            return
        try:
            await self._ensure_collection()
        except Unavailable:
            raise
        except Exception as exc:  # transport errors of either protocol
            raise Unavailable(f"cannot reach the Qdrant server: {exc}") from exc
        self._opened = True

    async def _ensure_collection(self) -> None:
        name = self.collection
        if not await self._client.collection_exists(name):
            try:
                await self._client.create_collection(
                    name,
                    vectors_config=models.VectorParams(
                        size=self.dim, distance=models.Distance.COSINE
                    ),
                    hnsw_config=models.HnswConfigDiff(m=0, payload_m=HNSW_M_PER_BANK),
                )
            except Exception:
                # Another worker created it between our check and our create: fine.
                if not await self._client.collection_exists(name):
                    raise
        info = await self._client.get_collection(name)
        size = _vector_size(info.config.params.vectors)
        if size != self.dim:
            raise Unavailable(
                f"Qdrant collection {name!r} holds {size}-d vectors but the embedding model "
                f"makes {self.dim}-d ones; set MNEMO_QDRANT_COLLECTION to a new collection"
            )
        if self._payload_indexes:
            existing = set(info.payload_schema or {})
            for field, schema in _payload_indexes().items():
                if field not in existing:
                    await self._client.create_payload_index(name, field, field_schema=schema)

    async def close(self) -> None:
        """Close the client (the server persists on its own)."""
        await self._client.close()
        self._opened = False

    async def healthy(self) -> bool:
        """Return True when the server answers for the collection."""
        try:
            return await self._client.collection_exists(self.collection)
        except Exception:  # any failure means "not usable now" to the readiness probe
            log.exception("Qdrant server health check failed")
            return False

    async def flush(self) -> None:
        """Do nothing: every write waits for the server's write-ahead log (``wait=True``)."""

    async def optimize(self) -> bool:
        """Do nothing: the server's optimizers index in the background."""
        return False

    # --- writes ---------------------------------------------------------------------------

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points, in requests of at most ``WRITE_BATCH`` points."""
        structs = [self._point_struct(point) for point in points]
        for start in range(0, len(structs), WRITE_BATCH):
            await self._client.upsert(
                self.collection, points=structs[start : start + WRITE_BATCH], wait=True
            )

    def _point_struct(self, point: VectorPoint) -> models.PointStruct:
        vector = np.asarray(point.vector, dtype=np.float32)
        if vector.shape != (self.dim,):
            raise ValueError(
                f"vector of point {point.id} has shape {vector.shape}, expected ({self.dim},)"
            )
        return models.PointStruct(
            id=canonical_id(point.id), vector=vector.tolist(), payload=payload_dict(point.payload)
        )

    async def set_state(self, bank_id: str, ids: Sequence[str], state: MemoryState) -> None:
        """Change the ``state`` payload of the given points of one bank."""
        if ids:
            await self._client.set_payload(
                self.collection, {"state": state}, points=_ids_of_bank(bank_id, ids), wait=True
            )

    async def delete(self, bank_id: str, ids: Sequence[str]) -> None:
        """Remove points of one bank by id (ids of other banks are left alone)."""
        if ids:
            selector = models.FilterSelector(filter=_ids_of_bank(bank_id, ids))
            await self._client.delete(self.collection, points_selector=selector, wait=True)

    async def delete_bank(self, bank_id: str) -> None:
        """Remove every point of a bank."""
        selector = models.FilterSelector(filter=_bank_filter(bank_id))
        await self._client.delete(self.collection, points_selector=selector, wait=True)

    # --- reads ----------------------------------------------------------------------------

    async def search(
        self, vector: Sequence[float], where: VectorFilter, limit: int
    ) -> list[VectorHit]:
        """Nearest neighbours by cosine similarity within the filter, best first."""
        found = await self.search_many([vector], where, limit)
        return found[0]

    async def search_many(
        self,
        vectors: QueryVectors,
        where: VectorFilter,
        limit: int,
        min_score: float | None = None,
    ) -> list[list[VectorHit]]:
        """One search per vector, sent as one batch request."""
        plan = filter_plan(where)
        if plan is None or limit <= 0 or len(vectors) == 0:
            return [[] for _ in vectors]
        queries = np.asarray(vectors, dtype=np.float32)
        if queries.ndim != 2 or queries.shape[1] != self.dim:
            raise ValueError(f"query vectors have shape {queries.shape}, expected (n, {self.dim})")
        query_filter = models.Filter(must=[_condition(c) for c in plan])
        params = (
            None
            if self._hnsw_ef is None
            else models.SearchParams(hnsw_ef=max(self._hnsw_ef, limit))
        )
        responses = await self._client.query_batch_points(
            self.collection,
            requests=[
                models.QueryRequest(
                    query=query.tolist(),
                    filter=query_filter,
                    limit=limit,
                    score_threshold=min_score,
                    params=params,
                    with_payload=False,
                    with_vector=False,
                )
                for query in queries
            ],
        )
        return [
            [VectorHit(str(point.id), float(point.score)) for point in response.points]
            for response in responses
        ]

    async def vectors(self, bank_id: str, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The stored vectors of the given points of one bank, by id."""
        if not ids:
            return {}
        records = await self._client.retrieve(
            self.collection,
            ids=[canonical_id(i) for i in ids],
            with_payload=["bank_id"],
            with_vectors=True,
        )
        found: dict[str, npt.NDArray[np.float32]] = {}
        for record in records:
            vector: object = record.vector
            if isinstance(vector, dict):  # the one unnamed vector, keyed by its (empty) name
                vector = next(iter(vector.values()), None)
            if (record.payload or {}).get("bank_id") == bank_id and isinstance(vector, list):
                found[str(record.id)] = np.asarray(vector, dtype=np.float32)
        return found

    async def ids(self, bank_id: str) -> set[str]:
        """Return every point id of a bank."""
        found: set[str] = set()
        offset: models.ExtendedPointId | None = None
        while True:
            records, next_offset = await self._client.scroll(
                self.collection,
                scroll_filter=_bank_filter(bank_id),
                limit=SCROLL_PAGE,
                offset=offset,
                with_payload=False,
                with_vectors=False,
            )
            found.update(str(record.id) for record in records)
            if next_offset is None:
                return found
            offset = _point_id(next_offset)

    async def count(self, bank_id: str) -> int:
        """Return how many points a bank has."""
        result = await self._client.count(
            self.collection, count_filter=_bank_filter(bank_id), exact=True
        )
        return result.count


def _vector_size(vectors: models.VectorParams | dict[str, models.VectorParams] | None) -> int:
    if isinstance(vectors, models.VectorParams):
        return vectors.size
    if vectors and "" in vectors:
        return vectors[""].size
    raise Unavailable("the Qdrant collection has no unnamed dense vector")


def _point_id(offset: object) -> models.ExtendedPointId:
    """Narrow a scroll offset (REST gives int or str; gRPC never reaches here) to a point id."""
    if isinstance(offset, int | str):
        return offset
    return str(offset)


def _payload_indexes() -> dict[str, models.PayloadSchemaParams]:
    """Return the payload index of every filtered field (see ``qdrant_edge._payload_indexes``)."""
    indexes: dict[str, models.PayloadSchemaParams] = {
        field: models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, enable_hnsw=False)
        for field in INDEXED_KEYWORDS
    }
    indexes["bank_id"] = models.KeywordIndexParams(
        type=models.KeywordIndexType.KEYWORD, is_tenant=True
    )
    for field in INDEXED_FLOATS:
        indexes[field] = models.FloatIndexParams(
            type=models.FloatIndexType.FLOAT, enable_hnsw=False
        )
    return indexes


def _bank_filter(bank_id: str) -> models.Filter:
    return models.Filter(must=[_condition(bank_condition(bank_id))])


def _ids_of_bank(bank_id: str, ids: Sequence[str]) -> models.Filter:
    point_ids: list[models.ExtendedPointId] = [canonical_id(point_id) for point_id in ids]
    return models.Filter(
        must=[models.HasIdCondition(has_id=point_ids), _condition(bank_condition(bank_id))]
    )


def _condition(condition: Condition) -> models.Condition:
    """Translate one node of the filter plan into qdrant-client models."""
    match condition:
        case Match(key, value):
            return models.FieldCondition(key=key, match=models.MatchValue(value=value))
        case MatchAny(key, values):
            return models.FieldCondition(key=key, match=models.MatchAny(any=list(values)))
        case Range(key, gte, lte):
            return models.FieldCondition(key=key, range=models.Range(gte=gte, lte=lte))
        case IsEmpty(key):
            return models.IsEmptyCondition(is_empty=models.PayloadField(key=key))
        case CountAtMost(key, n):
            return models.FieldCondition(key=key, values_count=models.ValuesCount(lte=n))
        case AnyOf(conditions):
            return models.Filter(should=[_condition(c) for c in conditions])
        case AllOf(conditions):
            return models.Filter(must=[_condition(c) for c in conditions])
    raise TypeError(f"unknown filter condition {condition!r}")
