"""What each scope of key may do, decided without a database."""

from __future__ import annotations

import pytest

from app.access.keys import check_scope, key_hash, new_key, principal_of
from app.access.principal import Principal, Requirement, denial
from app.access.schemas import KeyCreate
from app.errors import InvalidInput

ADMIN = Principal(key_id="a", admin=True)
WRITER = Principal(key_id="w", banks=frozenset({"alice"}))
READER = Principal(key_id="r", name="dashboard", banks=frozenset({"alice"}), read_only=True)


def test_admin_may_do_everything() -> None:
    for need in (
        Requirement("admin"),
        Requirement("bank_write", "anyone"),
        Requirement("bank_read", "anyone"),
    ):
        assert denial(ADMIN, need) is None


def test_bank_key_reads_and_writes_its_banks_only() -> None:
    assert denial(WRITER, Requirement("bank_read", "alice")) is None
    assert denial(WRITER, Requirement("bank_write", "alice")) is None
    assert denial(WRITER, Requirement("bank_read", "bob")) == "key w has no access to bank 'bob'"
    assert "not an admin key" in (denial(WRITER, Requirement("admin")) or "")


def test_read_only_key_reads_but_never_writes() -> None:
    assert denial(READER, Requirement("bank_read", "alice")) is None
    assert denial(READER, Requirement("bank_write", "alice")) == (
        "key r (dashboard) is read-only for bank 'alice'"
    )
    assert denial(READER, Requirement("bank_write", "bob")) == (
        "key r (dashboard) has no access to bank 'bob'"
    )


def test_open_and_any_key_routes_need_no_scope() -> None:
    assert denial(READER, Requirement("open")) is None
    assert denial(READER, Requirement("any_key")) is None


def test_keys_are_random_and_only_their_hash_is_kept() -> None:
    one, two = new_key(), new_key()
    assert one != two and one.startswith("mnemo_") and len(one) >= 40
    assert key_hash(one) != key_hash(two) and one not in key_hash(one)
    assert len(key_hash(one)) == 64


@pytest.mark.parametrize(
    "request_",
    [KeyCreate(), KeyCreate(admin=True, banks=["a"]), KeyCreate(admin=True, read_only=True)],
)
def test_a_key_is_admin_or_bank_bound_never_both_or_neither(request_: KeyCreate) -> None:
    with pytest.raises(InvalidInput):
        check_scope(request_)


def test_principal_of_a_stored_key() -> None:
    from datetime import UTC, datetime

    from app.access.schemas import KeyInfo

    info = KeyInfo(id="k", banks=["x", "y"], read_only=True, created_at=datetime.now(UTC))
    assert principal_of(info) == Principal(key_id="k", banks=frozenset({"x", "y"}), read_only=True)
