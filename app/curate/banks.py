"""Memory banks: create, configure, list, inspect and delete.

A bank isolates everything stored for one user, agent or project. Its configuration steers the
retain pipeline (extraction mode, mission, controlled entity vocabularies).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from app.errors import InvalidInput, NotFound
from app.store.graph import Graph
from app.store.vectors import VectorStore

BANK_ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
_BANK_ID = re.compile(BANK_ID_PATTERN)

ExtractionMode = Literal["local", "chunks", "concise", "verbose", "custom", "verbatim"]
LLM_MODES: frozenset[str] = frozenset({"concise", "verbose", "custom", "verbatim"})

LabelName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]


class EntityLabel(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A controlled vocabulary: mentions typed ``name`` resolve by exact value only.

    ``values`` lists the allowed values (empty: free text, still matched exactly);
    ``multiple`` says whether one fact may carry several values.
    """

    name: LabelName
    values: tuple[str, ...] = ()
    multiple: bool = False
    description: str | None = None


class BankUpdate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Fields a client may set on a bank; UNSET keeps the current (or default) value."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | UnsetType = UNSET
    retain_mission: Annotated[str, msgspec.Meta(max_length=4000)] | UnsetType | None = UNSET
    retain_extraction_mode: ExtractionMode | UnsetType = UNSET
    retain_custom_instructions: Annotated[str, msgspec.Meta(max_length=8000)] | UnsetType | None = (
        UNSET
    )
    entity_labels: tuple[EntityLabel, ...] | UnsetType = UNSET
    description: Annotated[str, msgspec.Meta(max_length=4000)] | UnsetType | None = UNSET


class BankCounts(msgspec.Struct, frozen=True):
    """How much a bank holds."""

    memories: int = 0
    entities: int = 0
    documents: int = 0


class Bank(msgspec.Struct, frozen=True, kw_only=True):
    """A bank as the API shows it."""

    id: str
    name: str
    description: str | None = None
    retain_mission: str | None = None
    retain_extraction_mode: ExtractionMode = "local"
    retain_custom_instructions: str | None = None
    entity_labels: tuple[EntityLabel, ...] = ()
    created_at: datetime
    updated_at: datetime
    counts: BankCounts = msgspec.field(default_factory=BankCounts)


class BankPage(msgspec.Struct, frozen=True):
    """One page of banks."""

    items: list[Bank]
    total: int
    limit: int
    offset: int


class BankDeleted(msgspec.Struct, frozen=True):
    """What deleting a bank removed."""

    bank_id: str
    deleted_nodes: int
    deleted_vectors: int


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


def check_bank_id(bank_id: str) -> str:
    """Refuse ids outside 1–64 characters of ``[A-Za-z0-9_.-]``."""
    if not _BANK_ID.match(bank_id):
        raise InvalidInput(
            "bank_id must be 1-64 characters of letters, digits, '_', '.' or '-'",
            extra={"bank_id": bank_id[:100]},
        )
    return bank_id


class BankService:
    """Bank CRUD over the graph (and the vector store for deletion)."""

    def __init__(self, graph: Graph, vectors: VectorStore, *, llm_configured: bool) -> None:
        self._graph = graph
        self._vectors = vectors
        self._llm_configured = llm_configured

    @property
    def default_mode(self) -> ExtractionMode:
        """LLM extraction when an endpoint is configured, the offline extractor otherwise."""
        return "concise" if self._llm_configured else "local"

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
        if mode in LLM_MODES and not self._llm_configured:
            raise InvalidInput(
                f"retain_extraction_mode {mode!r} needs an LLM endpoint: set MNEMO_LLM_BASE_URL "
                "(or use 'local' or 'chunks', which run offline)",
                extra={"field": "retain_extraction_mode"},
            )


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
