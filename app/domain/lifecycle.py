"""A fact's footprint in the active graph: how it leaves (invalidated, deleted) and comes back.

A valid fact contributes to the graph beyond its own node: one ``mention_count`` and a widened
``first_seen``/``last_seen`` on each entity it mentions, one ``count`` on the ``CO_OCCURS`` edge of
each pair of those entities, and its ``MENTIONS``/``TEMPORAL``/``SEMANTIC``/``CAUSED_BY``
relationships. Invalidation must take all of that out (recall and analytics traverse the typed
relationships and read the counts) while keeping what is needed to put it back exactly; deletion
must take out exactly that contribution and nothing else.

* :func:`detach_facts` releases the counts and turns every such relationship into an
  ``ARCHIVED_LINK {type, archived_at, ...original properties}`` in the same direction;
* :func:`attach_facts` turns archived links back into their typed relationships (those whose other
  end is active) and claims the counts again;
* :func:`delete_facts` releases the counts of the valid ones and deletes the facts with their
  relationships and revisions; :func:`forget_names` then cleans names and orphaned entities.

A valid fact may also support observations (``(:Observation)-[:DERIVED_FROM]->(fact)``). A fact
that leaves (invalidated, deleted) or changes (edited) stops supporting them in the same
transaction (:func:`withdraw_from_observations`): proof counts are recomputed, an observation
left without a valid source is retracted (its history kept), and the facts that still support
the changed observations wait for consolidation again (:func:`requeue_facts`), as must a
restored fact (once its state is valid again: the caller's).

Every function runs inside the caller's transaction (after the bank lock), so callers compose
them into one atomic change. Only statements under ``cypher/memories`` and ``cypher/documents``
are used; the rules themselves live in those files' headers.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from app.domain.facts import RevisionKind
from app.domain.statements import Statements


class FactFootprint(msgspec.Struct, frozen=True):
    """What removing one fact has to undo: its state and the entities it mentions."""

    id: str
    valid: bool
    entity_ids: list[str] = msgspec.field(default_factory=list)


class NewRevision(msgspec.Struct, frozen=True, kw_only=True):
    """One audit record to write (``before``/``after`` hold only what changed)."""

    memory_id: str
    at: datetime
    kind: RevisionKind
    reason: str | None
    before: Mapping[str, Any]
    after: Mapping[str, Any]


async def detach_facts(
    tx: Statements, bank_id: str, memory_ids: Sequence[str], at: datetime
) -> None:
    """Take facts out of the active graph, keeping their links archived for a later restore.

    The facts must still hold their ``MENTIONS`` (i.e. be active); their ``state`` is the
    caller's business (set before or after, it does not matter here). They stop supporting
    their observations.
    """
    if not memory_ids:
        return
    await withdraw_from_observations(tx, bank_id, memory_ids, at=at, why="invalidated")
    params = {"bank_id": bank_id, "memory_ids": list(memory_ids)}
    # Counts first: they are computed from the MENTIONS edges that archiving removes.
    await tx.run("memories/release_co_occurs", params)
    await tx.run("memories/release_mentions", params)
    await tx.run("memories/archive_links", {**params, "at": at})


async def attach_facts(tx: Statements, bank_id: str, memory_ids: Sequence[str]) -> None:
    """Put archived facts back into the active graph: links restored, counts claimed again."""
    if not memory_ids:
        return
    params = {"bank_id": bank_id, "memory_ids": list(memory_ids)}
    await tx.run("memories/restore_links", params)
    # Counts last: they are computed from the MENTIONS edges that restoring brought back.
    await tx.run("memories/claim_mentions", params)
    await tx.run("memories/claim_co_occurs", params)


async def release_counts(tx: Statements, bank_id: str, memory_ids: Sequence[str]) -> None:
    """Remove active facts' contribution to entity and co-occurrence counts (links untouched)."""
    if memory_ids:
        params = {"bank_id": bank_id, "memory_ids": list(memory_ids)}
        await tx.run("memories/release_co_occurs", params)
        await tx.run("memories/release_mentions", params)


async def claim_counts(tx: Statements, bank_id: str, memory_ids: Sequence[str]) -> None:
    """Add active facts' contribution to entity and co-occurrence counts (links untouched)."""
    if memory_ids:
        params = {"bank_id": bank_id, "memory_ids": list(memory_ids)}
        await tx.run("memories/claim_mentions", params)
        await tx.run("memories/claim_co_occurs", params)


async def delete_facts(tx: Statements, bank_id: str, facts: Sequence[FactFootprint]) -> None:
    """Delete facts with every relationship and revision, releasing what the valid ones counted.

    Invalidated facts counted nothing any more (invalidation released it), so only the valid
    ones are released; names and orphaned entities are left to :func:`forget_names`.
    """
    if not facts:
        return
    await withdraw_from_observations(
        tx, bank_id, [f.id for f in facts], at=datetime.now(UTC), why="deleted"
    )
    await release_counts(tx, bank_id, [f.id for f in facts if f.valid])
    await tx.run(
        "documents/delete_facts", {"bank_id": bank_id, "memory_ids": [f.id for f in facts]}
    )


