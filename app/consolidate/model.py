"""Consolidation's plain data: facts and observations as decisions see them, and the decisions.

A decision is made for one new fact against its candidates: the observations that may be about
the same claim and the facts that may restate it. It is a list of actions (create, update or
delete an observation); ``app.consolidate.invariants`` checks it against the candidates and
applies it under the rules no decision can change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec


class EntityRef(msgspec.Struct, frozen=True):
    """An entity a fact mentions: id, canonical name and the surface text the fact used."""

    id: str
    name: str
    mention: str | None = None


class FactView(msgspec.Struct, frozen=True, kw_only=True):
    """A valid fact: what consolidation reads of it."""

    id: str
    text: str
    fact_type: str
    tags: tuple[str, ...] = ()
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    entities: tuple[EntityRef, ...] = ()
    # The valid observations it supports.
    observation_ids: tuple[str, ...] = ()
    # It supports an observation a person invalidated: it is not free to form another one.
    held: bool = False


class ObservationView(msgspec.Struct, frozen=True, kw_only=True):
    """A valid observation with its valid sources.

    ``sources`` are the sources read (a batch reads the most recent few: an observation backed
    by hundreds of facts must not make every decision about it read them all); ``unread_ids``
    are the others. Both together are its sources.
    """

    id: str
    text: str
    tags: tuple[str, ...] = ()
    occurred_start: datetime | None = None
    occurred_end: datetime | None = None
    mentioned_at: datetime | None = None
    sources: tuple[FactView, ...] = ()
    unread_ids: tuple[str, ...] = ()

    @property
    def source_ids(self) -> tuple[str, ...]:
        """Ids of its valid sources, read or not."""
        return (*(s.id for s in self.sources), *self.unread_ids)


class Create(msgspec.Struct, frozen=True, tag="create", kw_only=True):
    """A new observation: its text and the facts that support it (the new fact among them)."""

    text: str
    source_ids: tuple[str, ...]
    reason: str | None = None


class Update(msgspec.Struct, frozen=True, tag="update", kw_only=True):
    """An observation rewritten (``text``; None keeps it) or backed by more facts."""

    observation_id: str
    text: str | None = None
    source_ids: tuple[str, ...] = ()
    reason: str | None = None


class Delete(msgspec.Struct, frozen=True, tag="delete", kw_only=True):
    """An observation the new fact directly supersedes or contradicts."""

    observation_id: str
    reason: str | None = None


Action = Create | Update | Delete
ActionKind = Literal["create", "update", "delete"]


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """What to do with one new fact (no action: the fact supports nothing yet)."""

    fact_id: str
    actions: tuple[Action, ...] = ()


class Candidates(msgspec.Struct, frozen=True, kw_only=True):
    """What a decision about ``fact`` may cite: these observations and these facts."""

    fact: FactView
    observations: tuple[ObservationView, ...] = ()
    facts: tuple[FactView, ...] = ()
