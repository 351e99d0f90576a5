"""What the extraction worker process runs: ``local`` extraction with its own spaCy model.

spaCy and the extraction rules hold the GIL while they work; in the service process they
take turns with the retain write path, which is what bounds a bank's throughput. In a worker
process they run beside it (``extractors.ProcessExtraction`` sends the chunks here).

The loaded extractor is this process's state: a worker serves one service, for its lifetime.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from app.retain.extract.extracted import ExtractionInput, ExtractionResult

if TYPE_CHECKING:
    # Imported in the worker only: the service imports this module to name its function.
    from app.retain.extract.local import LocalExtractor

_loaded: dict[str, LocalExtractor] = {}

# How often the worker checks that the service that started it is still there.
PARENT_CHECK_S = 1.0


def watch_parent(parent_pid: int) -> None:
    """Exit when the service dies (the pool's initializer).

    A service killed outright (a crash, ``kill -9``) never shuts its pool down, and the worker
    would wait for work forever: it holds its end of the job queue itself, so it never sees
    the queue close.
    """

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def extract(model: str, jobs: Sequence[ExtractionInput]) -> list[ExtractionResult]:
    """Extract ``jobs`` with the spaCy ``model``, loaded on the first call (no jobs: load only)."""
    extractor = _loaded.get(model)
    if extractor is None:
        from app.retain.extract.local import LocalExtractor

        extractor = _loaded[model] = LocalExtractor.load(model)
    return extractor.extract_many(jobs) if jobs else []
