"""API keys: ``/v1/keys`` (admin keys only, like everything without a bank in its path)."""

from __future__ import annotations

from litestar import Controller, Response, delete, get, post
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK, HTTP_201_CREATED

from app.access.schemas import KeyCreate, KeyCreated, KeyInfo, KeyPage
from app.api.deps import ItemId, Keys


class KeyController(Controller):
    """Create, list and revoke API keys (``mnemo keys`` does the same against Neo4j)."""

    path = "/v1/keys"
    tags = ["keys"]
    opt = {"access": "admin"}

    @get("/", summary="Every API key (never the key itself), newest first")
    async def list_keys(self, keys: Keys) -> KeyPage:
        """Revoked keys are listed with ``revoked_at``."""
        return await keys.page()

    @post("/", summary="Create a key: admin, or bank-scoped read-write or read-only")
    async def create_key(self, keys: Keys, data: JSONBody[KeyCreate]) -> Response[KeyCreated]:
        """201 with the key, shown this once (only its hash is stored)."""
        return Response(await keys.create(data), status_code=HTTP_201_CREATED)

    @delete("/{key_id:str}", status_code=HTTP_200_OK, summary="Revoke a key")
    async def revoke_key(self, keys: Keys, key_id: ItemId) -> KeyInfo:
        """The key stops working at once here, within seconds in other processes."""
        return await keys.revoke(key_id)
