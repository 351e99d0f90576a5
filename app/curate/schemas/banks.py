"""Banks as the API shows them, and what a client may set on one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from app.domain.banks import BankConfig, Disposition, EntityLabel, ExtractionMode, Trait
from app.domain.defense import DefenseConfig

Mission = Annotated[str, msgspec.Meta(max_length=4000)]

# Hindsight bank settings Mnemo accepts but does not act on (chunk sizes, recall arm switches):
# they are not stored, and the answer's ``warnings`` names each one sent.
UNHONOURED_BANK_FIELDS: tuple[str, ...] = (
    "retain_chunk_size",
    "retain_structured_chunk_size",
    "retain_max_attachments_per_chunk",
    "enable_text_search",
    "enable_temporal_retrieval",
    "enable_graph_retrieval",
    "enable_reranking",
)


class BankUpdate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Fields a client may set on a bank; UNSET keeps the current (or default) value.

    Hindsight's keys are accepted: ``mission`` is its older name for ``reflect_mission``;
    ``disposition`` or the three ``disposition_*`` traits (1-5) set the disposition; the fields
    in ``UNHONOURED_BANK_FIELDS`` are accepted and named in the answer's warnings.
    """

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | UnsetType = UNSET
    retain_mission: Annotated[str, msgspec.Meta(max_length=4000)] | UnsetType | None = UNSET
    retain_extraction_mode: ExtractionMode | UnsetType = UNSET
    retain_custom_instructions: Annotated[str, msgspec.Meta(max_length=8000)] | UnsetType | None = (
        UNSET
    )
    entity_labels: tuple[EntityLabel, ...] | UnsetType = UNSET
    # Memory defense: what happens to secrets and personal data in what the bank retains.
    defense: DefenseConfig | UnsetType = UNSET
    description: Annotated[str, msgspec.Meta(max_length=4000)] | UnsetType | None = UNSET
    reflect_mission: Mission | UnsetType | None = UNSET
    mission: Mission | UnsetType | None = UNSET
    background: Annotated[str, msgspec.Meta(max_length=8000)] | UnsetType | None = UNSET
    disposition: Disposition | UnsetType = UNSET
    disposition_skepticism: Trait | UnsetType = UNSET
    disposition_literalism: Trait | UnsetType = UNSET
    disposition_empathy: Trait | UnsetType = UNSET
    enable_observations: bool | UnsetType = UNSET
    observations_mission: Mission | UnsetType | None = UNSET
    retain_chunk_size: int | UnsetType = UNSET
    retain_structured_chunk_size: int | UnsetType = UNSET
    retain_max_attachments_per_chunk: int | UnsetType = UNSET
    enable_text_search: bool | UnsetType = UNSET
    enable_temporal_retrieval: bool | UnsetType = UNSET
    enable_graph_retrieval: bool | UnsetType = UNSET
    enable_reranking: bool | UnsetType = UNSET

    def sent(self) -> list[str]:
        """The names of the fields this update sets."""
        return [f for f in self.__struct_fields__ if getattr(self, f) is not UNSET]


class DispositionUpdate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``PUT``/``PATCH .../profile``: the bank's disposition traits."""

    disposition: Disposition


class BankCounts(msgspec.Struct, frozen=True):
    """How much a bank holds."""

    memories: int = 0
    entities: int = 0
    documents: int = 0


class Bank(BankConfig, frozen=True, kw_only=True):
    """A bank as the API shows it: its configuration and what it holds.

    It is also Hindsight's bank profile: ``bank_id`` (= ``id``), ``mission`` (= the reflect
    mission, "" when unset), ``disposition`` and ``background``. ``warnings`` names settings the
    request sent that Mnemo does not act on.
    """

    counts: BankCounts = msgspec.field(default_factory=BankCounts)
    bank_id: str = ""
    mission: str = ""
    fact_count: int = 0
    warnings: list[str] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "bank_id", self.id)
        msgspec.structs.force_setattr(self, "mission", self.reflect_mission or "")
        msgspec.structs.force_setattr(self, "fact_count", self.counts.memories)


class BankPage(msgspec.Struct, frozen=True):
    """One page of banks (under ``banks``, Hindsight's name)."""

    banks: list[Bank]
    total: int
    limit: int
    offset: int


class BankDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """What deleting a bank removed (``success``, ``message``, ``deleted_count``: Hindsight's)."""

    bank_id: str
    deleted_nodes: int
    deleted_vectors: int
    success: bool = True
    message: str = ""
    deleted_count: int = 0

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "deleted_count", self.deleted_nodes)
        msgspec.structs.force_setattr(
            self, "message", f"bank {self.bank_id!r} deleted ({self.deleted_nodes} nodes)"
        )


class BankConfigView(msgspec.Struct, frozen=True, kw_only=True):
    """``GET .../config``: every setting with its value, and those set on this bank."""

    bank_id: str
    config: dict[str, Any]
    overrides: dict[str, Any]
    warnings: list[str] = msgspec.field(default_factory=list)


class BankConfigUpdate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``PATCH .../config``: settings by name (the fields of a bank update)."""

    updates: dict[str, Any]


class BankStats(msgspec.Struct, frozen=True, kw_only=True):
    """What a bank holds, by kind (Hindsight's ``.../stats``).

    Nodes are memories (by fact type, any state); links are the memory-to-memory relations
    (temporal, semantic, causal) by type and by the source memory's fact type.
    """

    bank_id: str
    total_nodes: int
    total_links: int
    total_documents: int
    total_entities: int
    nodes_by_fact_type: dict[str, int]
    links_by_link_type: dict[str, int]
    links_by_fact_type: dict[str, int]
    links_breakdown: dict[str, dict[str, int]]
    pending_operations: int
    failed_operations: int
    operations_by_status: dict[str, int]
    total_observations: int = 0
    last_memory_write_at: datetime | None = None
    # Facts still to be consolidated, counting those whose observation is written but not yet
    # searchable (its vector unconfirmed): 0 means recall finds every observation there is.
    pending_consolidation: int = 0
    failed_consolidation: int = 0
    last_consolidated_at: datetime | None = None
