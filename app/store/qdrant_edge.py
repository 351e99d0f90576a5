"""The embedded vector store: the Qdrant engine in-process via ``qdrant-edge-py``.

One shard holds every bank (the payload's ``bank_id`` separates them), persisted under
``<data_dir>/qdrant/<collection>``. It is a library, not a server: the shard's write-ahead log
is locked by the process that opens it, so exactly one process may own the directory (a second
one gets :class:`app.errors.Unavailable`); several workers need a Qdrant server instead.

Measured facts that shape this adapter (qdrant-edge-py 0.9, two cores):

* ``EdgeShard`` calls hold the GIL for their whole duration. ``optimize()`` (the HNSW build)
  takes ~0.5-1 ms per point, so running it in a background thread would freeze the whole
  process, event loop included, for the build (a ticking thread got no turn for 125 s while
  100k points were indexed). It is therefore never run behind the
  caller's back while serving: :meth:`EdgeVectorStore.open` runs it when enough points are
  waiting for an index (a start-up cost, before any request), and :meth:`EdgeVectorStore.optimize`
  lets an operator run it on purpose. Unindexed points are still found: Qdrant searches
  unindexed segments exhaustively, restricted to the bank through the tenant payload index, so
  the cost grows with the bank's size, not the shard's.
* Writes are appended to the write-ahead log before ``update`` returns: a process killed without
  ``close`` (even SIGKILL) loses no acknowledged write; the next ``load`` replays the log.
  ``flush()`` persists the segments themselves (and so survives an OS crash or power loss too)
  and lets the log be truncated; it runs when the retain pipeline asks (after each retain; ~10 ms
  for a small batch), every ``flush_every_points`` written points (replaying 50k logged points
  takes ~1.4 s at start), and on ``close``. It is skipped when nothing was written since.
* Searches with a ``min_score`` filtered by bank, state and fact type only (retain's semantic
  links, consolidation's candidates) are answered from an in-memory copy of the bank's vectors
  (``exact_vectors``), loaded at the bank's first such search and kept current by every write
  made here: a matrix product that releases the GIL, where the engine's exhaustive scan of an
  unindexed bank holds it for ~3 ms a query at 50k points. ``exact_search_points`` caps the
  points kept (least recently searched banks go first); a bank over the cap goes to the engine.
  Recall's queries (no threshold, one at a time) keep the engine and its HNSW index, which
  answers one query faster than a scan of every vector.
* The HNSW layout is Qdrant's multi-tenant recipe: no global graph (``m=0``), one graph per bank
  (``payload_m=16`` on the ``is_tenant`` ``bank_id`` index), built only for banks whose vectors
  outgrow ``full_scan_threshold`` (10 MB, about 6,500 384-d points); smaller banks are always
  searched exactly. Every search is filtered by bank, so a global graph would only cost time.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import numpy as np
import numpy.typing as npt
import qdrant_edge as qe

from app.config import Settings
from app.errors import Unavailable
from app.store.embeddings import l2_normalise
from app.store.exact_vectors import BankMatrices, BankMatrix
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

T = TypeVar("T")
Vector = npt.NDArray[np.float32]

# Points per engine call: big enough to amortise the call, small enough that a search queued
# behind a large upsert waits for one batch (a few ms), not for the whole upsert.
WRITE_BATCH = 1_000
SCROLL_PAGE = 10_000
HNSW_M_PER_BANK = 16
HNSW_EF_CONSTRUCT = 100
FULL_SCAN_THRESHOLD_KB = 10_000
# Candidates kept while walking a bank's HNSW graph. Qdrant's default (ef_construct) found 71% of
# the exact top 20 on random 384-d vectors under a fact-type filter; 256 found 89% for ~1 ms
# more. Unindexed segments are searched exactly whatever this says.
HNSW_EF_SEARCH = 256


class EdgeStats(msgspec.Struct, frozen=True):
    """What the shard reports about itself."""

    points: int
    indexed_points: int
    segments: int

    @property
    def unindexed(self) -> int:
        """Points outside an indexed segment, searched exhaustively.

        Mostly the points written since the last optimize; a segment smaller than Qdrant's
        indexing threshold (10 MB of vectors) stays unindexed even after one, by design.
        """
        return max(self.points - self.indexed_points, 0)


class EdgeVectorStore:
    """:class:`app.store.vectors.VectorStore` over an in-process Qdrant Edge shard."""

    def __init__(
        self,
        path: Path,
        *,
        dim: int,
        optimize_on_open_min_points: int | None = 20_000,
        flush_every_points: int = 50_000,
        exact_search_points: int = 250_000,
    ) -> None:
        """Describe the store; nothing is read or written until :meth:`open`.

        ``optimize_on_open_min_points``: build the HNSW index at open when at least that many
        points wait for it (None: never at open). ``flush_every_points``: flush on its own after
        that many written points, besides the explicit :meth:`flush` calls.
        ``exact_search_points``: points kept in memory for thresholded searches (0: none, every
        search goes to the engine).
        """
        self.path = Path(path)
        self.dim = dim
        self.optimize_on_open_min_points = optimize_on_open_min_points
        self.flush_every_points = flush_every_points
        self._shard: qe.EdgeShard | None = None
        # One engine call at a time: the binding serialises on the GIL anyway, and the lock
        # also orders calls against close() so that none runs on a released shard.
        self._lock = threading.Lock()
        self._unflushed = 0
        # Read and written only under the lock, like the shard they mirror.
        self._matrices = BankMatrices(exact_search_points)

    @classmethod
    def from_settings(cls, settings: Settings) -> EdgeVectorStore:
        """Build the store the settings describe (no I/O)."""
        return cls(
            settings.data_path / "qdrant" / settings.qdrant_collection,
            dim=settings.embedding_dim,
            exact_search_points=settings.exact_search_points,
        )

    # --- lifecycle ------------------------------------------------------------------------

    async def open(self) -> None:
        """Create or load the shard and its payload indexes (idempotent).

        A freshly opened shard with at least ``optimize_on_open_min_points`` unindexed points is
        optimized here, before the caller serves anything (see the module docstring).
        """
        if not await asyncio.to_thread(self._open_sync):
            return
        stats = await self.stats()
        threshold = self.optimize_on_open_min_points
        if threshold is not None and stats.unindexed >= threshold:
            log.info("indexing %d vectors before serving", stats.unindexed)
            started = time.perf_counter()
            try:
                await self.optimize()
            except Exception:  # searches stay correct (exhaustive) without the index
                log.exception("indexing the Qdrant Edge shard failed; serving unindexed")
            else:
                log.info("indexed in %.1f s", time.perf_counter() - started)

    def _open_sync(self) -> bool:
        """Open the shard unless it is open; return True if this call opened it."""
        with self._lock:
            if self._shard is not None:
                return False
            config = self._config()
            try:
                if (self.path / "edge_config.json").exists():
                    shard = qe.EdgeShard.load(str(self.path), config)
                else:
                    self.path.mkdir(parents=True, exist_ok=True)
                    shard = qe.EdgeShard.create(str(self.path), config)
            except Exception as exc:  # the binding raises bare Exception with a message
                raise Unavailable(_open_error(self.path, exc)) from exc
            try:
                existing = set(shard.info().payload_schema)
                for field, schema in _payload_indexes().items():
                    if field not in existing:
                        shard.update(qe.UpdateOperation.create_field_index(field, schema))
            except Exception:
                shard.close()  # release the directory lock: a retry must be able to open it
                raise
            self._shard = shard
            return True

    def _config(self) -> qe.EdgeConfig:
        return qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=self.dim, distance=qe.Distance.Cosine),
            hnsw_config=qe.HnswIndexConfig(
                m=0,
                ef_construct=HNSW_EF_CONSTRUCT,
                full_scan_threshold=FULL_SCAN_THRESHOLD_KB,
                payload_m=HNSW_M_PER_BANK,
            ),
        )

    async def close(self) -> None:
        """Flush and release the shard (and its directory lock); idempotent."""
        await asyncio.to_thread(self._close_sync)

    def _close_sync(self) -> None:
        with self._lock:
            shard, self._shard = self._shard, None
            if shard is None:
                return
            try:
                shard.flush()
            finally:
                shard.close()
                self._unflushed = 0
                self._matrices.clear()

    async def healthy(self) -> bool:
        """Return True when the shard is open and answers a count."""
        try:
            await self._run(lambda shard: shard.count(qe.CountRequest(exact=False)))
        except Unavailable:  # not open (yet, or any more): nothing to report
            return False
        except Exception:  # any failure means "not usable now" to the readiness probe
            log.exception("Qdrant Edge health check failed")
            return False
        return True

    async def flush(self) -> None:
        """Persist the segments (writes are already in the write-ahead log)."""
        await self._run(self._flush_locked)

    def _flush_locked(self, shard: qe.EdgeShard) -> None:
        if self._unflushed:
            shard.flush()
            self._unflushed = 0

    async def optimize(self) -> bool:
        """Build the HNSW index over the points written since the last optimize.

        Blocks the whole process while it runs (the engine holds the GIL): call it at start-up
        or from maintenance, never on the request path. Returns True if anything changed.
        """
        return await self._run(lambda shard: shard.optimize())

    async def stats(self) -> EdgeStats:
        """Report points, indexed points and segments of the shard."""

        def read(shard: qe.EdgeShard) -> EdgeStats:
            info = shard.info()
            return EdgeStats(info.points_count, info.indexed_vectors_count, info.segments_count)

        return await self._run(read)

    # --- writes ---------------------------------------------------------------------------

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points, in engine calls of at most ``WRITE_BATCH`` points.

        Every id and vector is checked before the first write, so a bad point fails the whole
        call instead of leaving part of it written.
        """
        ids = [canonical_id(point.id) for point in points]
        vectors = [self._checked_vector(point) for point in points]
        for start in range(0, len(points), WRITE_BATCH):
            stop = start + WRITE_BATCH
            batch = list(zip(ids[start:stop], vectors[start:stop], points[start:stop], strict=True))

            # Built in the worker thread: converting a point for the binding costs ~30 µs
            # (mostly the payload), which would otherwise stall the event loop.
            def build(batch: list[tuple[str, Vector, VectorPoint]] = batch) -> qe.UpdateOperation:
                return qe.UpdateOperation.upsert_points(
                    [qe.Point(i, v.tolist(), payload_dict(p.payload)) for i, v, p in batch]
                )

            def mirror(batch: list[tuple[str, Vector, VectorPoint]] = batch) -> None:
                by_bank: dict[str, list[tuple[str, Vector, VectorPoint]]] = {}
                for entry in batch:
                    by_bank.setdefault(entry[2].payload.bank_id, []).append(entry)
                for bank_id, entries in by_bank.items():
                    self._matrices.put(
                        bank_id,
                        [i for i, _, _ in entries],
                        np.stack([v for _, v, _ in entries]),
                        [p.payload.state for _, _, p in entries],
                        [p.payload.fact_type for _, _, p in entries],
                    )

            await self._write(build, len(batch), mirror)

    def _checked_vector(self, point: VectorPoint) -> Vector:
        vector = np.asarray(point.vector, dtype=np.float32)
        if vector.shape != (self.dim,):
            raise ValueError(
                f"vector of point {point.id} has shape {vector.shape}, expected ({self.dim},)"
            )
        return vector

    async def set_state(self, bank_id: str, ids: Sequence[str], state: MemoryState) -> None:
        """Change the ``state`` payload of the given points of one bank."""
        if ids:
            where = _ids_of_bank(bank_id, ids)
            await self._write(
                lambda: qe.UpdateOperation.set_payload_by_filter(where, {"state": state}),
                len(ids),
                lambda: self._matrices.set_state(bank_id, [canonical_id(i) for i in ids], state),
            )

    async def delete(self, bank_id: str, ids: Sequence[str]) -> None:
        """Remove points of one bank by id (ids of other banks are left alone)."""
        if ids:
            where = _ids_of_bank(bank_id, ids)
            await self._write(
                lambda: qe.UpdateOperation.delete_points_by_filter(where),
                len(ids),
                lambda: self._matrices.remove(bank_id, [canonical_id(i) for i in ids]),
            )

    async def delete_bank(self, bank_id: str) -> None:
        """Remove every point of a bank."""
        where = _bank_filter(bank_id)
        await self._write(
            lambda: qe.UpdateOperation.delete_points_by_filter(where),
            1,
            lambda: self._matrices.drop(bank_id),
        )

    async def _write(
        self,
        operation: Callable[[], qe.UpdateOperation],
        points: int,
        mirror: Callable[[], None] = lambda: None,
    ) -> None:
        """Apply one update (built in the worker thread) and flush every ``flush_every_points``.

        ``mirror`` makes the same change to the banks kept in memory, under the same lock,
        once the engine has taken it.
        """

        def apply(shard: qe.EdgeShard) -> None:
            shard.update(operation())
            try:
                mirror()
            except Exception:  # the copies only cache the shard: reload them, never trust them
                log.exception("updating the in-memory vectors failed; they will be reloaded")
                self._matrices.clear()
            self._unflushed += points
            if self._unflushed >= self.flush_every_points:
                self._flush_locked(shard)

        await self._run(apply)

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
        """One search per vector: from the bank kept in memory, else in one engine call."""
        plan = filter_plan(where)
        if plan is None or limit <= 0 or len(vectors) == 0:
            return [[] for _ in vectors]
        queries = np.asarray(vectors, dtype=np.float32)
        if queries.ndim != 2 or queries.shape[1] != self.dim:
            raise ValueError(f"query vectors have shape {queries.shape}, expected (n, {self.dim})")
        if min_score is not None and _exactly_answerable(where):
            threshold = min_score

            def exact(shard: qe.EdgeShard) -> list[list[VectorHit]] | None:
                matrix = self._kept_matrix(shard, where.bank_id)
                if matrix is None:
                    return None
                return matrix.search(queries, where.states, limit, threshold, where.fact_types)

            found = await self._run(exact)
            if found is not None:
                return found
        engine_filter = qe.Filter(must=[_condition(c) for c in plan])
        requests = [
            qe.QueryRequest(
                query=qe.Query.Nearest(query.tolist()),
                filter=engine_filter,
                limit=limit,
                score_threshold=min_score,
                params=qe.SearchParams(hnsw_ef=max(HNSW_EF_SEARCH, limit)),
                with_payload=False,
                with_vector=False,
            )
            for query in queries
        ]
        batch = qe.QueryBatchRequest(requests)
        results = await self._run(lambda shard: shard.query_batch(batch))
        return [[VectorHit(str(p.id), float(p.score)) for p in points] for points in results]

    def _kept_matrix(self, shard: qe.EdgeShard, bank_id: str) -> BankMatrix | None:
        """The bank's in-memory copy, loaded from the shard at its first search (under the lock).

        None when the bank is too big to keep, or exact search is off.
        """
        matrix = self._matrices.get(bank_id)
        if matrix is not None:
            return matrix
        if not self._matrices.may_keep(bank_id, _count_bank(shard, bank_id)):
            return None
        started = time.perf_counter()
        matrix = BankMatrix(self.dim)
        pages = _scroll_bank(
            shard, bank_id, payload=qe.PayloadSelector.Include(["state", "fact_type"])
        )
        for records in pages:
            if records:
                matrix.put(
                    [str(r.id) for r in records],
                    np.asarray([_vector_of(r) for r in records], dtype=np.float32),
                    [(r.payload or {}).get("state", "valid") for r in records],
                    [str((r.payload or {}).get("fact_type", "")) for r in records],
                )
        self._matrices.keep(bank_id, matrix)
        log.info(
            "bank %s: %d vectors loaded for exact search in %.1f s",
            bank_id,
            len(matrix),
            time.perf_counter() - started,
        )
        return self._matrices.get(bank_id)

    async def vectors(self, bank_id: str, ids: Sequence[str]) -> dict[str, Vector]:
        """The stored vectors of the given points of one bank, by id (unit length).

        Read from the bank's in-memory copy when it is kept, else from the shard.
        """
        if not ids:
            return {}
        wanted = [canonical_id(i) for i in ids]

        def read(shard: qe.EdgeShard) -> dict[str, Vector]:
            matrix = self._matrices.get(bank_id)
            if matrix is not None:
                kept = {i: matrix.vector(i) for i in wanted}
                return {i: v for i, v in kept.items() if v is not None}
            records = shard.retrieve(
                list(dict.fromkeys(wanted)),
                with_payload=qe.PayloadSelector.Include(["bank_id"]),
                with_vector=True,
            )
            return {
                str(r.id): l2_normalise(np.asarray([_vector_of(r)], dtype=np.float32))[0]
                for r in records
                if (r.payload or {}).get("bank_id") == bank_id
            }

        return await self._run(read)

    async def ids(self, bank_id: str) -> set[str]:
        """Return every point id of a bank."""

        def scroll_all(shard: qe.EdgeShard) -> set[str]:
            pages = _scroll_bank(shard, bank_id, payload=False, vectors=False)
            return {str(record.id) for records in pages for record in records}

        # One locked call: pages of one scroll never interleave with writes.
        return await self._run(scroll_all)

    async def count(self, bank_id: str) -> int:
        """Return how many points a bank has."""
        return await self._run(lambda shard: _count_bank(shard, bank_id))

    # --- plumbing -------------------------------------------------------------------------

    async def _run(self, call: Callable[[qe.EdgeShard], T]) -> T:
        """Run one engine call in a worker thread, under the lock, on the open shard."""
        return await asyncio.to_thread(self._locked, call)

    def _locked(self, call: Callable[[qe.EdgeShard], T]) -> T:
        with self._lock:
            if self._shard is None:
                raise Unavailable(f"the Qdrant Edge shard at {self.path} is not open")
            return call(self._shard)


