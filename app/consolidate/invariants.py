"""What holds whatever decided: the rules a decision (offline or a model's) cannot change.

* A decision cites only what it was given: the new fact, its candidate facts, the candidate
  observations and their sources. Anything else refuses the whole decision (:class:`Refused`),
  and nothing of it is written.
* An observation's sources are a union: an update adds facts, never drops one (facts leave only
  when they stop being valid, through the cascade in ``app.domain.lifecycle``).
* ``proof_count`` is computed: the number of distinct valid sources (here, to record it in the
  history; in the graph by ``observations/refresh``), never a number a model gave.
* The time range only widens: the earliest start and the latest end seen.
* Every change is a revision with the text and the sources before and after it.

Pure: the caller passes ``now`` and the id of each new observation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import msgspec

from app.consolidate.model import (
    Candidates,
    Create,
    Decision,
    Delete,
    FactView,
    ObservationView,
    Update,
)
from app.domain.facts import RevisionKind
from app.errors import UpstreamError


class Refused(UpstreamError):
    """A decision broke a rule it cannot break (cited an unknown id, left out a required field)."""


class ObservationState(msgspec.Struct, kw_only=True):
    """An observation as a batch leaves it (what the write sets)."""

    id: str
    text: str
    tags: tuple[str, ...]
    occurred_start: datetime | None
    occurred_end: datetime | None
    mentioned_at: datetime | None
    source_ids: tuple[str, ...]
    new: bool = False
    deleted: bool = False
    delete_reason: str | None = None
    # The text changed (or is new): its vector must be written again.
    text_changed: bool = False


class RevisionRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One change of an observation, for its history."""

    memory_id: str
    kind: RevisionKind
    reason: str | None
    before: dict[str, Any]
    after: dict[str, Any]


def check_decision(decision: Decision, candidates: Candidates) -> None:
    """Refuse a decision that cites anything outside ``candidates`` or lacks what it needs."""
    if decision.fact_id != candidates.fact.id:
        raise Refused(f"a decision about {decision.fact_id!r} was given for {candidates.fact.id!r}")
    observations = {o.id for o in candidates.observations}
    facts = {candidates.fact.id} | {f.id for f in candidates.facts}
    facts |= {s.id for o in candidates.observations for s in o.sources}
    touched: set[str] = set()
    for action in decision.actions:
        if isinstance(action, Create):
            if not action.text.strip():
                raise Refused("a created observation needs a text")
            _check_facts(action.source_ids, facts)
            continue
        if action.observation_id not in observations:
            raise Refused(f"observation {action.observation_id!r} is not among the candidates")
        if action.observation_id in touched:
            raise Refused(f"observation {action.observation_id!r} is changed twice")
        touched.add(action.observation_id)
        if isinstance(action, Update):
            if action.text is not None and not action.text.strip():
                raise Refused("an updated observation's text must not be blank")
            _check_facts(action.source_ids, facts)


def _check_facts(ids: Iterable[str], allowed: set[str]) -> None:
    outside = sorted(set(ids) - allowed)
    if outside:
        raise Refused(f"facts {outside} are not among the candidates")


