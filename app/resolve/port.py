"""What the retain pipeline asks of entity resolution, whichever resolver answers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import msgspec

from app.domain.banks import BankConfig
from app.store.graph import Tx


class MentionToResolve(msgspec.Struct, frozen=True, kw_only=True):
    """One entity mention of a fact, as extracted or supplied by the caller."""

    text: str
    type: str = ""
    # Other names the same text states for it ("Ocean Probe 1 (OP-1)").
    aliases: tuple[str, ...] = ()
    # ``resolve_entities: false``: exact normalised match or a new entity, nothing fuzzy.
    resolve: bool = True
    # The type is a local model's guess (NER): evidence, not a guard.
    type_guessed: bool = False


class FactToResolve(msgspec.Struct, frozen=True, kw_only=True):
    """A new fact's mentions, with its id (provenance of names), time and text."""

    memory_id: str
    at: datetime
    content: str
    mentions: tuple[MentionToResolve, ...]


class ResolvedMention(msgspec.Struct, frozen=True, kw_only=True):
    """Which entity a mention resolved to, and the surface text as it appeared."""

    entity_id: str
    canonical_name: str
    mention: str
    type: str = ""


class EntityResolver(Protocol):
    """Resolves the mentions of new facts inside the retain transaction.

    It writes what is entity-side (new entities, their names with provenance, reviews) and
    returns, per fact, the entity of each mention (several mentions may share one entity).
    The pipeline then writes the facts, their MENTIONS and co-occurrences.
    """

    async def resolve(
        self, tx: Tx, bank: BankConfig, facts: Sequence[FactToResolve]
    ) -> list[list[ResolvedMention]]:
        """Resolve every fact's mentions, in order."""

    async def settle(
        self,
        tx: Tx,
        bank: BankConfig,
        facts: Sequence[FactToResolve],
        resolved: Sequence[Sequence[ResolvedMention]],
    ) -> object:
        """Make the identities of what the batch touched a function of the evidence.

        Called after the batch's facts and mentions are written (``settle_store``).
        """
