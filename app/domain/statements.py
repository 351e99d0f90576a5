"""What a domain rule needs to run named Cypher statements: the store's transaction, seen small."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Statements(Protocol):
    """Runs statements by name inside one transaction (``app.store.graph.Tx`` is one)."""

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run the statement ``cypher/<name>.cypher`` and return its records as dicts."""
        ...
