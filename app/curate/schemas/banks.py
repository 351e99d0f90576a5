"""Banks as the API shows them, and what a client may set on one."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType

from app.domain.banks import BankConfig, EntityLabel, ExtractionMode


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


class Bank(BankConfig, frozen=True, kw_only=True):
    """A bank as the API shows it: its configuration and what it holds."""

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
