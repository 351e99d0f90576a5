"""Memory banks: create, configure, list, inspect and delete.

A bank isolates everything stored for one user, agent or project. Its configuration steers the
retain pipeline (extraction mode, mission, controlled entity vocabularies).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import msgspec
from msgspec import UNSET

from app.curate.schemas.banks import (
    UNHONOURED_BANK_FIELDS,
    Bank,
    BankCounts,
    BankDeleted,
    BankPage,
    BankStats,
    BankUpdate,
)
from app.domain.banks import (
    NEUTRAL_TRAIT,
    Disposition,
    EntityLabel,
    ExtractionMode,
    check_bank_id,
    check_extraction_mode,
    default_extraction_mode,
)
from app.domain.defense import DETECTOR_NAMES, DefenseConfig, check_config
from app.errors import InvalidInput, NotFound
from app.retain.schemas import status_view
from app.store.graph import Graph
from app.store.vectors import VectorStore

# How long a bank's configuration read for retain is trusted. This service forgets its copy
# when it changes or deletes the bank; the copy only hides a change made by another process
# (another API process, or a bank deleted there: the write's bank lock still finds that out).
CONFIG_TTL_S = 2.0
# Banks whose configuration is kept at once (past it, the copies start over).
CONFIG_CACHE_BANKS = 10_000


class _BankProps(msgspec.Struct):
    """A Bank node's properties as stored."""

    id: str
    name: str
    created_at: datetime
    updated_at: datetime
    description: str | None = None
    retain_mission: str | None = None
    retain_extraction_mode: ExtractionMode = "local"
    retain_custom_instructions: str | None = None
    entity_labels_json: str | None = None
    defense_json: str | None = None
    reflect_mission: str | None = None
    background: str | None = None
    disposition_skepticism: int | None = None
    disposition_literalism: int | None = None
    disposition_empathy: int | None = None
    enable_observations: bool | None = None
    observations_mission: str | None = None


class _BankRow(msgspec.Struct):
    bank: _BankProps
    created: bool = False


class _StatsRow(msgspec.Struct):
    nodes: list[dict[str, Any]]
    links: list[dict[str, Any]]
    operations: list[dict[str, Any]]
    total_documents: int
    total_entities: int
    pending_consolidation: int
    failed_consolidation: int
    last_memory_write_at: datetime | None = None
    last_consolidated_at: datetime | None = None


class _CountsRow(msgspec.Struct):
    bank_id: str
    memories: int
    entities: int
    documents: int