def _bank_filter(bank_id: str) -> qe.Filter:
    return qe.Filter(must=[_condition(bank_condition(bank_id))])


def _count_bank(shard: qe.EdgeShard, bank_id: str) -> int:
    return shard.count(qe.CountRequest(exact=True, filter=_bank_filter(bank_id)))


def _scroll_bank(
    shard: qe.EdgeShard,
    bank_id: str,
    *,
    payload: bool | qe.PayloadSelector,
    vectors: bool = True,
) -> Iterator[list[qe.Record]]:
    """Every point of a bank, a page at a time (the caller holds the lock throughout)."""
    where = _bank_filter(bank_id)
    offset: Any = None
    while True:
        records, offset = shard.scroll(
            qe.ScrollRequest(
                offset=offset,
                limit=SCROLL_PAGE,
                filter=where,
                with_payload=payload,
                with_vector=vectors,
            )
        )
        yield records
        if offset is None:
            return


def _exactly_answerable(where: VectorFilter) -> bool:
    """True for a filter the in-memory copy can answer (it knows each point's state and type)."""
    return where == VectorFilter(
        bank_id=where.bank_id, states=where.states, fact_types=where.fact_types
    )


def _vector_of(record: qe.Record) -> Any:
    # The one unnamed vector; the binding may hand it back keyed by its (empty) name.
    vector = record.vector
    return next(iter(vector.values())) if isinstance(vector, dict) else vector


