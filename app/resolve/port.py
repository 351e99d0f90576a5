"""What the retain pipeline asks of entity resolution, whichever resolver answers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import datetime
from typing import Protocol

import msgspec

from app.domain.banks import BankConfig
from app.store.graph import Tx

# Entered by a settle once it has decided, before its first write, and held to its end.
WriteGate = Callable[[], AbstractAsyncContextManager[object]]


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
    # The type the mention was given (``MentionToResolve.type``); ``type`` is its entity's.
    # With the surface, it tells which given mention this is when one fact writes two alike
    # ("Adelaide" the person and "Adelaide" the city).
    mention_type: str = ""


class PendingSettle(msgspec.Struct, frozen=True, kw_only=True):
    """What written batches leave for their bank's settle; several join into one settle.

    ``names``: the (name key, type) pairs their mentions were looked up by; ``touched``: the
    entities their mentions resolved to; ``retype``: those whose type their mentions may have
    changed; ``memory_ids``: their facts (marked until a settle covers them).
    """

    names: frozenset[tuple[str, str | None]] = frozenset()
    touched: frozenset[str] = frozenset()
    retype: frozenset[str] = frozenset()
    memory_ids: frozenset[str] = frozenset()

    def join(self, other: PendingSettle) -> PendingSettle:
        """What one settle covering both must look at."""
        return PendingSettle(
            names=self.names | other.names,
            touched=self.touched | other.touched,
            retype=self.retype | other.retype,
            memory_ids=self.memory_ids | other.memory_ids,
        )


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

    async def record_mentions(
        self,
        tx: Tx,
        bank_id: str,
        facts: Sequence[FactToResolve],
        resolved: Sequence[Sequence[ResolvedMention]],
    ) -> PendingSettle:
        """Keep on the batch's written mentions what a settle replays; say what it must settle.

        Called after the batch's facts and mentions are written, in the same transaction.
        """

    async def settle(
        self, tx: Tx, bank_id: str, pending: PendingSettle, *, writing: WriteGate = nullcontext
    ) -> object:
        """Make the identities of what ``pending`` touched a function of the evidence.

        Runs in a write transaction of its own, after the writes it covers (``settle_store``):
        it reads and decides first, then enters ``writing`` and writes.
        """