class BankService:
    """Bank CRUD over the graph (and the vector store for deletion)."""

    def __init__(
        self,
        graph: Graph,
        vectors: VectorStore,
        *,
        llm_configured: bool,
        published: Callable[[str], Awaitable[None]],
    ) -> None:
        self._graph = graph
        self._vectors = vectors
        self._llm_configured = llm_configured
        # The retains this process answered publish behind their answers (decision 0019): a
        # delete waits for them, or a late vector upsert would outlive the bank.
        self._published = published
        self._configs: dict[str, tuple[float, Bank]] = {}
        # Bumped by every change made here: a read that a change overtook is not kept.
        self._changes = 0

    @property
    def default_mode(self) -> ExtractionMode:
        """The mode a bank created without one gets."""
        return default_extraction_mode(llm_configured=self._llm_configured)

    async def put(self, bank_id: str, update: BankUpdate) -> tuple[Bank, bool]:
        """Create the bank or update the fields sent. Returns the bank and whether it is new."""
        check_bank_id(bank_id)
        self._check_mode(update)
        self._forget(bank_id)
        rows = await self._graph.rows(
            "banks/upsert",
            {
                "bank_id": bank_id,
                "props": _props(update),
                "defaults": {"name": bank_id, "retain_extraction_mode": self.default_mode},
            },
            _BankRow,
        )
        self._forget(bank_id)  # and a copy read while it changed
        return await self._with_counts(rows[0].bank), rows[0].created

    async def patch(self, bank_id: str, update: BankUpdate) -> Bank:
        """Update the fields sent on an existing bank."""
        check_bank_id(bank_id)
        self._check_mode(update)
        return await self._update(bank_id, _props(update))

    async def get(self, bank_id: str) -> Bank:
        """One bank with its counts; NotFound when absent."""
        bank = await self._read(bank_id)
        return msgspec.structs.replace(bank, counts=(await self._counts([bank_id]))[bank_id])

    async def config(self, bank_id: str) -> Bank:
        """The bank's configuration without counts, as read at most ``CONFIG_TTL_S`` ago.

        Read on every retain, where a round trip to Neo4j is a noticeable share of a small
        request; a change through this service is seen at once.
        """
        now = time.monotonic()
        kept = self._configs.get(bank_id)
        if kept is not None and now - kept[0] < CONFIG_TTL_S:
            return kept[1]
        changes = self._changes
        bank = await self._read(bank_id)
        if changes == self._changes:
            if len(self._configs) >= CONFIG_CACHE_BANKS:
                self._configs.clear()
            self._configs[bank_id] = (now, bank)
        return bank

    async def _read(self, bank_id: str) -> Bank:
        check_bank_id(bank_id)
        row = await self._graph.row("banks/get", {"bank_id": bank_id}, _BankRow)
        if row is None:
            raise NotFound(f"bank {bank_id!r} not found")
        return _to_bank(row.bank, BankCounts())

    async def ensure(self, bank_id: str) -> bool:
        """Create the bank with defaults unless it exists (retain's first write creates it).

        Returns whether it was created.
        """
        try:
            # Through the configuration copy: a retain reads it next, and for a bank this
            # process has seen lately neither costs a round trip.
            await self.config(bank_id)
        except NotFound:
            _, created = await self.put(bank_id, BankUpdate())
            return created
        return False

    async def reset(self, bank_id: str) -> Bank:
        """Set every setting back to its default (the name and description stay)."""
        check_bank_id(bank_id)
        return await self._update(bank_id, _reset_props(self.default_mode))

    async def _update(self, bank_id: str, props: dict[str, object]) -> Bank:
        """Set ``props`` on an existing bank (None removes one); NotFound when absent."""
        self._forget(bank_id)
        rows = await self._graph.rows(
            "banks/update", {"bank_id": bank_id, "props": props}, _BankRow
        )
        self._forget(bank_id)  # and a copy read while it changed
        if not rows:
            raise NotFound(f"bank {bank_id!r} not found")
        return await self._with_counts(rows[0].bank)

    async def stats(self, bank_id: str) -> BankStats:
        """Memories, links, documents, entities and operations of the bank, by kind."""
        await self.require(bank_id)
        row = (await self._graph.run("banks/stats", {"bank_id": bank_id}))[0]
        return _stats(bank_id, msgspec.convert(row, _StatsRow, strict=False))

    async def require(self, bank_id: str) -> None:
        """Raise NotFound unless the bank exists (cheap: no counts)."""
        check_bank_id(bank_id)
        rows = await self._graph.run("banks/exists", {"bank_id": bank_id})
        if not rows:
            raise NotFound(f"bank {bank_id!r} not found")

    async def page(self, *, limit: int, offset: int) -> BankPage:
        """Banks ordered by id, one page, with counts."""
        rows = await self._graph.rows("banks/list", {"limit": limit, "offset": offset}, _BankRow)
        counts = await self._counts([r.bank.id for r in rows])
        total = (await self._graph.run("banks/total"))[0]["total"]
        items = [_to_bank(r.bank, counts[r.bank.id]) for r in rows]
        return BankPage(banks=items, total=total, limit=limit, offset=offset)

    async def delete(self, bank_id: str) -> BankDeleted:
        """Remove the bank's nodes and vectors, and nothing else."""
        await self.require(bank_id)
        await self._published(bank_id)
        self._forget(bank_id)
        vectors = await self._vectors.count(bank_id)
        # Vectors first: a crash after this leaves graph nodes whose vectors are gone, which
        # reconciliation re-embeds or the repeated delete removes; never orphan vectors.
        await self._vectors.delete_bank(bank_id)
        await self._vectors.flush()
        deleted = await self._graph.run_batched(bank_id, "banks/delete", {"bank_id": bank_id})
        self._forget(bank_id)
        return BankDeleted(
            bank_id=bank_id, deleted_nodes=int(deleted[0]["nodes"]), deleted_vectors=vectors
        )

    def _forget(self, bank_id: str) -> None:
        self._changes += 1
        self._configs.pop(bank_id, None)

    async def _counts(self, bank_ids: list[str]) -> dict[str, BankCounts]:
        rows = await self._graph.rows("banks/counts", {"bank_ids": bank_ids}, _CountsRow)
        return {
            r.bank_id: BankCounts(memories=r.memories, entities=r.entities, documents=r.documents)
            for r in rows
        }

    async def _with_counts(self, props: _BankProps) -> Bank:
        return _to_bank(props, (await self._counts([props.id]))[props.id])

    def _check_mode(self, update: BankUpdate) -> None:
        if update.defense is not UNSET and (unknown := check_config(update.defense)):
            raise InvalidInput(
                f"defense.detectors names unknown detectors {unknown}; known: "
                f"{sorted(DETECTOR_NAMES)}",
                extra={"field": "defense.detectors"},
            )
        mode = update.retain_extraction_mode
        check_extraction_mode(None if mode is UNSET else mode, llm_configured=self._llm_configured)


