"""Choose the vector-store adapter the settings ask for."""

from __future__ import annotations

from app.config import Settings
from app.store.vectors import VectorStore


def make_vector_store(settings: Settings) -> VectorStore:
    """Return the store for ``settings`` (not yet opened; no I/O).

    No ``MNEMO_QDRANT_URL``: the embedded Qdrant Edge shard under ``<data_dir>/qdrant``.
    Otherwise: the Qdrant server at that URL. Each adapter is imported only when chosen, so a
    server deployment never loads the embedded engine.
    """
    if settings.qdrant_url is None:
        from app.store.qdrant_edge import EdgeVectorStore

        return EdgeVectorStore.from_settings(settings)
    from app.store.qdrant_server import ServerVectorStore

    return ServerVectorStore.from_settings(settings)
