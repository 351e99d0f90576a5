"""LLM extraction: one chunk of text becomes typed facts through any OpenAI-compatible endpoint.

The bank's extraction mode picks the guidance (``concise``, ``verbose``, ``custom``,
``verbatim``); its ``retain_mission`` narrows what is kept. The model answers one JSON object
(``llm_schema``) through the shared :class:`~app.store.llm.LlmClient`, which repairs weak JSON,
re-asks and retries. When it still fails, the chunk is kept as one verbatim fact with a warning
that says why: content is never dropped silently.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from app.domain.banks import LlmMode
from app.retain.extract.extracted import ExtractedFact, ExtractionResult
from app.retain.extract.llm_prompt import build_system_prompt
from app.retain.extract.llm_schema import LlmExtraction, to_extracted_facts
from app.store.llm import LLM_FAILURES, CallLog, LlmClient

logger = logging.getLogger(__name__)


class LlmExtractor:
    """Extracts typed facts from a chunk with the configured chat model.

    :meth:`extract` never raises for trouble with the model or the endpoint: the chunk then comes
    back as one verbatim fact with a warning that says why.
    """

    def __init__(self, llm: LlmClient) -> None:
        self._llm = llm

    async def extract(
        self,
        chunk_text: str,
        *,
        mode: LlmMode,
        timestamp: datetime | None = None,
        context: str | None = None,
        mission: str | None = None,
        custom_instructions: str | None = None,
    ) -> ExtractionResult:
        """Extract the facts of one chunk.

        ``timestamp`` is when the item was written (relative dates are resolved against it),
        ``context`` what the caller said about the item, ``mission`` the bank's
        ``retain_mission`` and ``custom_instructions`` its ``retain_custom_instructions``
        (used in ``custom`` mode). Caller-supplied entities are not handled here: the pipeline
        adds them to every fact.
        """
        if not chunk_text.strip():
            return ExtractionResult(facts=())
        warnings: list[str] = []
        if mode == "custom" and not (custom_instructions and custom_instructions.strip()):
            warnings.append(
                "custom extraction mode without retain_custom_instructions: used concise guidance"
            )
        system = build_system_prompt(
            mode,
            timestamp=timestamp,
            context=context,
            mission=mission,
            custom_instructions=custom_instructions,
        )
        call = CallLog()
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": f"Text:\n\n{chunk_text}"},
        ]
        try:
            parsed = await self._llm.structured(LlmExtraction, messages, call)
        except LLM_FAILURES as exc:
            reason = self._llm.describe_failure(exc, call)
            logger.warning("LLM extraction failed, chunk kept verbatim: %s", reason)
            return _verbatim(chunk_text, warnings, reason, call.usage)

        tz = timestamp.tzinfo if timestamp is not None and timestamp.tzinfo else UTC
        facts = to_extracted_facts(parsed, tz=tz)
        if not facts and (parsed.facts or mode == "verbatim"):
            # The model wrote facts, but none survived sanitising (all empty), or verbatim mode
            # came back empty: that is a failure to extract, not a decision to keep nothing.
            return _verbatim(chunk_text, warnings, "the LLM answer held no usable fact", call.usage)
        if not facts:
            warnings.append(
                "the LLM kept no fact from this chunk"
                + (" (none matched the bank's retain_mission)" if mission else "")
            )
        return ExtractionResult(facts=tuple(facts), warnings=tuple(warnings), usage=call.usage)


def _verbatim(
    chunk_text: str, warnings: list[str], reason: str, usage: dict[str, int]
) -> ExtractionResult:
    """Keep the chunk as one world fact (the last resort), with a warning that says why."""
    fact = ExtractedFact(text=chunk_text, fact_type="world")
    warning = f"LLM extraction failed: {reason}; the chunk was kept as one verbatim fact"
    return ExtractionResult(facts=(fact,), warnings=(*warnings, warning), usage=usage)