# Settings a reset puts back (to these values; None removes the property). Memory defense is
# not among them: it is the operator's policy for the bank (set with an admin key), not one of
# the bank's working settings.
_SETTINGS_DEFAULTS: dict[str, object] = {
    "retain_mission": None,
    "retain_custom_instructions": None,
    "entity_labels_json": None,
    "reflect_mission": None,
    "background": None,
    "disposition_skepticism": None,
    "disposition_literalism": None,
    "disposition_empathy": None,
    "enable_observations": None,
    "observations_mission": None,
}


def _reset_props(mode: ExtractionMode) -> dict[str, object]:
    return {**_SETTINGS_DEFAULTS, "retain_extraction_mode": mode}


def _props(update: BankUpdate) -> dict[str, object]:
    props: dict[str, object] = {}
    for field in update.sent():
        value = getattr(update, field)
        if field in UNHONOURED_BANK_FIELDS:
            continue
        if field == "entity_labels":
            props["entity_labels_json"] = msgspec.json.encode(value).decode()
        elif field == "defense":
            props["defense_json"] = msgspec.json.encode(value).decode()
        elif field == "disposition":
            for trait in Disposition.__struct_fields__:
                props[f"disposition_{trait}"] = getattr(value, trait)
        elif field == "mission":
            # Hindsight's older name; an explicit ``reflect_mission`` in the same update wins.
            props.setdefault("reflect_mission", value)
        elif field == "reflect_mission":
            props["reflect_mission"] = value
        else:
            props[field] = value
    return props


def _stats(bank_id: str, row: _StatsRow) -> BankStats:
    """Fold the per-kind rows of ``banks/stats`` into Hindsight's maps."""
    nodes = {str(n["fact_type"]): int(n["n"]) for n in row.nodes}
    by_link: dict[str, int] = defaultdict(int)
    by_fact: dict[str, int] = defaultdict(int)
    breakdown: dict[str, dict[str, int]] = defaultdict(dict)
    for link in row.links:
        link_type, fact_type, n = str(link["link_type"]), str(link["fact_type"]), int(link["n"])
        by_link[link_type] += n
        by_fact[fact_type] += n
        breakdown[fact_type][link_type] = n
    ops: dict[str, int] = defaultdict(int)
    for o in row.operations:
        ops[status_view(o["status"])] += int(o["n"])
    return BankStats(
        bank_id=bank_id,
        total_nodes=sum(nodes.values()),
        total_links=sum(by_link.values()),
        total_documents=row.total_documents,
        total_entities=row.total_entities,
        nodes_by_fact_type=nodes,
        links_by_link_type=dict(by_link),
        links_by_fact_type=dict(by_fact),
        links_breakdown=dict(breakdown),
        pending_operations=ops.get("pending", 0) + ops.get("processing", 0),
        failed_operations=ops.get("failed", 0),
        operations_by_status=dict(ops),
        total_observations=nodes.get("observation", 0),
        last_memory_write_at=row.last_memory_write_at,
        pending_consolidation=row.pending_consolidation,
        failed_consolidation=row.failed_consolidation,
        last_consolidated_at=row.last_consolidated_at,
    )


def _disposition(props: _BankProps) -> Disposition:
    return Disposition(
        skepticism=props.disposition_skepticism or NEUTRAL_TRAIT,
        literalism=props.disposition_literalism or NEUTRAL_TRAIT,
        empathy=props.disposition_empathy or NEUTRAL_TRAIT,
    )


def _to_bank(props: _BankProps, counts: BankCounts) -> Bank:
    labels: tuple[EntityLabel, ...] = ()
    if props.entity_labels_json:
        labels = msgspec.json.decode(props.entity_labels_json, type=tuple[EntityLabel, ...])
    defense = (
        msgspec.json.decode(props.defense_json, type=DefenseConfig)
        if props.defense_json
        else DefenseConfig()
    )
    return Bank(
        id=props.id,
        name=props.name,
        description=props.description,
        retain_mission=props.retain_mission,
        retain_extraction_mode=props.retain_extraction_mode,
        retain_custom_instructions=props.retain_custom_instructions,
        entity_labels=labels,
        defense=defense,
        reflect_mission=props.reflect_mission,
        background=props.background,
        disposition=_disposition(props),
        enable_observations=True
        if props.enable_observations is None
        else props.enable_observations,
        observations_mission=props.observations_mission,
        created_at=props.created_at,
        updated_at=props.updated_at,
        counts=counts,
    )