def _payload_indexes() -> dict[str, qe.KeywordIndexParams | qe.FloatIndexParams]:
    """Return the payload index of every filtered field.

    ``bank_id`` is the tenant key: points are grouped by bank on disk and get one HNSW graph per
    bank. The other fields only narrow searches; graphs per fact type or tag would cost build
    time for nothing, hence ``enable_hnsw=False``.
    """
    indexes: dict[str, qe.KeywordIndexParams | qe.FloatIndexParams] = {
        field: qe.KeywordIndexParams(enable_hnsw=False) for field in INDEXED_KEYWORDS
    }
    indexes["bank_id"] = qe.KeywordIndexParams(is_tenant=True)
    indexes.update({field: qe.FloatIndexParams(enable_hnsw=False) for field in INDEXED_FLOATS})
    return indexes


def _ids_of_bank(bank_id: str, ids: Sequence[str]) -> qe.Filter:
    point_ids: set[qe.PointId] = {canonical_id(point_id) for point_id in ids}
    return qe.Filter(must=[qe.HasIdCondition(point_ids), _condition(bank_condition(bank_id))])


def _condition(condition: Condition) -> qe.FieldCondition | qe.IsEmptyCondition | qe.Filter:
    """Translate one node of the filter plan into the engine's filter classes."""
    match condition:
        case Match(key, value):
            return qe.FieldCondition(key, match=qe.MatchValue(value))
        case MatchAny(key, values):
            return qe.FieldCondition(key, match=qe.MatchAny(list(values)))
        case Range(key, gte, lte):
            return qe.FieldCondition(key, range=qe.RangeFloat(gte=gte, lte=lte))
        case IsEmpty(key):
            return qe.IsEmptyCondition(key)
        case CountAtMost(key, n):
            return qe.FieldCondition(key, values_count=qe.ValuesCount(lte=n))
        case AnyOf(conditions):
            return qe.Filter(should=[_condition(c) for c in conditions])
        case AllOf(conditions):
            return qe.Filter(must=[_condition(c) for c in conditions])
    raise TypeError(f"unknown filter condition {condition!r}")


def _open_error(path: Path, exc: Exception) -> str:
    message = str(exc)
    if "WouldBlock" in message:
        return (
            f"the Qdrant Edge shard at {path} is in use by another process: the embedded "
            "store allows one process (run one worker, or set MNEMO_QDRANT_URL to use a "
            "Qdrant server)"
        )
    if "ncompatible" in message:
        return (
            f"the Qdrant Edge shard at {path} was built for other vectors ({message}); "
            "choose another MNEMO_QDRANT_COLLECTION or MNEMO_DATA_DIR after changing the model"
        )
    return f"cannot open the Qdrant Edge shard at {path}: {message}"
