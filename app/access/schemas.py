"""API keys as the API and the command line show them, and what creating one takes (no I/O)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from app.domain.banks import BANK_ID_PATTERN

BankName = Annotated[str, msgspec.Meta(pattern=BANK_ID_PATTERN, min_length=1, max_length=64)]
MAX_KEY_BANKS = 1000


class KeyCreate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A new key: admin, or the banks it may use (read-only or read-write).

    Admin keys reach every bank, create and delete banks, manage keys and read metrics.
    """

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None
    admin: bool = False
    banks: Annotated[list[BankName], msgspec.Meta(max_length=MAX_KEY_BANKS)] = msgspec.field(
        default_factory=list
    )
    read_only: bool = False


class KeyInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A stored key without its secret (which is never stored, only its hash)."""

    id: str
    name: str | None = None
    admin: bool = False
    banks: list[str] = msgspec.field(default_factory=list)
    read_only: bool = False
    created_at: datetime
    revoked_at: datetime | None = None


class KeyCreated(msgspec.Struct, frozen=True, kw_only=True):
    """A new key: ``key`` is shown this once."""

    key: str
    info: KeyInfo


class KeyPage(msgspec.Struct, frozen=True):
    """Every key, newest first (revoked ones included, marked)."""

    items: list[KeyInfo]