async def forget_names(
    tx: Statements, bank_id: str, memory_ids: Sequence[str], entity_ids: Sequence[str]
) -> list[str]:
    """After facts are gone: drop them from name claims, then delete entities nobody mentions.

    Only ``entity_ids`` (the entities those facts mentioned) are considered, so nothing else in
    the bank changes. Returns the ids of the deleted entities.
    """
    if not memory_ids or not entity_ids:
        return []
    await tx.run(
        "memories/prune_names",
        {"bank_id": bank_id, "memory_ids": list(memory_ids), "entity_ids": list(entity_ids)},
    )
    rows = await tx.run(
        "documents/drop_orphan_entities", {"bank_id": bank_id, "entity_ids": list(entity_ids)}
    )
    return list(rows[0]["ids"]) if rows else []


async def add_revisions(tx: Statements, bank_id: str, revisions: Sequence[NewRevision]) -> None:
    """Write audit records, one ``MemoryRevision`` per change, linked from its fact."""
    if not revisions:
        return
    await tx.run(
        "memories/add_revisions",
        {
            "bank_id": bank_id,
            "revisions": [
                {
                    "id": str(uuid.uuid4()),
                    "memory_id": r.memory_id,
                    "at": r.at,
                    "kind": r.kind,
                    "reason": r.reason,
                    "fields": sorted(r.after.keys() | r.before.keys()),
                    "before_json": msgspec.json.encode(r.before).decode(),
                    "after_json": msgspec.json.encode(r.after).decode(),
                }
                for r in revisions
            ],
        },
    )


async def retire_facts(
    tx: Statements, bank_id: str, memory_ids: Sequence[str], *, reason: str, at: datetime
) -> None:
    """Facts the retain pipeline just invalidated (their chunk left the document).

    They leave the active graph like a manual invalidation does, with a revision saying why, so
    that a later ``state: valid`` restores them the same way.
    """
    if not memory_ids:
        return
    await detach_facts(tx, bank_id, memory_ids, at)
    await add_revisions(
        tx,
        bank_id,
        [
            NewRevision(
                memory_id=memory_id,
                at=at,
                kind="retire",
                reason=reason,
                before={"state": "valid"},
                after={"state": "invalidated"},
            )
            for memory_id in memory_ids
        ],
    )


class _Withdrawn(msgspec.Struct, frozen=True):
    """One observation that lost sources (``observations/withdraw_sources``)."""

    id: str
    state: str
    before: list[str]
    after: list[str]
    before_count: int
    after_count: int


async def withdraw_from_observations(
    tx: Statements, bank_id: str, memory_ids: Sequence[str], *, at: datetime, why: str
) -> list[str]:
    """Facts stop supporting their observations; returns the ids of the retracted observations.

    ``why`` (``invalidated``, ``deleted``, ``edited``) goes into each changed observation's
    revision. The observations keep their text; the facts still supporting them are requeued,
    so that consolidation rewrites or regroups them.
    """
    if not memory_ids:
        return []
    rows = msgspec.convert(
        await tx.run(
            "observations/withdraw_sources",
            {"bank_id": bank_id, "memory_ids": list(memory_ids), "at": at},
        ),
        list[_Withdrawn],
        strict=False,
    )
    changed = [r for r in rows if r.state == "valid"]
    if not changed:
        return []
    await add_revisions(
        tx,
        bank_id,
        [
            NewRevision(
                memory_id=r.id,
                at=at,
                kind="source_removed",
                reason=f"a source fact was {why}",
                before={"source_memory_ids": r.before, "proof_count": r.before_count},
                after={"source_memory_ids": r.after, "proof_count": r.after_count},
            )
            for r in changed
        ],
    )
    retracted = [r.id for r in changed if r.after_count == 0]
    if retracted:
        await tx.run(
            "observations/retract",
            {
                "bank_id": bank_id,
                "observation_ids": retracted,
                "reason": f"no valid source left (its last source fact was {why})",
                "at": at,
            },
        )
    kept = [r.id for r in changed if r.after_count > 0]
    if kept:
        await tx.run("observations/refresh", {"bank_id": bank_id, "observation_ids": kept})
    gone = set(memory_ids)
    await requeue_facts(tx, bank_id, sorted({s for r in changed for s in r.after} - gone))
    return retracted


async def requeue_facts(tx: Statements, bank_id: str, memory_ids: Sequence[str]) -> None:
    """Valid facts wait for consolidation again (invalidated facts and observations do not)."""
    if memory_ids:
        await tx.run("observations/requeue", {"bank_id": bank_id, "memory_ids": list(memory_ids)})
