"""What every extractor returns: facts with their entities, times and causal links.

Extractors (local, LLM, chunks) differ in how they find facts, never in what they hand to the
pipeline, so the pipeline and the resolver do not care which one ran.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from app.domain.facts import ExtractedFactType, FactKind


class ExtractedEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity named by a fact, as written in the text.

    ``aliases`` holds other names the same text states for it ("Ocean Probe 1 (OP-1)").
    ``type`` is a coarse label: person, organization, place, product, event, work, concept…
    (empty when unknown).
    """

    text: str
    type: str = ""
    aliases: tuple[str, ...] = ()
    # ``type`` is a local model's guess (spaCy NER), which changes from sentence to sentence for
    # one name: resolution weighs it as evidence, never as a guard (decision 0010).
    type_guessed: bool = False


class ExtractedFact(msgspec.Struct, frozen=True, kw_only=True):
    """One atomic fact ready to be resolved, embedded and written."""

    text: str
    fact_type: ExtractedFactType = "world"
    fact_kind: FactKind = "conversation"
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    entities: tuple[ExtractedEntity, ...] = ()
    # Indexes (into the same chunk's fact list) of earlier facts this one was caused by.
    caused_by: tuple[int, ...] = ()
    # Optional structured detail from LLM extraction (what / where / who / why).
    where: str | None = None
    who: str | None = None
    why: str | None = None


class ExtractionResult(msgspec.Struct, frozen=True, kw_only=True):
    """Facts of one chunk plus warnings (e.g. LLM output fell back to a verbatim fact)."""

    facts: tuple[ExtractedFact, ...]
    warnings: tuple[str, ...] = ()
    usage: dict[str, int] = msgspec.field(default_factory=dict)


class ExtractionInput(msgspec.Struct, frozen=True, kw_only=True):
    """One chunk to extract, with the item's timestamp and the caller's context line."""

    text: str
    timestamp: datetime | None = None
    context: str | None = None
