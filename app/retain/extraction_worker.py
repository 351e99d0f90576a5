"""What the extraction worker process runs: ``local`` extraction with its own spaCy model.

spaCy and the extraction rules hold the GIL while they work; in the service process they
take turns with the retain write path, which is what bounds a bank's throughput. In a worker
process they run beside it (``extractors.ProcessExtraction`` sends the chunks here).

The loaded extractor is this process's state: a worker serves one service, for its lifetime.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from app.retain.extracted import ExtractionInput, ExtractionResult

if TYPE_CHECKING:
    # Imported in the worker only: the service imports this module to name its function.
    from app.retain.local_extract import LocalExtractor

_loaded: dict[str, LocalExtractor] = {}


def extract(model: str, jobs: Sequence[ExtractionInput]) -> list[ExtractionResult]:
    """Extract ``jobs`` with the spaCy ``model``, loaded on the first call (no jobs: load only)."""
    extractor = _loaded.get(model)
    if extractor is None:
        from app.retain.local_extract import LocalExtractor

        extractor = _loaded[model] = LocalExtractor.load(model)
    return extractor.extract_many(jobs) if jobs else []
