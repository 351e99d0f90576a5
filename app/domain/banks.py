"""A bank's configuration: how it is named, how retain extracts into it, its vocabularies.

Every feature reads a bank's configuration (retain picks its extractor, the resolver its
controlled vocabularies, curation its mode for re-extraction); the curate feature owns the bank
itself. Features receive a :class:`BankDirectory` (``app.curate.banks.BankService`` is the
one), so none of them imports another to learn what a bank says.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal, Protocol, get_args

import msgspec

from app.domain.defense import DefenseConfig
from app.errors import InvalidInput

# "." and ".." are refused: as path segments they mean "this" and "the parent" folder.
BANK_ID_PATTERN = r"^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,64}$"
_BANK_ID = re.compile(BANK_ID_PATTERN)

ExtractionMode = Literal["local", "chunks", "concise", "verbose", "custom", "verbatim"]
EXTRACTION_MODES: tuple[ExtractionMode, ...] = get_args(ExtractionMode)
LlmMode = Literal["concise", "verbose", "custom", "verbatim"]
LLM_MODES: frozenset[str] = frozenset(get_args(LlmMode))
OFFLINE_MODES: frozenset[str] = frozenset(EXTRACTION_MODES) - LLM_MODES

LabelName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]


class EntityLabel(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A controlled vocabulary: mentions typed ``name`` resolve by exact value only.

    ``values`` lists the allowed values (empty: free text, still matched exactly);
    ``multiple`` says whether one fact may carry several values.
    """

    name: LabelName
    values: tuple[str, ...] = ()
    multiple: bool = False
    description: str | None = None


# Hindsight's disposition traits (1-5 each) steer how reflect weighs evidence; 3 is neutral.
Trait = Annotated[int, msgspec.Meta(ge=1, le=5)]
NEUTRAL_TRAIT = 3


class Disposition(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How sceptical, literal and empathetic reflect should be (1-5 each)."""

    skepticism: Trait = NEUTRAL_TRAIT
    literalism: Trait = NEUTRAL_TRAIT
    empathy: Trait = NEUTRAL_TRAIT


class BankConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What a bank is configured to do (no counts: cheap enough to read on every retain).

    ``reflect_mission``, ``background`` and ``disposition`` are kept for reflect;
    ``enable_observations`` and ``observations_mission`` for consolidation.
    """

    id: str
    name: str
    description: str | None = None
    retain_mission: str | None = None
    retain_extraction_mode: ExtractionMode = "local"
    retain_custom_instructions: str | None = None
    entity_labels: tuple[EntityLabel, ...] = ()
    defense: DefenseConfig = msgspec.field(default_factory=DefenseConfig)
    reflect_mission: str | None = None
    background: str | None = None
    disposition: Disposition = msgspec.field(default_factory=Disposition)
    enable_observations: bool = True
    observations_mission: str | None = None
    created_at: datetime
    updated_at: datetime


class BankDirectory(Protocol):
    """Where features read banks (``app.curate.banks.BankService``)."""

    async def config(self, bank_id: str) -> BankConfig:
        """The bank's configuration; ``NotFound`` when it does not exist."""
        ...

    async def require(self, bank_id: str) -> None:
        """Raise ``NotFound`` unless the bank exists."""
        ...


def check_bank_id(bank_id: str) -> str:
    """Refuse ids outside 1–64 characters of ``[A-Za-z0-9_.-]``, and ``.`` and ``..``."""
    if not _BANK_ID.match(bank_id):
        raise InvalidInput(
            "bank_id must be 1-64 characters of letters, digits, '_', '.' or '-', "
            "and not '.' or '..'",
            extra={"bank_id": bank_id[:100]},
        )
    return bank_id


def default_extraction_mode(*, llm_configured: bool) -> ExtractionMode:
    """LLM extraction when an endpoint is configured, the offline extractor otherwise."""
    return "concise" if llm_configured else "local"


def check_extraction_mode(mode: str | None, *, llm_configured: bool) -> None:
    """Refuse an LLM extraction mode when no LLM endpoint is configured."""
    if mode in LLM_MODES and not llm_configured:
        raise InvalidInput(
            f"retain_extraction_mode {mode!r} needs an LLM endpoint: set MNEMO_LLM_BASE_URL "
            "(or use 'local' or 'chunks', which run offline)",
            extra={"field": "retain_extraction_mode"},
        )
