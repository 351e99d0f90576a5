"""A bank's security events as the API lists them (no I/O)."""

from __future__ import annotations

import msgspec

from app.domain.defense import SecurityEvent


class SecurityEventPage(msgspec.Struct, frozen=True):
    """One page of what memory defense redacted or blocked in a bank, newest first."""

    items: list[SecurityEvent]
    total: int
    limit: int
    offset: int
