"""Consolidation decisions by an LLM: the rules in the prompt, the ids checked by code.

The model sees one new fact, its candidate observations (with some of their sources) and the
facts that may restate it, each under a short label (``NEW``, ``O1``…, ``F1``…): weak local
models copy short labels reliably, long ids less so. Its answer is a list of actions in
:class:`LlmDecision` (instructor, through the shared ``app.store.llm.LlmClient``: repaired JSON,
re-asks, deadline). :func:`to_decision` maps the labels back; a label that was not offered, or
an action missing what it needs, raises ``Refused`` and nothing of the decision is written
(``app.consolidate.invariants`` applies the rest of the rules whatever the model said).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from app.consolidate.invariants import Refused
from app.consolidate.model import Action, Candidates, Create, Decision, Delete, FactView, Update
from app.store.llm import CallLog, LlmClient, RepairingModel

# Sources of a candidate observation shown to the model (the most recent).
SHOWN_SOURCES = 3

RULES = """\
You maintain the observations of a memory bank: durable conclusions, each backed by the facts \
that support it. Compare the NEW fact with the candidate OBSERVATIONS and the RELATED facts, \
then answer with the actions to take.

Actions:
- "update": the new fact supports an observation: it restates, confirms or refines it. Give \
"observation_id"; give "text" only when the wording must change to take in what the fact adds; \
list in "source_fact_ids" the related facts that also support it.
- "create": the new fact states something durable that no observation covers. Give "text" and, \
in "source_fact_ids", the related facts that support it (the new fact is always a source).
- "delete": the new fact directly supersedes or contradicts the observation.

Rules:
1. UPDATE OVER CREATE: when an observation is about the same thing, update it; never create a \
second observation of the same claim.
2. NO COMPUTATION: never add, subtract, count or otherwise compute new values from facts. \
"2 dogs" and "one more dog named Rex" do not make "3 dogs": state what the facts state.
3. PRESERVE HISTORY: delete only an observation the new fact directly supersedes or \
contradicts, never one that is merely old, incomplete or less relevant.
4. Cite only the labels given below (NEW, O1, F1, ...). Write observations as one or two plain \
sentences in the facts' own terms, without speculation.
5. When the fact adds nothing worth keeping, answer {"actions": []}.

Answer with one JSON object: {"actions": [{"action": "create" | "update" | "delete", \
"observation_id": "O1" (update, delete), "text": "..." (create; update when rewording), \
"source_fact_ids": ["F1"], "reason": "..."}]}"""


class LlmAction(BaseModel):
    """One action as the model states it (labels, not ids)."""

    action: Literal["create", "update", "delete"]
    observation_id: str | None = None
    text: str | None = None
    source_fact_ids: list[str] = Field(default_factory=list)
    reason: str | None = None


class LlmDecision(RepairingModel):
    """The model's answer: the actions for the new fact (possibly none)."""

    actions: list[LlmAction] = Field(default_factory=list)


class Labels:
    """The short labels of one prompt and the ids they stand for."""

    def __init__(self, candidates: Candidates) -> None:
        self.observations = {f"O{i}": o.id for i, o in enumerate(candidates.observations, 1)}
        self.facts = {"NEW": candidates.fact.id}
        self.facts.update({f"F{i}": f.id for i, f in enumerate(candidates.facts, 1)})
        known = dict(self.facts)
        for observation in candidates.observations:
            for source in observation.sources:
                if source.id not in known.values():
                    label = f"F{len(known)}"
                    known[label] = source.id
        self.facts = known
        self._label_of = {v: k for k, v in self.facts.items()}

    def fact_label(self, fact_id: str) -> str:
        """The label a fact is shown under."""
        return self._label_of[fact_id]

    def observation(self, label: str | None) -> str:
        """The observation id behind ``label`` (Refused when it was not offered)."""
        found = self.observations.get((label or "").strip())
        if found is None:
            raise Refused(f"the answer cites observation {label!r}, which was not offered")
        return found

    def fact_ids(self, labels: Sequence[str]) -> tuple[str, ...]:
        """The fact ids behind ``labels`` (Refused when one was not offered)."""
        ids = []
        for label in labels:
            found = self.facts.get(label.strip())
            if found is None:
                raise Refused(f"the answer cites fact {label!r}, which was not offered")
            ids.append(found)
        return tuple(dict.fromkeys(ids))


def messages(candidates: Candidates, labels: Labels, mission: str | None) -> list[dict[str, str]]:
    """The chat messages of one decision: the rules (and the bank's mission), then the case."""
    system = RULES
    if mission:
        system += f"\n\nThe bank's mission for its observations: {mission.strip()}"
    lines = [f"NEW fact: {_fact_line(candidates.fact)}", "", "OBSERVATIONS:"]
    if not candidates.observations:
        lines.append("(none)")
    for label, observation in zip(labels.observations, candidates.observations, strict=True):
        supported = len(observation.source_ids)
        lines.append(f"{label}: {observation.text} (supported by {supported} facts)")
        recent = sorted(observation.sources, key=_when, reverse=True)[:SHOWN_SOURCES]
        lines.extend(f"  - {labels.fact_label(s.id)}: {_fact_line(s)}" for s in recent)
    lines += ["", "RELATED facts:"]
    if not candidates.facts:
        lines.append("(none)")
    lines.extend(f"{labels.fact_label(f.id)}: {_fact_line(f)}" for f in candidates.facts)
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines)}]


def to_decision(answer: LlmDecision, candidates: Candidates, labels: Labels) -> Decision:
    """The model's answer as a decision about ``candidates.fact`` (Refused when malformed)."""
    actions: list[Action] = []
    for item in answer.actions:
        sources = labels.fact_ids(item.source_fact_ids)
        if item.action == "create":
            if not item.text or not item.text.strip():
                raise Refused("the answer creates an observation without a text")
            actions.append(Create(text=item.text, source_ids=sources, reason=item.reason))
        elif item.action == "update":
            actions.append(
                Update(
                    observation_id=labels.observation(item.observation_id),
                    text=item.text if item.text and item.text.strip() else None,
                    source_ids=sources,
                    reason=item.reason,
                )
            )
        else:
            actions.append(
                Delete(observation_id=labels.observation(item.observation_id), reason=item.reason)
            )
    return Decision(fact_id=candidates.fact.id, actions=tuple(actions))


async def decide_with_llm(
    llm: LlmClient, candidates: Candidates, mission: str | None, call: CallLog
) -> Decision:
    """Ask the model about one fact; raises one of ``LLM_FAILURES`` or ``Refused``."""
    labels = Labels(candidates)
    answer = await llm.structured(LlmDecision, messages(candidates, labels, mission), call)
    return to_decision(answer, candidates, labels)


def _when(fact: FactView) -> tuple[bool, float]:
    moment = fact.mentioned_at or fact.occurred_start
    return (moment is not None, moment.timestamp() if moment else 0.0)


def _fact_line(fact: FactView) -> str:
    when = fact.occurred_start or fact.mentioned_at
    return f"{fact.text} ({when.date().isoformat()})" if when else fact.text
