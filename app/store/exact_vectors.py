"""Exact in-memory search over banks' vectors: one float32 matrix, a state and a type per point.

The embedded store (``qdrant_edge``) answers batched searches with a score threshold that
filter by bank, state and fact type only (retain's semantic links, consolidation's candidates)
from here. Qdrant Edge scans a bank's
unindexed points holding the GIL, 2.9 ms a query at 50k points, and so stalls the whole
service; a matrix product releases the GIL and, with the threshold applied before any
sorting, costs a fraction of that (decision 0008).

Pure numpy, no I/O and no locking: the owner feeds every write it makes to the engine through
here and serialises the calls.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import get_args

import numpy as np
import numpy.typing as npt

from app.store.embeddings import l2_normalise
from app.store.vectors import MemoryState, VectorHit

Matrix = npt.NDArray[np.float32]

_STATE_CODES: dict[str, int] = {state: code for code, state in enumerate(get_args(MemoryState))}


class BankMatrix:
    """One bank's points: ids, unit vectors, states and fact types, searched exactly by cosine."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._vectors: Matrix = np.zeros((0, dim), dtype=np.float32)
        self._states = np.zeros(0, dtype=np.int8)
        self._types = np.zeros(0, dtype=np.int8)
        # Fact types are few and open-ended: each gets a code when first seen.
        self._type_codes: dict[str, int] = {}
        self._ids: list[str] = []
        self._row_of: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, point_id: object) -> bool:
        return point_id in self._row_of

    def put(
        self,
        ids: Sequence[str],
        vectors: Matrix,
        states: Sequence[MemoryState],
        fact_types: Sequence[str] | None = None,
    ) -> None:
        """Insert points, or replace those already here (for a repeated id the last one wins)."""
        # Cosine similarity, as the engine computes it: both sides normalised, then a dot product.
        unit = l2_normalise(np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim))
        types = fact_types if fact_types is not None else [""] * len(ids)
        for point_id, vector, state, fact_type in zip(ids, unit, states, types, strict=True):
            row = self._row_of.get(point_id)
            if row is None:
                row = len(self._ids)
                self._reserve(row + 1)
                self._ids.append(point_id)
                self._row_of[point_id] = row
            self._vectors[row] = vector
            self._states[row] = _STATE_CODES[state]
            self._types[row] = self._type_code(fact_type)

    def _type_code(self, fact_type: str) -> int:
        code = self._type_codes.get(fact_type)
        if code is None:
            code = self._type_codes[fact_type] = len(self._type_codes)
        return code

    def vector(self, point_id: str) -> Matrix | None:
        """The unit vector of one point (a copy), or None when it is not here."""
        row = self._row_of.get(point_id)
        return None if row is None else self._vectors[row].copy()

    def set_state(self, ids: Iterable[str], state: MemoryState) -> None:
        """Change the state of the given points (ids not here are ignored)."""
        rows = [self._row_of[i] for i in ids if i in self._row_of]
        self._states[rows] = _STATE_CODES[state]

    def remove(self, ids: Iterable[str]) -> None:
        """Remove the given points (ids not here are ignored); the last row fills each gap."""
        for point_id in ids:
            row = self._row_of.pop(point_id, None)
            if row is None:
                continue
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._ids[row] = moved
                self._row_of[moved] = row
                self._vectors[row] = self._vectors[last]
                self._states[row] = self._states[last]
                self._types[row] = self._types[last]
            self._ids.pop()

    def search(
        self,
        queries: Matrix,
        states: Sequence[MemoryState],
        limit: int,
        min_score: float,
        fact_types: Sequence[str] | None = None,
    ) -> list[list[VectorHit]]:
        """Per query, the ``limit`` best points in ``states`` scoring ``min_score`` or more.

        ``fact_types`` keeps points of those types only (None: every type). Hits come best
        first. The threshold is what makes this cheap: top-k selection sorts the few points
        above it, not every point of the bank.
        """
        count = len(self._ids)
        if count == 0 or limit <= 0 or len(queries) == 0:
            return [[] for _ in queries]
        scores = l2_normalise(np.asarray(queries, dtype=np.float32)) @ self._vectors[:count].T
        allowed = np.isin(self._states[:count], [_STATE_CODES[s] for s in states])
        if fact_types is not None:
            codes = [self._type_codes[t] for t in fact_types if t in self._type_codes]
            allowed &= np.isin(self._types[:count], codes)
        if not allowed.all():
            scores[:, ~allowed] = -np.inf
        query_of, row_of = np.nonzero(scores >= min_score)
        found = scores[query_of, row_of]
        # Grouped by query, best first within each; ties by row for a stable answer.
        order = np.lexsort((row_of, -found, query_of))
        query_of, row_of, found = query_of[order], row_of[order], found[order]
        bounds = np.searchsorted(query_of, np.arange(len(scores) + 1))
        hits = []
        for start, stop in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            stop = min(stop, start + limit)
            hits.append(self._hits(row_of[start:stop], found[start:stop]))
        return hits

    def _hits(self, rows: npt.NDArray[np.intp], found: Matrix) -> list[VectorHit]:
        return [
            VectorHit(self._ids[row], score)
            for row, score in zip(rows.tolist(), found.tolist(), strict=True)
        ]

    def _reserve(self, rows: int) -> None:
        if rows <= len(self._vectors):
            return
        # Grow by a quarter: a bank's matrix is the bulk of the memory this costs.
        capacity = max(rows, len(self._vectors) + len(self._vectors) // 4, 1024)
        vectors = np.zeros((capacity, self.dim), dtype=np.float32)
        vectors[: len(self._ids)] = self._vectors[: len(self._ids)]
        states = np.zeros(capacity, dtype=np.int8)
        states[: len(self._ids)] = self._states[: len(self._ids)]
        types = np.zeros(capacity, dtype=np.int8)
        types[: len(self._ids)] = self._types[: len(self._ids)]
        self._vectors, self._states, self._types = vectors, states, types


class BankMatrices:
    """The banks kept in memory, at most ``max_points`` points in all.

    Adding a bank drops the least recently used ones until it fits; a bank that alone holds more
    than ``max_points`` is not kept (its searches go to the engine) and is remembered as such
    until it is deleted.
    """

    def __init__(self, max_points: int) -> None:
        self.max_points = max_points
        self._banks: OrderedDict[str, BankMatrix] = OrderedDict()
        self._too_big: set[str] = set()

    def get(self, bank_id: str) -> BankMatrix | None:
        """The bank's matrix if it is kept (and mark it used)."""
        matrix = self._banks.get(bank_id)
        if matrix is not None:
            self._banks.move_to_end(bank_id)
        return matrix

    def may_keep(self, bank_id: str, points: int) -> bool:
        """False when the bank is known to be (or is) too big to keep."""
        if self.max_points <= 0:
            return False
        if bank_id in self._too_big or points > self.max_points:
            self._too_big.add(bank_id)
            return False
        return True

    def keep(self, bank_id: str, matrix: BankMatrix) -> None:
        """Keep a freshly loaded bank (dropping others as needed, see the class docstring)."""
        if self.may_keep(bank_id, len(matrix)):
            self._banks[bank_id] = matrix
            self._fit(bank_id)

    def put(
        self,
        bank_id: str,
        ids: Sequence[str],
        vectors: Matrix,
        states: Sequence[MemoryState],
        fact_types: Sequence[str] | None = None,
    ) -> None:
        """Points written to ``bank_id``: each moves out of any other kept bank."""
        for other_id, other in self._banks.items():
            if other_id != bank_id:
                other.remove(ids)
        matrix = self._banks.get(bank_id)
        if matrix is not None:
            matrix.put(ids, vectors, states, fact_types)
            self._fit(bank_id)

    def set_state(self, bank_id: str, ids: Sequence[str], state: MemoryState) -> None:
        """The state of points of ``bank_id`` changed."""
        matrix = self._banks.get(bank_id)
        if matrix is not None:
            matrix.set_state(ids, state)

    def remove(self, bank_id: str, ids: Sequence[str]) -> None:
        """Points of ``bank_id`` were deleted."""
        matrix = self._banks.get(bank_id)
        if matrix is not None:
            matrix.remove(ids)

    def drop(self, bank_id: str) -> None:
        """The bank was deleted: forget it (and that it was too big)."""
        self._banks.pop(bank_id, None)
        self._too_big.discard(bank_id)

    def clear(self) -> None:
        """Forget every bank (the engine closed)."""
        self._banks.clear()
        self._too_big.clear()

    def _fit(self, bank_id: str) -> None:
        total = sum(len(m) for m in self._banks.values())
        for other_id in list(self._banks):
            if total <= self.max_points:
                return
            if other_id != bank_id:
                total -= len(self._banks.pop(other_id))
        if total > self.max_points:
            # Grown past the cap on its own: from now on the engine searches it.
            self._banks.pop(bank_id, None)
            self._too_big.add(bank_id)
