"""The extractor port: one interface over the local, chunk and LLM extractors.

The pipeline hands over every chunk of a request that needs extraction at once, so the local
extractor can batch them through spaCy (in a worker process, or a worker thread, off the event
loop) and the LLM extractor can run them concurrently.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol

import msgspec

from app.domain.banks import LLM_MODES, LlmMode
from app.retain.extract import worker as extraction_worker
from app.retain.extract.extracted import ExtractionInput, ExtractionResult
from app.retain.extract.llm import LlmExtractor

log = logging.getLogger(__name__)


class ExtractionSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The bank configuration that steers extraction."""

    mode: str
    mission: str | None = None
    custom_instructions: str | None = None


class Extractor(Protocol):
    """Turns chunks into facts; returns one result per input, in order, and never drops one."""

    async def extract(
        self, jobs: Sequence[ExtractionInput], settings: ExtractionSettings
    ) -> list[ExtractionResult]:
        """Extract every chunk."""


class _BatchEngine(Protocol):
    def extract_many(self, items: Sequence[ExtractionInput]) -> list[ExtractionResult]: ...


class OfflineExtraction:
    """``local`` and ``chunks`` modes: CPU-bound batch extraction in a worker thread."""

    def __init__(self, engine: _BatchEngine) -> None:
        self._engine = engine

    async def extract(
        self, jobs: Sequence[ExtractionInput], settings: ExtractionSettings
    ) -> list[ExtractionResult]:
        """Extract all chunks in one batch."""
        if not jobs:
            return []
        return await asyncio.to_thread(self._engine.extract_many, jobs)


class ProcessExtraction:
    """``local`` mode in a worker process, beside the service's own Python work.

    In another process spaCy cannot hold the GIL that the bank's write path needs (decision
    0008). Start it with :meth:`start` (which loads the model in the worker) and :meth:`close`
    it.

    The worker is spawned: like any spawned process it imports the parent's main module, so a
    script that opens a ``Runtime`` keeps its work under ``if __name__ == "__main__":`` (or
    sets ``MNEMO_LOCAL_EXTRACTION_WORKER=false``).
    """

    def __init__(self, model: str) -> None:
        self._model = model
        self._pool = self._new_pool()
        self._restarting = asyncio.Lock()

    @staticmethod
    def _new_pool() -> ProcessPoolExecutor:
        # "spawn": a fork would copy the service's threads (driver, ONNX) in whatever state.
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=extraction_worker.watch_parent,
            initargs=(os.getpid(),),
        )

    @classmethod
    async def start(cls, model: str) -> ProcessExtraction:
        """Start the worker and load ``model`` there (Unavailable when it cannot be loaded)."""
        extraction = cls(model)
        try:
            await extraction._run([])
        except BaseException:
            await extraction.close()
            raise
        return extraction

    async def extract(
        self, jobs: Sequence[ExtractionInput], settings: ExtractionSettings
    ) -> list[ExtractionResult]:
        """Extract all chunks in one batch, in the worker."""
        if not jobs:
            return []
        pool = self._pool
        try:
            return await self._run(jobs)
        except BrokenProcessPool:
            # The worker died (killed, out of memory): a new one serves this batch and the next.
            # Concurrent batches all see it die; the first replaces it.
            async with self._restarting:
                if self._pool is pool:
                    log.warning("the extraction worker died; starting a new one")
                    await self.close()
                    self._pool = self._new_pool()
            return await self._run(jobs)

    async def _run(self, jobs: Sequence[ExtractionInput]) -> list[ExtractionResult]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool, extraction_worker.extract, self._model, list(jobs)
        )

    async def pid(self) -> int:
        """The worker's process id."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, os.getpid)

    async def close(self) -> None:
        """Stop the worker (a batch in flight fails)."""
        await asyncio.to_thread(self._pool.shutdown, wait=True, cancel_futures=True)


class ConcurrentLlmExtraction:
    """The LLM modes: chunks extracted concurrently, at most ``concurrency`` at a time."""

    def __init__(self, llm: LlmExtractor, *, concurrency: int = 4) -> None:
        self._llm = llm
        self._slots = asyncio.Semaphore(concurrency)

    async def extract(
        self, jobs: Sequence[ExtractionInput], settings: ExtractionSettings
    ) -> list[ExtractionResult]:
        """Extract every chunk; a failing chunk comes back as a verbatim fact with a warning."""
        if settings.mode not in LLM_MODES:
            raise ValueError(f"not an LLM extraction mode: {settings.mode!r}")
        mode: LlmMode = settings.mode  # type: ignore[assignment]

        async def one(job: ExtractionInput) -> ExtractionResult:
            async with self._slots:
                return await self._llm.extract(
                    job.text,
                    mode=mode,
                    timestamp=job.timestamp,
                    context=job.context,
                    mission=settings.mission,
                    custom_instructions=settings.custom_instructions,
                )

        return list(await asyncio.gather(*(one(job) for job in jobs)))
