"""The extractor port: one interface over the local, chunk and LLM extractors.

The pipeline hands over every chunk of a request that needs extraction at once, so the local
extractor can batch them through spaCy (in a worker thread, off the event loop) and the LLM
extractor can run them concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import msgspec

from app.curate.banks import LLM_MODES
from app.retain.extracted import ExtractionInput, ExtractionResult

if TYPE_CHECKING:
    # Imported for types only: openai + instructor take seconds to import, and every client
    # command of the CLI imports this module through the shared request Structs.
    from app.retain.llm_extract import LlmExtractor, LlmMode


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


class LlmExtraction:
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
