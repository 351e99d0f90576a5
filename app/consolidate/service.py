"""Consolidation of one bank, a batch at a time, and the API's consolidation requests.

A batch (:meth:`Consolidator.run_batch`):

1. reads the bank's next due facts, oldest first, with their stored vectors (no embedding);
2. finds their candidates: vector neighbours among the bank's facts and observations (one
   thresholded search for the batch, answered in memory by the embedded store), observations
   sharing their entities, and the observations those neighbours support, loaded with their
   sources;
3. decides for each fact in order (offline: ``app.consolidate.offline``, reading the claims of
   the close pairs only; with an LLM: ``app.consolidate.llm``), applying every decision to a
   :class:`~app.consolidate.invariants.Workset` so that a later fact sees what an earlier one did;
   a decision refused by the invariants, or a model that fails, fails that fact only;
4. writes everything in one transaction of the bank (``Graph.write``), after checking that the
   worker still holds the bank's lease and that nothing it read has changed (else it starts
   over); facts become ``done`` or ``failed`` (with a backoff) in the same write;
5. publishes the observations' vectors (:meth:`Consolidator.publish_vectors`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

from app.consolidate.claims import Claim, NamedEntity, read_claim
from app.consolidate.invariants import Refused, Workset
from app.consolidate.language import Tagger
from app.consolidate.llm import decide_with_llm
from app.consolidate.model import Candidates, Decision, EntityRef, FactView, ObservationView
from app.consolidate.offline import DEFAULT_OFFLINE, OfflinePolicy, decide_offline, may_restate
from app.consolidate.schemas import (
    BankObservationsCleared,
    ConsolidationQueued,
    ObservationsDeleted,
)
from app.domain.banks import BankConfig, BankDirectory
from app.domain.lifecycle import NewRevision, add_revisions, requeue_facts
from app.errors import InvalidInput, NotFound
from app.store.embeddings import Embedder
from app.store.graph import Graph, Tx, cypher_datetime
from app.store.llm import LLM_FAILURES, CallLog, LlmClient
from app.store.search_keys import bank_key, tag_tokens
from app.store.vectors import VectorFilter, VectorPayload, VectorPoint, VectorStore

log = logging.getLogger(__name__)
# Observations deleted per statement when a bank's are cleared (bounded transaction state).
_DELETE_CHUNK = 1000

Vector = npt.NDArray[np.float32]


class ConsolidationPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """How candidates are gathered and failures retried, with the reason for each number."""

    offline: OfflinePolicy = DEFAULT_OFFLINE
    # Vector neighbours per fact: restatements of one claim sit at the top; more only costs.
    neighbours: int = 12
    # An LLM sees weaker neighbours too (it judges relatedness itself); offline needs none
    # below its restatement threshold.
    llm_min_score: float = 0.55
    # Sources of a candidate observation a batch reads, the most recently mentioned first:
    # offline compares a new fact with the 8 most recent (OfflinePolicy.compared_sources), a
    # model is shown 3. Reading them all would make a batch's cost grow with the evidence.
    read_sources: int = 8
    # Observations sharing entities with a fact, besides its vector neighbours.
    entity_observations: int = 5
    # Entities named by more facts than this offer no candidates (a hub names everything).
    entity_fanout: int = 1_000
    # Failed facts are retried after base × 2^(attempts-1), at most cap.
    retry_base_s: float = 30.0
    retry_cap_s: float = 3_600.0


DEFAULT_POLICY = ConsolidationPolicy()


class BatchOutcome(msgspec.Struct, kw_only=True):
    """What one batch did."""

    facts: int = 0
    done: int = 0
    failed: int = 0
    created: int = 0
    updated: int = 0
    deleted: int = 0
    # The batch read something that changed before it wrote: nothing written, run it again.
    stale: bool = False
    errors: list[str] = msgspec.field(default_factory=list)
    # The facts consolidated and the observations created, updated or deleted: what a standing
    # answer built on them (a mental model) may have to be refreshed for.
    touched: set[str] = msgspec.field(default_factory=set)


class _Stale(Exception):
    """Something the batch read changed before its write."""


class LeaseLost(Exception):
    """Another worker holds the bank's lease now: this one must stop writing to the bank."""