class Workset:
    """The observations one batch touches, with every change recorded as a revision.

    Decisions are applied in the order of their facts, so a later fact of the batch sees what an
    earlier one created or changed.
    """

    def __init__(self) -> None:
        self.observations: dict[str, ObservationState] = {}
        self.revisions: list[RevisionRecord] = []
        self._facts: dict[str, FactView] = {}

    def know(self, candidates: Candidates) -> None:
        """Remember the facts and observations a decision was given (first sight wins)."""
        for fact in (candidates.fact, *candidates.facts):
            self._facts.setdefault(fact.id, fact)
        for observation in candidates.observations:
            for source in observation.sources:
                self._facts.setdefault(source.id, source)
            if observation.id not in self.observations:
                self.observations[observation.id] = _state_of(observation)

    def view(self, observation_id: str) -> ObservationView:
        """An observation as the batch has left it so far, with its sources."""
        state = self.observations[observation_id]
        return ObservationView(
            id=state.id,
            text=state.text,
            tags=state.tags,
            occurred_start=state.occurred_start,
            occurred_end=state.occurred_end,
            mentioned_at=state.mentioned_at,
            sources=tuple(self._facts[s] for s in state.source_ids if s in self._facts),
            unread_ids=tuple(s for s in state.source_ids if s not in self._facts),
        )

    def apply(
        self, decision: Decision, candidates: Candidates, now: datetime, new_id: Callable[[], str]
    ) -> None:
        """Check ``decision`` against ``candidates``, then apply it under the invariants."""
        check_decision(decision, candidates)
        self.know(candidates)
        fact = candidates.fact
        for action in decision.actions:
            if isinstance(action, Create):
                self._create(action, fact, new_id())
            elif isinstance(action, Update):
                self._update(action, fact)
            elif isinstance(action, Delete):
                self._delete(action)
        del now  # revision times are the write's; kept for callers that pass the clock

    def _create(self, action: Create, fact: FactView, observation_id: str) -> None:
        sources = _union((), (*action.source_ids, fact.id))
        facts = [self._facts[s] for s in sources]
        start, end = _widen(None, None, facts)
        state = ObservationState(
            id=observation_id,
            text=action.text.strip(),
            tags=fact.tags,
            occurred_start=start,
            occurred_end=end,
            mentioned_at=_latest(None, facts),
            source_ids=sources,
            new=True,
            text_changed=True,
        )
        self.observations[observation_id] = state
        self.revisions.append(
            RevisionRecord(
                memory_id=observation_id,
                kind="create",
                reason=action.reason,
                before={},
                after=_summary(state),
            )
        )

    def _update(self, action: Update, fact: FactView) -> None:
        state = self.observations[action.observation_id]
        before = _summary(state)
        sources = _union(state.source_ids, (*action.source_ids, fact.id))
        added = [self._facts[s] for s in sources if s not in state.source_ids]
        start, end = _widen(state.occurred_start, state.occurred_end, added)
        text = action.text.strip() if action.text is not None else state.text
        changed = text != state.text
        state.text = text
        state.text_changed = state.text_changed or changed
        state.source_ids = sources
        state.occurred_start, state.occurred_end = start, end
        state.mentioned_at = _latest(state.mentioned_at, added)
        after = _summary(state)
        if after != before:
            self.revisions.append(
                RevisionRecord(
                    memory_id=state.id,
                    kind="update",
                    reason=action.reason,
                    before=before,
                    after=after,
                )
            )

    def _delete(self, action: Delete) -> None:
        state = self.observations[action.observation_id]
        state.deleted = True
        state.delete_reason = action.reason or "superseded or contradicted by a newer fact"
        self.revisions.append(
            RevisionRecord(
                memory_id=state.id,
                kind="delete",
                reason=state.delete_reason,
                before=_summary(state),
                after={"state": "invalidated"},
            )
        )


def _state_of(observation: ObservationView) -> ObservationState:
    return ObservationState(
        id=observation.id,
        text=observation.text,
        tags=observation.tags,
        occurred_start=observation.occurred_start,
        occurred_end=observation.occurred_end,
        mentioned_at=observation.mentioned_at,
        source_ids=tuple(sorted(observation.source_ids)),
    )


def _union(current: tuple[str, ...], added: Iterable[str]) -> tuple[str, ...]:
    """Sources only grow: the current ones plus the added ones, sorted, each once."""
    return tuple(sorted({*current, *added}))


def _widen(
    start: datetime | None, end: datetime | None, facts: Iterable[FactView]
) -> tuple[datetime | None, datetime | None]:
    """The earliest start and the latest end of the current range and the facts' ranges."""
    for fact in facts:
        f_start = fact.occurred_start or fact.mentioned_at
        f_end = fact.occurred_end or f_start
        if f_start is not None and (start is None or f_start < start):
            start = f_start
        if f_end is not None and (end is None or f_end > end):
            end = f_end
    return start, end


def _latest(current: datetime | None, facts: Iterable[FactView]) -> datetime | None:
    for fact in facts:
        if fact.mentioned_at is not None and (current is None or fact.mentioned_at > current):
            current = fact.mentioned_at
    return current


def _summary(state: ObservationState) -> dict[str, Any]:
    """What a revision records of an observation: its text, its sources and their count."""
    return {
        "text": state.text,
        "source_memory_ids": list(state.source_ids),
        "proof_count": len(state.source_ids),
    }
