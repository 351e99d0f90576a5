"""Offline consolidation: restatements of one claim, from two or more facts, become one observation.

No model decides here. Two facts *restate one claim* when their embeddings are close (cosine at
least ``OfflinePolicy.threshold``), they carry the same tags, and their claims show none of the
differences ``app.consolidate.claims`` looks for (number, date, negation, entity, direction,
thing). Decisions for a new fact, in order:

1. it already supports an observation (it was queued again): an observation left with fewer than
   ``min_sources`` sources is deleted (the facts are free to pair again), otherwise its text is
   kept the most complete wording of its sources;
2. it joins the closest observation whose every compared source it restates (complete linkage:
   a chain of near-restatements never drifts into a different claim);
3. it pairs with the facts it restates that support no observation yet, each of which restates
   every other one: with at least one of them, they become a new observation;
4. otherwise nothing: a fact stated once creates nothing.

An observation's text is the most complete wording of its sources (the one with the most words;
the longer, then the earlier, on a tie), so offline observations never say more than a fact did.
Offline consolidation never deletes an observation because a fact contradicts it: telling which
of two conflicting facts holds needs judgement; both stay, each with its own evidence.

Pure: the caller passes the vectors (unit length) and the claims it read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from app.consolidate.claims import Claim, conflict
from app.consolidate.model import (
    Action,
    Candidates,
    Create,
    Decision,
    Delete,
    FactView,
    ObservationView,
    Update,
)
from app.domain.names import name_key

Vector = npt.NDArray[np.float32]
_WORD = re.compile(r"\w+(?:['’-]\w+)*")


class OfflinePolicy(msgspec.Struct, frozen=True, kw_only=True):
    """The numbers behind offline consolidation, each with its reason."""

    # Cosine (all-MiniLM-L6-v2) from which two facts may restate one claim; the claim reading
    # decides. Restatements in the labelled corpus score 0.82 and up; below 0.8 the pairs that
    # pass the claim guards are different claims worded alike.
    threshold: float = 0.8
    # Sources of an observation a new fact is compared with (the most recent): enough to keep
    # the claim from drifting, bounded for observations backed by hundreds of facts.
    compared_sources: int = 8
    # A fact stated once creates nothing: an observation needs this many supporting facts.
    min_sources: int = 2


DEFAULT_OFFLINE = OfflinePolicy()


def entity_keys(fact: FactView) -> frozenset[str]:
    """The fact's entities by name key (what the claim guard compares)."""
    return frozenset(name_key(e.name) for e in fact.entities) - {""}


def may_restate(a: FactView, b: FactView, similarity: float, policy: OfflinePolicy) -> bool:
    """The cheap part of the test: close enough, same tags, same entities (no claim read yet)."""
    return similarity >= policy.threshold and a.tags == b.tags and entity_keys(a) == entity_keys(b)


def restates(
    a: FactView,
    b: FactView,
    vectors: Mapping[str, Vector],
    claims: Mapping[str, Claim],
    policy: OfflinePolicy,
) -> bool:
    """Whether ``a`` and ``b`` restate one claim (an unread claim or a missing vector: no)."""
    if a.id == b.id:
        return True
    va, vb = vectors.get(a.id), vectors.get(b.id)
    ca, cb = claims.get(a.id), claims.get(b.id)
    if va is None or vb is None or ca is None or cb is None:
        return False
    if not may_restate(a, b, float(va @ vb), policy):
        return False
    return conflict(ca, cb) is None


def most_complete(facts: Sequence[FactView]) -> str:
    """The wording that says the most: most words, then longest, then earliest given."""
    best = max(
        enumerate(facts),
        key=lambda pair: (len(_WORD.findall(pair[1].text)), len(pair[1].text), -pair[0]),
    )
    return best[1].text


def decide_offline(
    candidates: Candidates,
    vectors: Mapping[str, Vector],
    claims: Mapping[str, Claim],
    policy: OfflinePolicy = DEFAULT_OFFLINE,
) -> Decision:
    """What to do with ``candidates.fact`` (see the module docstring for the order of rules)."""
    fact = candidates.fact
    actions: list[Action] = []
    for observation in candidates.observations:
        if fact.id not in observation.source_ids:
            continue
        if len(observation.source_ids) < policy.min_sources:
            actions.append(
                Delete(
                    observation_id=observation.id,
                    reason=f"fewer than {policy.min_sources} facts support it",
                )
            )
            continue
        # The caller reads every source of the fact's own observations (it was queued again:
        # a source may have gone, and with it the wording the text came from).
        text = most_complete(observation.sources)
        if not observation.unread_ids and text != observation.text:
            actions.append(Update(observation_id=observation.id, text=text))
        return Decision(fact_id=fact.id, actions=tuple(actions))

    def same(other: FactView) -> bool:
        return restates(fact, other, vectors, claims, policy)

    joinable = [
        o
        for o in candidates.observations
        if o.sources
        and o.tags == fact.tags
        and fact.id not in o.source_ids
        and o.id not in released_observations(actions)
        and all(same(s) for s in _recent(o, policy))
    ]
    if joinable:
        best = max(joinable, key=lambda o: (_mean_similarity(fact, o, vectors, policy), o.id))
        text = fact.text if _says_more(fact.text, best.text) else best.text
        actions.append(
            Update(
                observation_id=best.id,
                text=text if text != best.text else None,
                source_ids=(fact.id,),
                reason="restates it",
            )
        )
        return Decision(fact_id=fact.id, actions=tuple(actions))
    free = [
        f
        for f in candidates.facts
        if f.id != fact.id
        and (not f.observation_ids or set(f.observation_ids) <= released_observations(actions))
        and not f.held
        and same(f)
    ]
    free.sort(key=lambda f: (-_similarity(fact, f, vectors), f.id))
    group = [fact]
    for other in free:
        if all(restates(other, member, vectors, claims, policy) for member in group[1:]):
            group.append(other)
    if len(group) >= policy.min_sources:
        actions.append(
            Create(
                text=most_complete(group),
                source_ids=tuple(f.id for f in group),
                reason=f"{len(group)} facts restate it",
            )
        )
    return Decision(fact_id=fact.id, actions=tuple(actions))


def _says_more(text: str, than: str) -> bool:
    """Whether ``text`` is a more complete wording than ``than`` (``most_complete``'s order).

    An observation's text is already the most complete wording of its sources, so a new source
    is compared with it alone, not with every source (most of which a batch does not read).
    """
    return (len(_WORD.findall(text)), len(text)) > (len(_WORD.findall(than)), len(than))


def released_observations(actions: Sequence[Action]) -> set[str]:
    """Observations this decision deletes (their sources are free again)."""
    return {a.observation_id for a in actions if isinstance(a, Delete)}


def _recent(observation: ObservationView, policy: OfflinePolicy) -> Sequence[FactView]:
    ordered = sorted(
        observation.sources,
        key=lambda s: (s.mentioned_at is not None, s.mentioned_at, s.id),
        reverse=True,
    )
    return ordered[: policy.compared_sources]


def _similarity(a: FactView, b: FactView, vectors: Mapping[str, Vector]) -> float:
    va, vb = vectors.get(a.id), vectors.get(b.id)
    return float(va @ vb) if va is not None and vb is not None else -1.0


def _mean_similarity(
    fact: FactView,
    observation: ObservationView,
    vectors: Mapping[str, Vector],
    policy: OfflinePolicy,
) -> float:
    sources = _recent(observation, policy)
    return sum(_similarity(fact, s, vectors) for s in sources) / max(len(sources), 1)