class _Node(msgspec.Struct, kw_only=True):
    """A node as ``consolidate/nodes`` reads it (times in epoch milliseconds)."""

    id: str
    text: str
    fact_type: str
    tags: list[str] = msgspec.field(default_factory=list)
    occurred_start: int | None = None
    occurred_end: int | None = None
    mentioned_at: int | None = None
    edited_at: int | None = None
    updated_at: int | None = None
    entities: list[EntityRef] = msgspec.field(default_factory=list)
    observation_ids: list[str] = msgspec.field(default_factory=list)
    held: bool = False
    source_ids: list[str] = msgspec.field(default_factory=list)
    recent_source_ids: list[str] = msgspec.field(default_factory=list)

    @property
    def is_observation(self) -> bool:
        return self.fact_type == "observation"

    def fact(self, observation_ids: Sequence[str] | None = None) -> FactView:
        return FactView(
            id=self.id,
            text=self.text,
            fact_type=self.fact_type,
            tags=tuple(sorted(self.tags)),
            occurred_start=from_epoch_ms(self.occurred_start),
            occurred_end=from_epoch_ms(self.occurred_end),
            mentioned_at=from_epoch_ms(self.mentioned_at),
            entities=tuple(self.entities),
            observation_ids=tuple(
                self.observation_ids if observation_ids is None else observation_ids
            ),
            held=self.held,
        )


class _PendingVector(msgspec.Struct, kw_only=True):
    id: str
    text: str
    state: str
    tags: list[str] = msgspec.field(default_factory=list)
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    vector_current: bool | None = None
    same_text_source: str | None = None


class _Batch:
    """Everything one batch read: nodes by id, vectors by id, neighbours per due fact."""

    def __init__(self) -> None:
        self.nodes: dict[str, _Node] = {}
        self.vectors: dict[str, Vector] = {}
        self.neighbours: dict[str, list[tuple[str, float]]] = {}
        self.entity_observations: dict[str, list[str]] = {}
        # Observations of each fact as the batch leaves them (decisions change them).
        self.memberships: dict[str, set[str]] = {}
        self.claims: dict[str, Claim] = {}

    def observations_of(self, fact_id: str) -> set[str]:
        node = self.nodes.get(fact_id)
        base = set(node.observation_ids) if node is not None else set()
        return self.memberships.setdefault(fact_id, base)


