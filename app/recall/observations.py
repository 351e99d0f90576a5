"""Pure rules for observations in a recall answer.

Which facts an observation supersedes (``prefer_observations``), and which of its source facts
fit the ``include.source_facts`` budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec


def superseded(kept: Sequence[str], sources: Mapping[str, Sequence[str]]) -> set[str]:
    """The kept facts that a kept observation was consolidated from (``prefer_observations``).

    ``sources`` maps each observation among the candidates to its valid source facts; the
    observation carries their evidence, so returning them as well repeats it.
    """
    covered = {s for memory_id in kept for s in sources.get(memory_id, ())}
    return {memory_id for memory_id in kept if memory_id in covered}


class SourceFactsPick(msgspec.Struct, frozen=True, kw_only=True):
    """The source facts to show (each once, in the order of the observations).

    ``truncated``: some were left out for the budget.
    """

    ids: tuple[str, ...]
    truncated: bool


def pick_source_facts(
    observations: Sequence[tuple[str, Sequence[str]]],
    cost_of: Callable[[str], int],
    *,
    max_tokens: int,
    max_tokens_per_observation: int,
) -> SourceFactsPick:
    """Source facts of the returned observations, best observation first, within the budgets.

    ``observations``: (observation id, its source fact ids) in answer order. A budget of -1 is
    unlimited. A fact shown for an earlier observation costs a later one nothing; a fact that
    does not fit its observation's budget is skipped (a shorter one may still fit); the total
    budget stops the walk at its first misfit, like the answer's own budget.
    """
    picked: list[str] = []
    seen: set[str] = set()
    used = 0
    truncated = False
    for _, source_ids in observations:
        spent = 0
        for fact_id in source_ids:
            if fact_id in seen:
                continue
            cost = cost_of(fact_id)
            if 0 <= max_tokens_per_observation < spent + cost:
                truncated = True
                continue
            if 0 <= max_tokens < used + cost:
                return SourceFactsPick(ids=tuple(picked), truncated=True)
            picked.append(fact_id)
            seen.add(fact_id)
            spent += cost
            used += cost
    return SourceFactsPick(ids=tuple(picked), truncated=truncated)
