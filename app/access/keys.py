"""API keys: created, listed, revoked and verified against the ``:ApiKey`` nodes in Neo4j.

A key is ``mnemo_`` and 43 random URL-safe characters (256 bits). Only its SHA-256 is stored:
a key of that strength needs no slow hash, and the hash is what a request is looked up by.
The service and ``mnemo keys`` work on the same nodes, so keys can be managed with the
service stopped; a revocation made elsewhere reaches a running service within
:data:`CACHE_SECONDS`.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import OrderedDict

import msgspec

from app.access.principal import Principal
from app.access.schemas import KeyCreate, KeyCreated, KeyInfo, KeyPage
from app.errors import InvalidInput, NotFound
from app.store.graph import Graph

KEY_PREFIX = "mnemo_"
# How long a verified key is trusted without asking Neo4j again.
CACHE_SECONDS = 5.0
CACHE_SIZE = 1024
# A configured key (MNEMO_ADMIN_KEY) must be at least this long.
MIN_CONFIGURED_KEY_CHARS = 24


class _Row(msgspec.Struct):
    key: KeyInfo


def new_key() -> str:
    """A fresh random key."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    """What is stored of a key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def principal_of(info: KeyInfo) -> Principal:
    """The scope a stored key grants."""
    return Principal(
        key_id=info.id,
        name=info.name,
        admin=info.admin,
        banks=frozenset(info.banks),
        read_only=info.read_only,
    )


def check_scope(request: KeyCreate) -> None:
    """Refuse a key that is neither admin nor bound to a bank, or an admin key with banks."""
    if request.admin and (request.banks or request.read_only):
        raise InvalidInput(
            "an admin key reaches every bank and may write: drop banks and read_only",
            extra={"field": "admin"},
        )
    if not request.admin and not request.banks:
        raise InvalidInput(
            "a key needs banks (the banks it may use) or admin: true", extra={"field": "banks"}
        )


class KeyService:
    """Keys over the graph, with a short in-process cache of verified keys."""

    def __init__(self, graph: Graph) -> None:
        self._graph = graph
        self._cache: OrderedDict[str, tuple[float, Principal]] = OrderedDict()

    async def create(self, request: KeyCreate) -> KeyCreated:
        """Store a new key's hash; the key itself is returned this once."""
        check_scope(request)
        key = new_key()
        row = await self._graph.row("keys/create", {"key": _props(request, key)}, _Row)
        assert row is not None  # CREATE always returns its node
        return KeyCreated(key=key, info=row.key)

    async def ensure(self, key: str, *, name: str) -> KeyInfo:
        """Store a configured admin key unless it is stored already (revoked ones stay so)."""
        if len(key) < MIN_CONFIGURED_KEY_CHARS:
            raise InvalidInput(
                f"a configured key needs at least {MIN_CONFIGURED_KEY_CHARS} characters "
                "(make one with `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
        props = _props(KeyCreate(name=name, admin=True), key)
        row = await self._graph.row("keys/ensure", {"key": props}, _Row)
        assert row is not None
        return row.key

    async def page(self) -> KeyPage:
        """Every key, newest first."""
        return KeyPage(items=[r.key for r in await self._graph.rows("keys/list", {}, _Row)])

    async def revoke(self, key_id: str) -> KeyInfo:
        """Revoke a key by id (idempotent); NotFound for an unknown id."""
        row = await self._graph.row("keys/revoke", {"id": key_id}, _Row)
        if row is None:
            raise NotFound(f"no API key with id {key_id!r}")
        self._cache.clear()
        return row.key

    async def verify(self, key: str) -> Principal | None:
        """The scope of a valid key; None for an unknown, revoked or malformed one."""
        if not key or len(key) > 512:
            return None
        digest = key_hash(key)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            self._cache.move_to_end(digest)
            return cached[1]
        row = await self._graph.row("keys/by_hash", {"hash": digest}, _Row)
        if row is None:
            self._cache.pop(digest, None)
            return None
        principal = principal_of(row.key)
        self._cache[digest] = (now + CACHE_SECONDS, principal)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return principal


def _props(request: KeyCreate, key: str) -> dict[str, object]:
    return {
        "id": secrets.token_hex(6),
        "hash": key_hash(key),
        "name": request.name,
        "admin": request.admin,
        "banks": sorted(set(request.banks)),
        "read_only": request.read_only,
    }
