"""What a key may do: pure rules over a key's scope, used by the HTTP layer and the tests.

Three scopes: admin (every bank, creating and deleting banks, keys, metrics, maintenance),
bank-scoped read-write and bank-scoped read-only. A request asks for one of four kinds of
access; :func:`denial` says why a key may not have it, or None when it may.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Literal

import msgspec

AccessKind = Literal["open", "any_key", "bank_read", "bank_write", "admin"]


class Principal(msgspec.Struct, frozen=True, kw_only=True):
    """The holder of a valid key."""

    key_id: str
    name: str | None = None
    admin: bool = False
    banks: frozenset[str] = frozenset()
    read_only: bool = False

    def may_read(self, bank_id: str) -> bool:
        """True when the key reaches ``bank_id``."""
        return self.admin or bank_id in self.banks

    def may_write(self, bank_id: str) -> bool:
        """True when the key may change ``bank_id``."""
        return self.admin or (bank_id in self.banks and not self.read_only)


# The key holder of the request being served, for code that is reached without Litestar's
# request (the MCP tools mounted at /mcp). None: no key was checked (auth off, or not set).
CURRENT_PRINCIPAL: ContextVar[Principal | None] = ContextVar("mnemo_principal", default=None)


class Requirement(msgspec.Struct, frozen=True):
    """The access one request needs: a kind, and the bank for the bank kinds."""

    kind: AccessKind
    bank_id: str | None = None


def denial(principal: Principal, need: Requirement) -> str | None:
    """Why ``principal`` may not do what ``need`` asks (None: it may)."""
    label = f"key {principal.key_id}" + (f" ({principal.name})" if principal.name else "")
    if need.kind in ("open", "any_key") or principal.admin:
        return None
    if need.kind == "admin":
        return f"{label} is not an admin key; this needs one (mnemo keys create --admin)"
    bank = need.bank_id or ""
    if not principal.may_read(bank):
        return f"{label} has no access to bank {bank!r}"
    if need.kind == "bank_write" and not principal.may_write(bank):
        return f"{label} is read-only for bank {bank!r}"
    return None