class Consolidator:
    """Consolidates banks a batch at a time (the worker calls it; see the module docstring)."""

    def __init__(
        self,
        *,
        graph: Graph,
        vectors: VectorStore,
        embedder: Embedder,
        banks: BankDirectory,
        tagger: Tagger,
        llm: LlmClient | None = None,
        policy: ConsolidationPolicy = DEFAULT_POLICY,
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._embedder = embedder
        self._banks = banks
        self._tagger = tagger
        self._llm = llm
        self.policy = policy

    @property
    def uses_llm(self) -> bool:
        """Whether decisions come from an LLM (else offline)."""
        return self._llm is not None

    async def serves(self, bank_id: str) -> bool:
        """Whether this process's vector store holds the bank's vectors.

        Consolidation reads facts' stored vectors: a worker whose store does not hold a bank
        (another deployment's store over the same Neo4j, a bank that needs reconciling first)
        leaves it alone rather than fail its facts.
        """
        return await self._vectors.count(bank_id) > 0

    # -- one batch ----------------------------------------------------------------------------

    async def run_batch(self, bank_id: str, owner: str, limit: int) -> BatchOutcome:
        """Consolidate the bank's next ``limit`` due facts (see the module docstring)."""
        bank = await self._banks.config(bank_id)
        now = datetime.now(UTC)
        due = await self._graph.run(
            "consolidate/due_facts", {"bank_id": bank_id, "now": now, "limit": limit}
        )
        if not due:
            return BatchOutcome()
        attempts = {row["id"]: int(row["attempts"]) for row in due}
        batch = _Batch()
        await self._read(bank_id, list(attempts), batch)
        order = [i for i in attempts if i in batch.nodes and i in batch.vectors]
        failures: dict[str, str] = {
            i: "its vector is missing from the vector store (reconciliation restores it)"
            for i in attempts
            if i in batch.nodes and i not in batch.vectors
        }
        if not self.uses_llm:
            await self._read_claims(order, batch)
        workset = Workset()
        outcome = BatchOutcome(facts=len(attempts))
        done: list[str] = []
        for fact_id in order:
            candidates = self._candidates(fact_id, batch, workset)
            try:
                decision = await self._decide(bank, candidates, batch, outcome)
                workset.apply(decision, candidates, now, lambda: str(uuid.uuid4()))
            except (Refused, *LLM_FAILURES) as exc:
                failures[fact_id] = _describe(exc)
                continue
            self._note(decision, workset, batch)
            done.append(fact_id)
        try:
            await self._write(bank_id, owner, batch, workset, done, failures, attempts, now)
        except _Stale:
            return BatchOutcome(facts=len(attempts), stale=True)
        for revision in workset.revisions:
            if revision.kind == "create":
                outcome.created += 1
            elif revision.kind == "update":
                outcome.updated += 1
            elif revision.kind == "delete":
                outcome.deleted += 1
        outcome.done, outcome.failed = len(done), len(failures)
        outcome.errors = sorted(set(failures.values()))
        outcome.touched = set(done) | {r.memory_id for r in workset.revisions}
        return outcome

    async def fail_batch(self, bank_id: str, limit: int, error: str) -> int:
        """Mark the bank's next ``limit`` due facts failed (a batch that broke unexpectedly)."""
        now = datetime.now(UTC)
        due = await self._graph.run(
            "consolidate/due_facts", {"bank_id": bank_id, "now": now, "limit": limit}
        )
        failures = {row["id"]: error for row in due}
        attempts = {row["id"]: int(row["attempts"]) for row in due}

        async def work(tx: Tx) -> None:
            await self._mark_failed(tx, bank_id, failures, attempts, now)

        await self._graph.write(bank_id, work, background=True)
        return len(failures)

    async def _read(self, bank_id: str, due_ids: list[str], batch: _Batch) -> None:
        """Load the due facts, their vectors, their neighbours and every candidate's node."""
        await self._load_nodes(bank_id, due_ids, batch)
        due = [i for i in due_ids if i in batch.nodes]
        batch.vectors.update(await self._vectors.vectors(bank_id, due))
        queried = [i for i in due if i in batch.vectors]
        if queried:
            floor = self.policy.llm_min_score if self.uses_llm else self.policy.offline.threshold
            found = await self._vectors.search_many(
                np.stack([batch.vectors[i] for i in queried]),
                VectorFilter(bank_id=bank_id),
                self.policy.neighbours + 1,
                min_score=floor,
            )
            for fact_id, hits in zip(queried, found, strict=True):
                batch.neighbours[fact_id] = [(h.id, h.score) for h in hits if h.id != fact_id]
        if self.uses_llm:
            # Offline needs none: it joins a fact only to an observation whose recent sources
            # it restates (cosine at least the threshold), and those sources, or facts as
            # close, are its vector neighbours, whose observations are read below. A model
            # judges relatedness beyond wording, so it is shown observations about the same
            # entities too. Reading them walks every fact naming each entity (up to
            # entity_fanout), which grows with the bank.
            rows = await self._graph.run(
                "consolidate/entity_observations",
                {
                    "bank_id": bank_id,
                    "ids": due,
                    "per_fact": self.policy.entity_observations,
                    "fanout": self.policy.entity_fanout,
                },
            )
            batch.entity_observations = {r["id"]: list(r["observations"]) for r in rows}
        wanted = {h for hits in batch.neighbours.values() for h, _ in hits}
        wanted |= {o for found in batch.entity_observations.values() for o in found}
        # Neighbours' observations, then the observations' recent sources (two more hops at
        # most). Every source of a due fact's own observations: it was queued again because a
        # source went, and the text is worded again from those left.
        own = {o for i in due for o in batch.nodes[i].observation_ids}
        for _ in range(3):
            await self._load_nodes(bank_id, sorted(wanted - batch.nodes.keys()), batch)
            wanted = {o for n in batch.nodes.values() for o in n.observation_ids}
            for node_id, node in batch.nodes.items():
                wanted |= set(node.source_ids if node_id in own else node.recent_source_ids)
            if wanted <= batch.nodes.keys():
                break
        facts = [i for i, n in batch.nodes.items() if not n.is_observation]
        missing = [i for i in facts if i not in batch.vectors]
        batch.vectors.update(await self._vectors.vectors(bank_id, missing))

    async def _load_nodes(self, bank_id: str, ids: Sequence[str], batch: _Batch) -> None:
        if not ids:
            return
        rows = await self._graph.run(
            "consolidate/nodes",
            {"bank_id": bank_id, "ids": ids, "recent": self.policy.read_sources},
        )
        nodes = msgspec.convert(rows[0]["nodes"] if rows else [], list[_Node], strict=False)
        batch.nodes.update({n.id: n for n in nodes})

    async def _read_claims(self, due: Sequence[str], batch: _Batch) -> None:
        """Read the claims of the facts that a close neighbour might restate (offline only)."""
        policy = self.policy.offline
        needed: set[str] = set()
        for fact_id in due:
            fact = batch.nodes[fact_id].fact()
            for other_id in self._comparable(fact_id, batch):
                other = batch.nodes[other_id].fact()
                va, vb = batch.vectors.get(fact_id), batch.vectors.get(other_id)
                if (
                    va is not None
                    and vb is not None
                    and may_restate(fact, other, float(va @ vb), policy)
                ):
                    needed |= {fact_id, other_id}
        ids = sorted(needed)
        tokens = await self._tagger.tag([batch.nodes[i].text for i in ids])
        for node_id, tagged in zip(ids, tokens, strict=True):
            node = batch.nodes[node_id]
            batch.claims[node_id] = read_claim(
                node.text,
                tagged,
                [NamedEntity(e.name, e.mention or e.name) for e in node.entities],
                from_epoch_ms(node.mentioned_at),
            )

    def _comparable(self, fact_id: str, batch: _Batch) -> set[str]:
        """Facts a due fact may be compared with: its neighbours and its observations' sources."""
        ids = {h for h, _ in batch.neighbours.get(fact_id, [])}
        observations = {i for i in ids if i in batch.nodes and batch.nodes[i].is_observation}
        observations |= set(batch.entity_observations.get(fact_id, []))
        for i in list(ids):
            node = batch.nodes.get(i)
            if node is not None:
                observations |= set(node.observation_ids)
        observations |= set(batch.nodes[fact_id].observation_ids)
        for o in observations:
            node = batch.nodes.get(o)
            if node is not None:
                ids |= set(node.source_ids)
        return {i for i in ids if i in batch.nodes and not batch.nodes[i].is_observation} - {
            fact_id
        }

    # -- one decision ---------------------------------------------------------------------------

    def _candidates(self, fact_id: str, batch: _Batch, workset: Workset) -> Candidates:
        """The observations and facts a decision about ``fact_id`` may cite, as the batch stands."""
        fact_node = batch.nodes[fact_id]
        fact = fact_node.fact(sorted(batch.observations_of(fact_id)))
        neighbour_facts: list[FactView] = []
        observation_ids: list[str] = []
        for other_id, _ in batch.neighbours.get(fact_id, []):
            node = batch.nodes.get(other_id)
            if node is None:
                continue
            if node.is_observation:
                observation_ids.append(other_id)
            elif node.tags == fact_node.tags or sorted(node.tags) == sorted(fact_node.tags):
                neighbour_facts.append(node.fact(sorted(batch.observations_of(other_id))))
        observation_ids += batch.entity_observations.get(fact_id, [])
        for f in (fact, *neighbour_facts):
            observation_ids += sorted(batch.observations_of(f.id))
        observations = []
        for observation_id in dict.fromkeys(observation_ids):
            view = self._observation(observation_id, batch, workset)
            if view is not None and view.tags == fact.tags:
                observations.append(view)
        return Candidates(fact=fact, observations=tuple(observations), facts=tuple(neighbour_facts))

    def _observation(
        self, observation_id: str, batch: _Batch, workset: Workset
    ) -> ObservationView | None:
        state = workset.observations.get(observation_id)
        if state is not None:
            if state.deleted:
                return None
            view = workset.view(observation_id)
        else:
            node = batch.nodes.get(observation_id)
            if node is None or not node.is_observation:
                return None
            view = ObservationView(
                id=node.id,
                text=node.text,
                tags=tuple(sorted(node.tags)),
                occurred_start=from_epoch_ms(node.occurred_start),
                occurred_end=from_epoch_ms(node.occurred_end),
                mentioned_at=from_epoch_ms(node.mentioned_at),
                sources=tuple(
                    batch.nodes[s].fact(sorted(batch.observations_of(s)))
                    for s in node.source_ids
                    if s in batch.nodes
                ),
                unread_ids=tuple(s for s in node.source_ids if s not in batch.nodes),
            )
        return view

    async def _decide(
        self, bank: BankConfig, candidates: Candidates, batch: _Batch, outcome: BatchOutcome
    ) -> Decision:
        if self._llm is None:
            return decide_offline(candidates, batch.vectors, batch.claims, self.policy.offline)
        call = CallLog()
        try:
            return await decide_with_llm(self._llm, candidates, bank.observations_mission, call)
        except LLM_FAILURES as exc:
            raise _LlmFailed(self._llm.describe_failure(exc, call)) from exc

    def _note(self, decision: Decision, workset: Workset, batch: _Batch) -> None:
        """Record in the batch which facts now support which observations."""
        for state in workset.observations.values():
            for source_id in state.source_ids:
                members = batch.observations_of(source_id)
                if state.deleted:
                    members.discard(state.id)
                else:
                    members.add(state.id)
        del decision

    # -- the write ------------------------------------------------------------------------------

    async def _write(
        self,
        bank_id: str,
        owner: str,
        batch: _Batch,
        workset: Workset,
        done: Sequence[str],
        failures: Mapping[str, str],
        attempts: Mapping[str, int],
        now: datetime,
    ) -> None:
        """One transaction: lease, snapshot, observations, revisions, fact states."""
        written = [
            s for s in workset.observations.values() if not s.deleted and _changed(s, workset)
        ]
        deleted = [s for s in workset.observations.values() if s.deleted]
        relied = set(done) | {s for st in written for s in st.source_ids}
        relied |= {st.id for st in (*written, *deleted) if not st.new}
        expected = {i: batch.nodes[i] for i in relied if i in batch.nodes}

        async def work(tx: Tx) -> None:
            await check_lease(tx, bank_id, owner)
            await self._check_snapshot(tx, bank_id, expected)
            if written:
                await tx.run(
                    "consolidate/write_observations",
                    {
                        "bank_id": bank_id,
                        "bank_key": bank_key(bank_id),
                        "at": now,
                        "observations": [_row(s) for s in written],
                    },
                )
            for state in deleted:
                await tx.run(
                    "observations/retract",
                    {
                        "bank_id": bank_id,
                        "observation_ids": [state.id],
                        "reason": state.delete_reason,
                        "at": now,
                    },
                )
            if written:
                await tx.run(
                    "observations/refresh",
                    {"bank_id": bank_id, "observation_ids": [s.id for s in written]},
                )
            await add_revisions(
                tx,
                bank_id,
                [
                    NewRevision(
                        memory_id=r.memory_id,
                        at=now,
                        kind=r.kind,
                        reason=r.reason,
                        before=r.before,
                        after=r.after,
                    )
                    for r in workset.revisions
                ],
            )
            if done:
                await tx.run(
                    "consolidate/mark_done",
                    {"bank_id": bank_id, "memory_ids": list(done), "at": now},
                )
            await self._mark_failed(tx, bank_id, failures, attempts, now)

        await self._graph.write(bank_id, work, background=True)

    async def _check_snapshot(self, tx: Tx, bank_id: str, expected: Mapping[str, _Node]) -> None:
        if not expected:
            return
        rows = await tx.run("consolidate/snapshot", {"bank_id": bank_id, "ids": list(expected)})
        now = {r["id"]: r for r in (rows[0]["nodes"] if rows else [])}
        for node_id, node in expected.items():
            row = now.get(node_id)
            if row is None or row["state"] != "valid" or row["text"] != node.text:
                raise _Stale(node_id)
            if row["edited_at"] != node.edited_at or row["updated_at"] != node.updated_at:
                raise _Stale(node_id)

    async def _mark_failed(
        self,
        tx: Tx,
        bank_id: str,
        failures: Mapping[str, str],
        attempts: Mapping[str, int],
        now: datetime,
    ) -> None:
        if not failures:
            return
        await tx.run(
            "consolidate/mark_failed",
            {
                "bank_id": bank_id,
                "at": now,
                "failures": [
                    {
                        "id": fact_id,
                        "error": error[:500],
                        "retry_at": cypher_datetime(
                            now + retry_delay(attempts.get(fact_id, 0) + 1, self.policy)
                        ),
                    }
                    for fact_id, error in failures.items()
                ],
            },
        )

    # -- vectors --------------------------------------------------------------------------------

    async def publish_vectors(self, bank_id: str, *, page: int = 500) -> int:
        """Write the vectors (or states) of the bank's pending observations; returns how many.

        A valid observation's vector is its stored one when its text has not changed, else the
        vector of a source worded exactly like it, else its text embedded.
        """
        total = 0
        while True:
            rows = await self._graph.rows(
                "consolidate/pending_vectors", {"bank_id": bank_id, "limit": page}, _PendingVector
            )
            if not rows:
                return total
            valid = [r for r in rows if r.state == "valid"]
            invalid = [r for r in rows if r.state != "valid"]
            vectors = await self._vectors_for(bank_id, valid)
            if valid:
                await self._vectors.upsert(
                    [
                        VectorPoint(
                            id=r.id, vector=vectors[r.id].tolist(), payload=_payload(bank_id, r)
                        )
                        for r in valid
                    ]
                )
            if invalid:
                await self._vectors.set_state(bank_id, [r.id for r in invalid], "invalidated")
            await self._vectors.flush()
            cleared = await self._cleared(bank_id, rows)
            total += cleared
            if cleared == 0:
                return total

    async def _vectors_for(self, bank_id: str, rows: Sequence[_PendingVector]) -> dict[str, Vector]:
        own = [r.id for r in rows if r.vector_current]
        sources = [r.same_text_source for r in rows if r.same_text_source]
        stored = await self._vectors.vectors(bank_id, [*own, *sources]) if own or sources else {}
        found: dict[str, Vector] = {}
        for r in rows:
            if r.vector_current and r.id in stored:
                found[r.id] = stored[r.id]
            elif r.same_text_source and r.same_text_source in stored:
                found[r.id] = stored[r.same_text_source]
        missing = [r for r in rows if r.id not in found]
        if missing:
            embedded = await self._embedder.embed([r.text for r in missing])
            found.update({r.id: v for r, v in zip(missing, embedded, strict=True)})
        return found

    async def _cleared(self, bank_id: str, rows: Sequence[_PendingVector]) -> int:
        async def work(tx: Tx) -> int:
            result = await tx.run(
                "consolidate/vectors_written",
                {
                    "bank_id": bank_id,
                    "observations": [{"id": r.id, "text": r.text, "state": r.state} for r in rows],
                },
            )
            return int(result[0]["cleared"]) if result else 0

        # Not exclusive: it clears flags no other writer decides on, and only on observations
        # whose text and state are still the ones whose vectors were written (as retain's
        # publish does for its facts); a deadlock with a writer is retried.
        return await self._graph.write(bank_id, work, exclusive=False, background=True)


class _LlmFailed(Refused):
    """The model gave no usable answer (described for the fact's failure reason)."""


def _describe(exc: BaseException) -> str:
    if isinstance(exc, Refused):
        return f"decision refused: {exc.detail}" if not isinstance(exc, _LlmFailed) else exc.detail
    return f"{type(exc).__name__}: {exc}"


def _changed(state: Any, workset: Workset) -> bool:
    return state.new or any(r.memory_id == state.id for r in workset.revisions)


def _row(state: Any) -> dict[str, object]:
    return {
        "id": state.id,
        "text": state.text,
        "tags": list(state.tags),
        "tag_tokens": tag_tokens(state.tags),
        "occurred_start": cypher_datetime(state.occurred_start) if state.occurred_start else None,
        "occurred_end": cypher_datetime(state.occurred_end) if state.occurred_end else None,
        "mentioned_at": cypher_datetime(state.mentioned_at) if state.mentioned_at else None,
        "source_ids": list(state.source_ids),
    }


def _payload(bank_id: str, row: _PendingVector) -> VectorPayload:
    return VectorPayload(
        bank_id=bank_id,
        fact_type="observation",
        state="valid",
        tags=tuple(row.tags),
        occurred_start=row.occurred_start.timestamp() if row.occurred_start else None,
        occurred_end=row.occurred_end.timestamp() if row.occurred_end else None,
        mentioned_at=row.mentioned_at.timestamp() if row.mentioned_at else None,
    )


def from_epoch_ms(value: int | None) -> datetime | None:
    """A UTC datetime from epoch milliseconds (how the batch reads read times)."""
    return None if value is None else datetime.fromtimestamp(value / 1000.0, UTC)


def retry_delay(attempt: int, policy: ConsolidationPolicy = DEFAULT_POLICY) -> timedelta:
    """How long a fact waits after its ``attempt``-th failure: doubling, capped."""
    seconds = policy.retry_base_s * 2 ** max(attempt - 1, 0)
    return timedelta(seconds=min(seconds, policy.retry_cap_s))


async def check_lease(tx: Tx, bank_id: str, owner: str) -> None:
    """Raise :class:`LeaseLost` unless ``owner`` holds the bank's lease (inside a write)."""
    rows = await tx.run("consolidate/lease", {"bank_id": bank_id})
    if not rows or rows[0]["owner"] != owner:
        raise LeaseLost(f"the consolidation lease of bank {bank_id!r} is not held by {owner}")


class ConsolidationService:
    """What the API asks of consolidation: queue a run, clear a fact's observations."""

    def __init__(self, *, graph: Graph, vectors: VectorStore, banks: BankDirectory) -> None:
        self._graph = graph
        self._vectors = vectors
        self._banks = banks

    async def queue(self, bank_id: str) -> ConsolidationQueued:
        """Queue a consolidation run (or answer the queued one); failed facts are due now."""
        bank = await self._banks.config(bank_id)
        if not bank.enable_observations:
            raise InvalidInput(
                "observations are disabled for this bank: set enable_observations to true first",
                extra={"field": "enable_observations"},
            )
        operation_id = str(uuid.uuid4())

        async def work(tx: Tx) -> dict[str, Any]:
            rows = await tx.run(
                "consolidate/open_operation",
                {"bank_id": bank_id, "id": operation_id, "now": datetime.now(UTC)},
            )
            return rows[0]

        row = await self._graph.write(bank_id, work)
        return ConsolidationQueued(
            operation_id=row["operation_id"], deduplicated=bool(row["deduplicated"])
        )

    async def clear_bank(self, bank_id: str) -> BankObservationsCleared:
        """Delete every observation of a bank, with its revisions and vectors.

        The bank's valid facts are consolidated again, so a bank with ``enable_observations``
        rebuilds its observations from scratch.
        """
        await self._banks.require(bank_id)
        deleted: list[str] = []
        requeued = 0

        async def work(tx: Tx) -> None:
            nonlocal requeued
            rows = await tx.run("observations/of_bank", {"bank_id": bank_id})
            deleted[:] = [r["id"] for r in rows]
            for start in range(0, len(deleted), _DELETE_CHUNK):
                await tx.run(
                    "observations/delete",
                    {"bank_id": bank_id, "observation_ids": deleted[start : start + _DELETE_CHUNK]},
                )
            result = await tx.run("observations/requeue_bank", {"bank_id": bank_id})
            requeued = int(result[0]["requeued"]) if result else 0

        await self._graph.write(bank_id, work)
        if deleted:
            await self._vectors.delete(bank_id, deleted)
            await self._vectors.flush()
        return BankObservationsCleared(
            message=f"{len(deleted)} observations deleted; {requeued} facts queued to consolidate",
            deleted_count=len(deleted),
        )

    async def clear_observations(self, bank_id: str, memory_id: str) -> ObservationsDeleted:
        """Delete the observations derived from one fact; their sources are consolidated again."""
        await self._banks.require(bank_id)
        deleted: list[str] = []

        async def work(tx: Tx) -> None:
            found = await tx.run("consolidate/snapshot", {"bank_id": bank_id, "ids": [memory_id]})
            if not found or not found[0]["nodes"]:
                raise NotFound(f"memory {memory_id!r} not found in bank {bank_id!r}")
            rows = await tx.run(
                "observations/of_memory", {"bank_id": bank_id, "memory_id": memory_id}
            )
            deleted[:] = [r["id"] for r in rows]
            sources = sorted({s for r in rows for s in r["source_ids"]})
            if deleted:
                await tx.run(
                    "observations/delete", {"bank_id": bank_id, "observation_ids": deleted}
                )
            await requeue_facts(tx, bank_id, [*sources, memory_id])

        await self._graph.write(bank_id, work)
        if deleted:
            await self._vectors.delete(bank_id, deleted)
            await self._vectors.flush()
        return ObservationsDeleted(deleted_count=len(deleted))
