"""Memory banks: create, configure, list, inspect and delete.

A bank isolates everything stored for one user, agent or project. Its configuration steers the
retain pipeline (extraction mode, mission, controlled entity vocabularies).
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from msgspec import UNSET

from app.curate.schemas.banks import Bank, BankCounts, BankDeleted, BankPage, BankUpdate
from app.domain.banks import (
    EntityLabel,
    ExtractionMode,
    check_bank_id,
    check_extraction_mode,
    default_extraction_mode,
)
from app.errors import NotFound
from app.store.graph import Graph
from app.store.vectors import VectorStore


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


class _BankRow(msgspec.Struct):
    bank: _BankProps
    created: bool = False


class _CountsRow(msgspec.Struct):
    bank_id: str
    memories: int
    entities: int
    documents: int


class BankService:
    """Bank CRUD over the graph (and the vector store for deletion)."""

    def __init__(self, graph: Graph, vectors: VectorStore, *, llm_configured: bool) -> None:
        self._graph = graph
        self._vectors = vectors
        self._llm_configured = llm_configured

    @property
    def default_mode(self) -> ExtractionMode:
        """The mode a bank created without one gets."""
        return default_extraction_mode(llm_configured=self._llm_configured)

    async def put(self, bank_id: str, update: BankUpdate) -> tuple[Bank, bool]:
        """Create the bank or update the fields sent. Returns the bank and whether it is new."""
        check_bank_id(bank_id)
        self._check_mode(update)
        rows = await self._graph.rows(
            "banks/upsert",
            {
                "bank_id": bank_id,
                "props": _props(update),
                "defaults": {"name": bank_id, "retain_extraction_mode": self.default_mode},
            },
            _BankRow,
        )
        return await self._with_counts(rows[0].bank), rows[0].created

    async def patch(self, bank_id: str, update: BankUpdate) -> Bank:
        """Update the fields sent on an existing bank."""
        await self.get(bank_id)
        self._check_mode(update)
        bank, _ = await self.put(bank_id, update)
        return bank

    async def get(self, bank_id: str) -> Bank:
        """One bank with its counts; NotFound when absent."""
        bank = await self.config(bank_id)
        return msgspec.structs.replace(bank, counts=(await self._counts([bank_id]))[bank_id])

    async def config(self, bank_id: str) -> Bank:
        """The bank's configuration without counts (cheap: read on every retain)."""
        check_bank_id(bank_id)
        row = await self._graph.row("banks/get", {"bank_id": bank_id}, _BankRow)
        if row is None:
            raise NotFound(f"bank {bank_id!r} not found")
        return _to_bank(row.bank, BankCounts())

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
        return BankPage(items=items, total=total, limit=limit, offset=offset)

    async def delete(self, bank_id: str) -> BankDeleted:
        """Remove the bank's nodes and vectors, and nothing else."""
        await self.require(bank_id)
        vectors = await self._vectors.count(bank_id)
        # Vectors first: a crash after this leaves graph nodes whose vectors are gone, which
        # reconciliation re-embeds or the repeated delete removes; never orphan vectors.
        await self._vectors.delete_bank(bank_id)
        await self._vectors.flush()
        deleted = await self._graph.run_implicit("banks/delete", {"bank_id": bank_id})
        return BankDeleted(
            bank_id=bank_id, deleted_nodes=int(deleted[0]["nodes"]), deleted_vectors=vectors
        )

    async def _counts(self, bank_ids: list[str]) -> dict[str, BankCounts]:
        rows = await self._graph.rows("banks/counts", {"bank_ids": bank_ids}, _CountsRow)
        return {
            r.bank_id: BankCounts(memories=r.memories, entities=r.entities, documents=r.documents)
            for r in rows
        }

    async def _with_counts(self, props: _BankProps) -> Bank:
        return _to_bank(props, (await self._counts([props.id]))[props.id])

    def _check_mode(self, update: BankUpdate) -> None:
        mode = update.retain_extraction_mode
        check_extraction_mode(None if mode is UNSET else mode, llm_configured=self._llm_configured)


def _props(update: BankUpdate) -> dict[str, object]:
    props: dict[str, object] = {}
    for field in update.__struct_fields__:
        value = getattr(update, field)
        if value is UNSET:
            continue
        if field == "entity_labels":
            props["entity_labels_json"] = msgspec.json.encode(value).decode()
        else:
            props[field] = value
    return props


def _to_bank(props: _BankProps, counts: BankCounts) -> Bank:
    labels: tuple[EntityLabel, ...] = ()
    if props.entity_labels_json:
        labels = msgspec.json.decode(props.entity_labels_json, type=tuple[EntityLabel, ...])
    return Bank(
        id=props.id,
        name=props.name,
        description=props.description,
        retain_mission=props.retain_mission,
        retain_extraction_mode=props.retain_extraction_mode,
        retain_custom_instructions=props.retain_custom_instructions,
        entity_labels=labels,
        created_at=props.created_at,
        updated_at=props.updated_at,
        counts=counts,
    )
